// Nothing proposed is silently dropped: every field propose's schema lists (every field
// remember and record take) goes through propose and commit over MCP, with a real client
// against the real server, and comes back unchanged through `get` and in the database.
// The fields sent are checked against propose's own tools/list entry, so a field added to
// the schema without a round trip here fails this test.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTopic } from '../../services/knowledge/index.js';
import type { RunningSubjectServer } from '../../services/runtime/subject-server.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';
import { connectClient, startTestServer, text } from '../support/mcp.js';

/** A new homelab card with every topic field. */
const NEW_CARD = {
  type: 'topic',
  subject: 'homelab',
  kind: 'tool',
  slug: 'tool/restic',
  title: 'Restic backups',
  summary: 'Encrypted, deduplicated backups of the storage box',
  body: 'Runs nightly at 02:00.\n\nPrune weekly; check monthly.',
  tags: ['backup', 'Off Site'],
  mode: 'append',
  forceNew: false,
  reason: 'learnt while setting up backups',
} as const;

/** An update of an existing card, replacing it: title, kind, summary, body; tags added. */
const REPLACE = {
  type: 'topic',
  kind: 'environment',
  slug: 'env/box',
  title: 'Storage box (ZFS)',
  summary: 'ZFS mirror of two 8 TB disks',
  body: 'Two mirrored 8 TB disks; scrub on Sundays.',
  tags: ['storage'],
  mode: 'replace',
} as const;

/** A new card despite an existing one with its title: forceNew, with the reason it needs. */
const FORCED = {
  type: 'topic',
  kind: 'environment',
  slug: 'env/box-offsite',
  title: 'Storage box',
  body: 'The second box, at a friend\'s house.',
  forceNew: true,
  reason: 'a second machine, not the same one',
} as const;

/** An upcast: a personal card, proposed from the project with its reason. */
const UPCAST = {
  type: 'topic',
  subject: 'personal',
  kind: 'methodology',
  slug: 'pattern/test-restores',
  title: 'Test restores',
  summary: 'A backup counts once a restore from it worked',
  body: 'Restore one file every month.',
  tags: ['backup'],
  reason: 'true of any backup',
} as const;

/** An episode with every episode field; its body is its detail. */
const EPISODE = {
  type: 'episode',
  subject: 'homelab',
  kind: 'work-session',
  date: '2026-11-28',
  title: 'Set up restic',
  summary: 'first snapshot taken',
  body: 'Repository on the storage box.\nPassword in the password manager.',
  source: 'session',
  topics: ['tool/restic', 'env/box'],
  reason: 'what happened tonight',
} as const;

/** An episode in personal with a timestamp, concerning the personal card of the same batch. */
const PERSONAL_EPISODE = {
  type: 'episode',
  subject: 'personal',
  kind: 'incident',
  date: '2026-11-29T14:30:00Z',
  title: 'A restore found a broken backup',
  summary: 'the monthly restore caught it',
  body: 'The backup job had silently skipped a folder.',
  source: 'retrospective',
  topics: ['pattern/test-restores'],
  reason: 'a general lesson',
} as const;

const ITEMS = [NEW_CARD, REPLACE, FORCED, UPCAST, EPISODE, PERSONAL_EPISODE];

interface TopicRow {
  slug: string;
  kind: string;
  title: string;
  summary: string;
  body: string;
}

