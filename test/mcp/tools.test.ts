// Every tool, resource and prompt over Streamable HTTP with a real SDK client, success and
// failure paths, with the database checked directly afterwards.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTopic } from '../../services/knowledge/index.js';
import type { RunningSubjectServer } from '../../services/runtime/subject-server.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { contextFor, roleOf } from '../support/knowledge.js';
import { connectClient, startTestServer, text } from '../support/mcp.js';

describeOnBothDatabases('MCP tools, resources and prompts', (brain) => {
  let server: RunningSubjectServer;
  let client: Client;
  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });

  beforeAll(async () => {
    const homelab = await contextFor(brain(), 'homelab');
    await createTopic(homelab, { slug: 'env/nas', kind: 'environment', title: 'NAS', summary: 'ZFS box', body: 'Two mirrored disks.', tags: ['storage'] });
    const personal = await contextFor(brain(), 'personal');
    await createTopic(personal, { slug: 'tool/zfs', kind: 'tool', title: 'ZFS', body: 'Snapshots are cheap.' });
    server = await startTestServer(brain(), 'homelab');
    client = await connectClient(server.url);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('initialize carries short instructions naming the subject, personal and the rules', () => {
    const i = client.getInstructions() ?? '';
    expect(i).toContain('subject "homelab"');
    expect(i).toContain('personal');
    expect(i.toLowerCase()).toContain('search before');
    expect(i).toContain('kinds');
  });

  it('lists the tools with annotations, and the whole list stays under 11,000 characters', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['get', 'list', 'record', 'link', 'tag', 'ingest', 'upcast', 'history', 'archive', 'propose', 'commit', 'lint']) expect(names).toContain(n);
    expect(JSON.stringify({ tools }).length).toBeLessThan(11_000);
    const get = tools.find((t) => t.name === 'get')!;
    expect(get.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(tools.find((t) => t.name === 'history')!.annotations).toMatchObject({ destructiveHint: true });
    // A project may name its own subject or personal, nothing else.
    expect(JSON.stringify(get.inputSchema)).toContain('"homelab"');
    expect(JSON.stringify(get.inputSchema)).not.toContain('novel');
  });

  it('get reads a card with what is asked for, and says how to recover from a wrong slug', async () => {
    const r = await call('get', { slug: 'env/nas', include: ['tags'] });
    expect(r.isError).toBeFalsy();
    expect(text(r)).toContain('homelab:env/nas');
    expect(text(r)).toContain('Tags: storage');
    const p = await call('get', { slug: 'tool/zfs', subject: 'personal' });
    expect(text(p)).toContain('personal:tool/zfs');
    const missing = await call('get', { slug: 'env/none' });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/not_found[\s\S]*Hint: Search first/);
  });

  it('record writes an episode attached to its cards; an unknown kind lists the valid ones', async () => {
    const r = await call('record', { kind: 'deploy', date: '2026-11-28', title: 'Rebuilt brain stack', topics: ['env/nas'], source: 'session' });
    expect(text(r)).toContain('Rebuilt brain stack');
    const rows = await brain().admin.query<{ title: string; n: number }>(
      "SELECT e.title, (SELECT count(*)::int FROM homelab.episode_topics et WHERE et.episode_id = e.id) AS n FROM homelab.episodes e WHERE e.title = 'Rebuilt brain stack'",
    );
    expect(rows).toEqual([{ title: 'Rebuilt brain stack', n: 1 }]);
    const bad = await call('record', { kind: 'deployment', date: '2026-11-28', title: 'x' });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain('work-session');
    expect(text(bad)).toContain('incident');
  });

  it('link, tag and ingest (documents and raw data) write what they say', async () => {
    expect((await call('link', { from: 'env/nas', to: 'tool/zfs', toSubject: 'personal', context: 'runs ZFS' })).isError).toBeFalsy();
    expect(await brain().admin.query("SELECT to_subject, to_slug, context FROM homelab.links")).toEqual([{ to_subject: 'personal', to_slug: 'tool/zfs', context: 'runs ZFS' }]);
    expect(text(await call('tag', { slug: 'env/nas', tags: ['zfs'] }))).toContain('storage, zfs');
    expect(text(await call('ingest', { slug: 'env/nas', source: 'smart', data: { disks: 2 } }))).toContain('Stored raw data');
    expect((await call('ingest', { slug: 'env/nas', data: { disks: 2 } })).isError).toBe(true);
    expect(await brain().admin.query("SELECT source, data::text AS data FROM homelab.raw_data")).toEqual([{ source: 'smart', data: '{"disks":2}' }]);
    const doc = await call('ingest', { content: '# Notes\nWe picked ZFS.', title: 'notes' });
    expect(text(doc)).toMatch(/Stored: document \d+/);
    expect(text(await call('ingest', { content: '# Notes\nWe picked ZFS.' }))).toMatch(/Already stored/);
  });

  it('upcast promotes with a reason; a deny-listed one is refused with a recovery hint', async () => {
    await createTopic(await contextFor(brain(), 'homelab'), { slug: 'pattern/3-2-1', kind: 'methodology', title: '3-2-1 backups', body: 'Three copies, two media, one offsite.' });
    const ok = await call('upcast', { slug: 'pattern/3-2-1', reason: 'generic backup rule' });
    expect(text(ok)).toContain('personal:methodology/3-2-1-backups');
    expect(await brain().admin.query("SELECT reason FROM personal.outbox WHERE slug = 'methodology/3-2-1-backups'")).toEqual([{ reason: 'generic backup rule' }]);
    await createTopic(await contextFor(brain(), 'homelab'), { slug: 'env/nas01', kind: 'environment', title: 'nas01 box' });
    const refused = await call('upcast', { slug: 'env/nas01', reason: 'storage' });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('Keep the card in this project');
    expect(text(refused)).not.toContain('nas01');
  });

  it('history and restore', async () => {
    const homelab = await contextFor(brain(), 'homelab');
    const { updateTopic } = await import('../../services/knowledge/index.js');
    await updateTopic(homelab, { slug: 'env/nas', body: 'Three mirrored disks.' });
    const h = text(await call('history', { slug: 'env/nas' }));
    expect(h).toContain('History of homelab:env/nas: 2 versions, v2 is current.');
    expect(h).toMatch(/v2 \(current\)[^\n]*\n  body: \+1 −1 lines\n    - Two mirrored disks\.\n    \+ Three mirrored disks\./);
    expect(text(await call('history', { slug: 'env/nas', restore: 1 }))).toContain('Restored homelab:env/nas to v1; that is now v3');
    expect(await brain().admin.query("SELECT body FROM homelab.topics WHERE slug = 'env/nas'")).toEqual([{ body: 'Two mirrored disks.' }]);
  });

  it('list: cards across this subject and personal, tags, kinds, stats', async () => {
    const cards = text(await call('list', {}));
    expect(cards).toContain('homelab:env/nas');
    expect(cards).toContain('personal:tool/zfs');
    expect(text(await call('list', { what: 'tags' }))).toContain('zfs (1)');
    expect(text(await call('list', { what: 'kinds' }))).toContain('- deploy:');
    expect(text(await call('list', { what: 'stats' }))).toMatch(/homelab: \d+ cards/);
  });

  it('lint reports over MCP and applies only what it is asked to', async () => {
    // A link to a card that no longer exists: the link tool refuses a missing target, so it is
    // made to a card that is then deleted (as an import may also leave one; lint reports them).
    // (As the homelab role, so the audit test below still finds only that role's writes.)
    const asHomelab = (statement: string) => brain().asRole(roleOf(brain(), 'homelab'), (s) => s.exec(statement), { commit: true });
    await asHomelab("INSERT INTO homelab.topics (slug, kind, title) VALUES ('env/vanished', 'environment', 'Vanished')");
    expect((await call('link', { from: 'env/nas', to: 'env/vanished' })).isError).toBeFalsy();
    await asHomelab("DELETE FROM homelab.topics WHERE slug = 'env/vanished'");
    const report = text(await call('lint', {}));
    expect(report).toContain('# Lint of homelab');
    expect(report).toContain('env/nas —mentions→ homelab:env/vanished');
    const applied = text(await call('lint', { apply: { deadLinks: true } }));
    expect(applied).toContain('Applied: 1 dead links removed');
    expect(await brain().admin.query("SELECT 1 FROM homelab.links WHERE to_slug = 'env/vanished'")).toEqual([]);
    expect(await brain().admin.query("SELECT 1 FROM homelab.topics WHERE slug = 'env/nas'")).toHaveLength(1);
  });

  it('invalid arguments come back as a tool error, and the server stays healthy', async () => {
    const r = await call('get', { slug: 42 });
    expect(r.isError).toBe(true);
    expect((await call('get', { slug: 'env/nas' })).isError).toBeFalsy();
  });

  it('resources: index, kinds, and a card with its timeline', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining(['brain://index', 'brain://kinds']));
    const idx = await client.readResource({ uri: 'brain://index' });
    expect((idx.contents[0] as { text: string }).text).toMatch(/# homelab[\s\S]*## environment[\s\S]*- env\/nas[\s\S]*# personal/);
    const card = await client.readResource({ uri: 'brain://topics/env/nas' });
    expect((card.contents[0] as { text: string }).text).toMatch(/# NAS[\s\S]*## Timeline[\s\S]*Rebuilt brain stack/);
    const kinds = await client.readResource({ uri: 'brain://kinds' });
    expect((kinds.contents[0] as { text: string }).text).toContain('- methodology (topic)');
    // A card that does not exist is the protocol's resource-not-found (the SDK's
    // ResourceNotFoundError: -32602 with the URI, as the current spec has it), not -32603 internal error.
    const missing = (await client.readResource({ uri: 'brain://topics/env/none-such' }).catch((e: unknown) => e)) as { code?: number; message?: string; data?: { uri?: string } };
    expect(missing.code).toBe(-32602);
    expect(missing.data?.uri).toBe('brain://topics/env/none-such');
    expect(missing.message).toContain('no card "env/none-such" in homelab or personal; read brain://index for the slugs');
  });

  it('prompts: session-close, briefing, ingest-meeting', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name).sort()).toEqual(['briefing', 'ingest-meeting', 'session-close']);
    const close = await client.getPrompt({ name: 'session-close' });
    expect(JSON.stringify(close.messages)).toContain('propose');
    const meeting = await client.getPrompt({ name: 'ingest-meeting', arguments: { transcript: 'Alice: ship it' } });
    expect(JSON.stringify(meeting.messages)).toContain('Alice: ship it');
  });

  it('every write through MCP is audited as the homelab role', async () => {
    const actors = await brain().admin.query<{ actor: string }>('SELECT DISTINCT actor FROM homelab.outbox');
    expect(actors.map((a) => a.actor)).toEqual([roleOf(brain(), 'homelab')]);
  });
});
