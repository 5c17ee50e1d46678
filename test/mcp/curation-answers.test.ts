// What the tools answer where they used to drop or hide something, over MCP with a real
// client, on both databases: remember with only a new summary, a tag stored under another
// spelling, a link to a card that does not exist, a list of a kind that does not exist.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTopic } from '../../services/knowledge/index.js';
import type { RunningSubjectServer } from '../../services/runtime/subject-server.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';
import { connectClient, startTestServer, text } from '../support/mcp.js';

describeOnBothDatabases('tool answers: nothing dropped, nothing hidden', (brain) => {
  let server: RunningSubjectServer;
  let client: Client;
  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
  const card = async (slug: string) =>
    (await brain().admin.query<{ summary: string; body: string }>('SELECT summary, body FROM homelab.topics WHERE slug = $1', [slug]))[0];

  beforeAll(async () => {
    const homelab = await contextFor(brain(), 'homelab');
    await createTopic(homelab, { slug: 'tool/restic', kind: 'tool', title: 'restic', summary: 'Backups', body: 'Encrypted, deduplicated backups.' });
    server = await startTestServer(brain(), 'homelab');
    client = await connectClient(server.url);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('remember with only a new summary updates the summary, in append mode too', async () => {
    const r = await call('remember', { kind: 'tool', title: 'restic', slug: 'tool/restic', body: 'Encrypted, deduplicated backups.', summary: 'Encrypted backups, nightly' });
    expect(r.isError, text(r)).toBeFalsy();
    expect(text(r)).toMatch(/^Updated: homelab:tool\/restic/);
    expect(await card('tool/restic')).toEqual({ summary: 'Encrypted backups, nightly', body: 'Encrypted, deduplicated backups.' });
    // The same again is unchanged, and says so.
    const again = await call('remember', { kind: 'tool', title: 'restic', slug: 'tool/restic', body: 'Encrypted, deduplicated backups.', summary: 'Encrypted backups, nightly' });
    expect(text(again)).toMatch(/^Unchanged \(already said\): homelab:tool\/restic/);
    // Only a new tag is a change too.
    const tagged = await call('remember', { kind: 'tool', title: 'restic', slug: 'tool/restic', body: 'Encrypted, deduplicated backups.', tags: ['Off Site'] });
    expect(text(tagged)).toMatch(/^Updated: homelab:tool\/restic/);
    expect(text(tagged)).toContain('Tagged "off-site" (from "Off Site")');
  });

  it('tags are stored normalised and the answer shows the original; a tag with nothing left is refused', async () => {
    const r = await call('tag', { slug: 'tool/restic', tags: ['Bad Tag!!', 'backup'] });
    expect(text(r)).toBe('Tagged "bad-tag" (from "Bad Tag!!")\nTags of homelab:tool/restic: backup, bad-tag, off-site');
    const tags = await brain().admin.query<{ tag: string }>("SELECT tag FROM homelab.topic_tags tt JOIN homelab.topics t ON t.id = tt.topic_id WHERE t.slug = 'tool/restic' ORDER BY tag");
    expect(tags.map((t) => t.tag)).toEqual(['backup', 'bad-tag', 'off-site']);
    const removed = await call('tag', { slug: 'tool/restic', tags: ['Bad Tag!!'], remove: true });
    expect(text(removed)).toBe('Untagged "bad-tag" (from "Bad Tag!!")\nTags of homelab:tool/restic: backup, off-site');
    const refused = await call('tag', { slug: 'tool/restic', tags: ['?!'] });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^Error \(invalid_input\): tag: tags\[0\]: the tag "\?!" has no letters or digits\nHint: /);
  });

  it('a link to a card that does not exist is refused, naming it, with what to do', async () => {
    const before = await brain().admin.query('SELECT 1 FROM homelab.links');
    const r = await call('link', { from: 'tool/restic', to: 'tool/borg' });
    expect(r.isError).toBe(true);
    expect(text(r)).toBe(
      'Error (not_found): cannot link to homelab:tool/borg: no such card\n' +
        'Hint: Search for it (search tool) to find its slug, or pass toSubject: "personal" if it is a personal card, or create it first (remember), then link again.',
    );
    const personal = await call('link', { from: 'tool/restic', to: 'tool/borg', toSubject: 'personal' });
    expect(text(personal)).toMatch(/^Error \(not_found\): cannot link to personal:tool\/borg: no such card\nHint: Search for it/);
    expect(await brain().admin.query('SELECT 1 FROM homelab.links')).toHaveLength(before.length);
    // Once the card exists, the same call links.
    expect(text(await call('remember', { kind: 'tool', title: 'borg', slug: 'tool/borg', body: 'Another backup program.' }))).toMatch(/^Created/);
    expect(text(await call('link', { from: 'tool/restic', to: 'tool/borg' }))).toBe('Linked: homelab:tool/restic —mentions→ homelab:tool/borg');
  });

  it('list of a kind that does not exist names the valid kinds', async () => {
    const r = await call('list', { kind: 'gadget' });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^Error \(unknown_kind\): unknown topic kind "gadget"\nHint: Use one of: [a-z-]+(, [a-z-]+)+\. New kinds are added to kinds\.yaml by a person\.$/);
    expect(text(r)).toContain(' tool,');
    expect(text(r)).toContain(' environment,');
    const episodeKind = await call('list', { kind: 'deploy' });
    expect(text(episodeKind)).toMatch(/^Error \(wrong_kind_class\): "deploy" is an episode kind, not a topic kind\nHint: Use one of the topic kinds: /);
    expect(text(await call('list', { kind: 'tool' }))).toContain('homelab:tool/restic');
  });
});