describeOnBothDatabases('propose and commit keep every field', (brain) => {
  let server: RunningSubjectServer;
  let client: Client;
  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
  const topic = async (subject: string, slug: string) =>
    (await brain().admin.query<TopicRow>(`SELECT slug, kind, title, summary, body FROM ${subject}.topics WHERE slug = $1`, [slug]))[0];
  const tags = async (subject: string, slug: string) =>
    (await brain().admin.query<{ tag: string }>(`SELECT tag FROM ${subject}.topic_tags tt JOIN ${subject}.topics t ON t.id = tt.topic_id WHERE t.slug = $1 ORDER BY tag`, [slug])).map((r) => r.tag);

  beforeAll(async () => {
    const homelab = await contextFor(brain(), 'homelab');
    await createTopic(homelab, { slug: 'env/box', kind: 'concept', title: 'Storage box', summary: 'old summary', body: 'One disk.', tags: ['hardware'] });
    server = await startTestServer(brain(), 'homelab');
    client = await connectClient(server.url);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('the items here use every field propose lists', async () => {
    const { tools } = await client.listTools();
    const propose = tools.find((t) => t.name === 'propose');
    expect(propose).toBeDefined();
    const itemSchema = (propose!.inputSchema.properties!.items as { items: { properties: Record<string, unknown> } }).items;
    const listed = Object.keys(itemSchema.properties).sort();
    expect(listed.length).toBeGreaterThanOrEqual(14);
    const sent = [...new Set(ITEMS.flatMap((i) => Object.keys(i)))].sort();
    expect(sent).toEqual(listed);
  });

  it('every field is written, and reads back unchanged through get and in the database', async () => {
    const [before] = await brain().admin.query<{ h: number; p: number; e: number; pe: number }>(
      'SELECT (SELECT count(*) FROM homelab.topics)::int AS h, (SELECT count(*) FROM personal.topics)::int AS p, (SELECT count(*) FROM homelab.episodes)::int AS e, (SELECT count(*) FROM personal.episodes)::int AS pe',
    );
    const proposed = await call('propose', { items: ITEMS });
    const preview = text(proposed);
    expect(proposed.isError, preview).toBeFalsy();
    expect(preview).not.toContain('cannot be written');
    expect(preview).toMatch(/\[1\] \+ topic\s+tool\s+"Restic backups"\n\s+tag "off-site" \(from "Off Site"\)/);
    expect(preview).toMatch(/\[2\] ~ topic\s+environment\s+"Storage box"\s+\(replace: Two mirrored 8 TB disks/);
    expect(preview).toMatch(/\[3\] \+ topic\s+environment\s+"Storage box"/);
    const id = /Proposal ([0-9a-f-]{36})/.exec(preview)![1]!;

    const committed = text(await call('commit', { proposalId: id }));
    expect(committed).toContain('6 written.');
    const [after] = await brain().admin.query<{ h: number; p: number; e: number; pe: number }>(
      'SELECT (SELECT count(*) FROM homelab.topics)::int AS h, (SELECT count(*) FROM personal.topics)::int AS p, (SELECT count(*) FROM homelab.episodes)::int AS e, (SELECT count(*) FROM personal.episodes)::int AS pe',
    );
    expect(after).toEqual({ h: before!.h + 2, p: before!.p + 1, e: before!.e + 1, pe: before!.pe + 1 });

    // The new card: every field, in the database and through get.
    expect(await topic('homelab', 'tool/restic')).toEqual({ slug: 'tool/restic', kind: 'tool', title: NEW_CARD.title, summary: NEW_CARD.summary, body: NEW_CARD.body });
    expect(await tags('homelab', 'tool/restic')).toEqual(['backup', 'off-site']);
    const card = text(await call('get', { slug: 'tool/restic', include: ['tags', 'timeline'] }));
    expect(card).toContain(`# ${NEW_CARD.title}\nhomelab:tool/restic · tool · `);
    expect(card).toContain(`> ${NEW_CARD.summary}`);
    expect(card).toContain(NEW_CARD.body);
    expect(card).toContain('Tags: backup, off-site');
    // The episode, on the card's timeline: date, kind, title, summary, source, and its detail.
    expect(card).toContain(`- **2026-11-28** work-session: ${EPISODE.title} — ${EPISODE.summary} (${EPISODE.source})`);
    expect(card).toContain(EPISODE.body.replace(/^/gm, '  '));
    const [episode] = await brain().admin.query<{ kind: string; day: string; date_only: boolean; title: string; summary: string; detail: string; source_label: string; topics: string[] }>(
      `SELECT e.kind, to_char(e.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, e.date_only, e.title, e.summary, e.detail, e.source_label,
              ARRAY(SELECT t.slug FROM homelab.episode_topics et JOIN homelab.topics t ON t.id = et.topic_id WHERE et.episode_id = e.id ORDER BY t.slug) AS topics
         FROM homelab.episodes e WHERE e.title = $1`,
      [EPISODE.title],
    );
    expect(episode).toEqual({ kind: EPISODE.kind, day: EPISODE.date, date_only: true, title: EPISODE.title, summary: EPISODE.summary, detail: EPISODE.body, source_label: EPISODE.source, topics: ['env/box', 'tool/restic'] });
    expect(text(await call('get', { slug: 'env/box', include: ['timeline'] }))).toContain(`work-session: ${EPISODE.title}`);

    // The replaced card: title, kind, summary and body replaced; the new tag added to the old one.
    expect(await topic('homelab', 'env/box')).toEqual({ slug: 'env/box', kind: REPLACE.kind, title: REPLACE.title, summary: REPLACE.summary, body: REPLACE.body });
    expect(await tags('homelab', 'env/box')).toEqual(['hardware', 'storage']);
    const box = text(await call('get', { slug: 'env/box', include: ['tags'] }));
    expect(box).toContain(`# ${REPLACE.title}\nhomelab:env/box · environment · `);
    expect(box).toContain(`> ${REPLACE.summary}`);
    expect(box).toContain('Tags: hardware, storage');

    // forceNew: a card of its own, next to the one whose title it shares.
    expect(await topic('homelab', 'env/box-offsite')).toEqual({ slug: 'env/box-offsite', kind: 'environment', title: FORCED.title, summary: '', body: FORCED.body });

    // The upcast, with its episode (timestamp kept), and the reasons in the audit outbox.
    expect(await topic('personal', 'pattern/test-restores')).toEqual({ slug: 'pattern/test-restores', kind: UPCAST.kind, title: UPCAST.title, summary: UPCAST.summary, body: UPCAST.body });
    expect(await tags('personal', 'pattern/test-restores')).toEqual(['backup']);
    const up = text(await call('get', { subject: 'personal', slug: 'pattern/test-restores', include: ['tags', 'timeline'] }));
    expect(up).toContain(`> ${UPCAST.summary}`);
    expect(up).toContain('Tags: backup');
    expect(up).toContain(`- **2026-11-29 14:30** incident: ${PERSONAL_EPISODE.title} — ${PERSONAL_EPISODE.summary} (${PERSONAL_EPISODE.source}) [#`);
    expect(up).toContain(`]\n  ${PERSONAL_EPISODE.body}`);
    const [pe] = await brain().admin.query<{ at: string; date_only: boolean; detail: string; source_label: string }>(
      `SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS at, date_only, detail, source_label FROM personal.episodes WHERE title = $1`,
      [PERSONAL_EPISODE.title],
    );
    expect(pe).toEqual({ at: PERSONAL_EPISODE.date, date_only: false, detail: PERSONAL_EPISODE.body, source_label: PERSONAL_EPISODE.source });
    const reasons = async (subject: string) =>
      (await brain().admin.query<{ slug: string | null; reason: string }>(`SELECT slug, reason FROM ${subject}.outbox WHERE table_name = 'topics' AND app_operation = 'session-close' ORDER BY id`)).map((r) => `${r.slug}: ${r.reason}`);
    const homelabReasons = await reasons('homelab');
    expect(homelabReasons.length).toBeGreaterThanOrEqual(3);
    expect(homelabReasons).toContain(`tool/restic: session-close: ${NEW_CARD.reason}`);
    expect(homelabReasons).toContain(`env/box-offsite: session-close: ${FORCED.reason}`);
    expect(await reasons('personal')).toContain(`pattern/test-restores: session-close: ${UPCAST.reason}`);
  });

  it('a field the item type does not take is refused by name, never dropped', async () => {
    const r = await call('propose', { items: [{ type: 'episode', kind: 'work-session', date: '2026-11-30', title: 'Tagged episode', tags: ['x'] }] });
    expect(r.isError).toBe(true);
    expect(text(r)).toMatch(/^Error \(invalid_input\): propose: items\[0\]\.tags: is not taken here\nHint: Leave out "items\[0\]\.tags"/);
    const unknown = await call('propose', { items: [{ type: 'topic', kind: 'tool', title: 'x', detail: 'not a topic field' }] });
    expect(text(unknown)).toMatch(/^Error \(invalid_input\): propose: items\[0\]: has fields this tool does not take: detail\nHint: /);
  });

  it('forceNew against an existing card needs a reason, and never turns into an update', async () => {
    const r = text(await call('propose', { items: [{ type: 'topic', kind: 'environment', title: 'Storage box (ZFS)', slug: 'env/box', forceNew: true }] }));
    expect(r).toMatch(/\[1\] ✗ topic\s+environment\s+"Storage box \(ZFS\)"\n\s+cannot be written: "homelab:env\/box" already looks like this card; creating another \(forceNew\) needs a reason/);
    const named = text(await call('propose', { items: [{ type: 'topic', kind: 'environment', title: 'Storage box (ZFS)', slug: 'env/box', forceNew: true, reason: 'really another' }] }));
    expect(named).toMatch(/\[1\] ✗ .*\n\s+cannot be written: topic "env\/box" already exists in homelab/);
  });
});
