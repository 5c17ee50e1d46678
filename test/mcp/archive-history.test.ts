// History, archive, merge and sources driven through the real MCP servers (homelab, and
// personal for its own cards) with a real client, each effect checked in the database
// directly; the archive guard in personal is also tried in plain SQL as the project role.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTopic, linkTopics, recordEpisode, updateTopic, type BrainContext } from '../../services/knowledge/index.js';
import type { RunningSubjectServer } from '../../services/runtime/subject-server.js';
import { describeOnBothDatabases, outcome } from '../support/both-databases.js';
import { contextFor, roleOf } from '../support/knowledge.js';
import { connectClient, startTestServer, text } from '../support/mcp.js';

describeOnBothDatabases('history, archive, merge and sources over MCP', (brain) => {
  let homelabServer: RunningSubjectServer;
  let personalServer: RunningSubjectServer;
  let client: Client;
  let personalClient: Client;
  let homelab: BrainContext;
  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
  const q = <T>(query: string) => brain().admin.query<T & Record<string, unknown>>(query);
  const count = async (query: string) => Number((await q<{ n: number }>(`SELECT count(*)::int AS n FROM (${query}) x`))[0]!.n);

  beforeAll(async () => {
    homelab = await contextFor(brain(), 'homelab');
    const personal = await contextFor(brain(), 'personal');
    await createTopic(homelab, { slug: 'tool/restic', kind: 'tool', title: 'Restic', summary: 'Backup tool', body: 'Restic backs up to B2.\nSnapshots are encrypted.', tags: ['backup', 'cli'] });
    await createTopic(homelab, { slug: 'tool/backup', kind: 'tool', title: 'Backups', body: 'Nightly backups of the NAS.', tags: ['backup'] });
    await createTopic(homelab, { slug: 'env/nas', kind: 'environment', title: 'NAS', body: 'Two mirrored disks.' });
    await createTopic(homelab, { slug: 'tool/borg', kind: 'tool', title: 'Borg', body: 'Deduplicating backups.' });
    await createTopic(homelab, { slug: 'env/old-router', kind: 'environment', title: 'Old router', body: 'Retired in 2025.' });
    await linkTopics(homelab, { from: 'tool/restic', to: 'env/nas', context: 'backs up the NAS' });
    await linkTopics(homelab, { from: 'tool/restic', to: 'tool/borg', relation: 'relates-to', context: 'alternative' });
    await linkTopics(homelab, { from: 'tool/backup', to: 'tool/restic', context: 'done with restic' });
    await linkTopics(homelab, { from: 'env/nas', to: 'tool/restic', context: 'backed up by restic' });
    await linkTopics(homelab, { from: 'env/nas', to: 'tool/backup', context: 'nightly' });
    await linkTopics(homelab, { from: 'tool/borg', to: 'env/old-router' });
    await recordEpisode(homelab, { kind: 'incident', occurredAt: '2026-10-01', title: 'Restic repo locked', topics: ['tool/restic'] });
    await recordEpisode(homelab, { kind: 'work-session', occurredAt: '2026-10-02', title: 'Set up backups', topics: ['tool/restic', 'tool/backup'] });
    await createTopic(personal, { slug: 'tool/zfs', kind: 'tool', title: 'ZFS', body: 'Snapshots are cheap.' });
    await linkTopics(homelab, { from: 'env/nas', to: 'tool/zfs', toSubject: 'personal', context: 'runs ZFS' });
    homelabServer = await startTestServer(brain(), 'homelab');
    personalServer = await startTestServer(brain(), 'personal');
    client = await connectClient(homelabServer.url);
    personalClient = await connectClient(personalServer.url);
  });
  afterAll(async () => {
    await client?.close();
    await personalClient?.close();
    await homelabServer?.close();
    await personalServer?.close();
  });

  it('the tool list has archive, destructive, and stays within its budget', async () => {
    const { tools } = await client.listTools();
    const archive = tools.find((t) => t.name === 'archive');
    expect(archive?.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
    expect(Object.keys((archive!.inputSchema as { properties: object }).properties).sort()).toEqual(['body', 'into', 'reason', 'slug', 'subject', 'unarchive']);
  });

  it('history numbers versions per card, shows what changed, and restore answers with the slug and version', async () => {
    // Interleaved updates of two cards: their global version ids have gaps, their numbers do not.
    await updateTopic(homelab, { slug: 'env/nas', body: 'Two mirrored disks.\nA spare on the shelf.', reason: 'spare' });
    await updateTopic(homelab, { slug: 'tool/borg', summary: 'the other one' });
    await updateTopic(homelab, { slug: 'env/nas', title: 'NAS box', body: 'Three mirrored disks.\nA spare on the shelf.' });
    const h = text(await call('history', { slug: 'env/nas' }));
    expect(h.split('\n').filter((l) => /^v\d/.test(l)).map((l) => l.split(' ')[0])).toEqual(['v3', 'v2', 'v1']);
    expect(h).toContain('History of homelab:env/nas: 3 versions, v3 is current.');
    expect(h).toMatch(/v3 \(current\) · [^\n]* · update\n  title: NAS → NAS box\n  body: \+1 −1 lines\n    - Two mirrored disks\.\n    \+ Three mirrored disks\./);
    expect(h).toMatch(/v2 · [^\n]* — spare\n  body: \+1 −0 lines\n    \+ A spare on the shelf\./);
    expect(h).toMatch(/v1 · [^\n]*\n  created: "NAS"/);
    expect(h).toContain('Put one back: history with slug: "env/nas", restore: N.');

    const r = await call('history', { slug: 'env/nas', restore: 1, reason: 'the spare was sold' });
    expect(text(r)).toBe('Restored homelab:env/nas to v1; that is now v4, and v3 keeps what it replaced.');
    expect(await q("SELECT title, body FROM homelab.topics WHERE slug = 'env/nas'")).toEqual([{ title: 'NAS', body: 'Two mirrored disks.' }]);
    expect(await count("SELECT 1 FROM homelab.versions v JOIN homelab.topics t ON t.id = v.entity_id WHERE v.entity = 'topic' AND t.slug = 'env/nas'")).toBe(3);
    const after = text(await call('history', { slug: 'env/nas' }));
    expect(after).toMatch(/v4 \(current\) · [^\n]* · restore — the spare was sold\n  title: NAS box → NAS/);

    const again = await call('history', { slug: 'env/nas', restore: 4 });
    expect(again.isError).toBe(true);
    expect(text(again)).toContain('v4 is already the current version of homelab:env/nas');
    // Episodes are numbered the same way.
    const [{ id: episode }] = (await q<{ id: number }>("SELECT id::int AS id FROM homelab.episodes WHERE title = 'Restic repo locked'")) as [{ id: number }];
    expect(text(await call('history', { episodeId: episode }))).toMatch(new RegExp(`^History of episode ${episode} in homelab: 1 version, v1 is current\\.\\nv1 \\(current\\) · [^\\n]* · record-episode\\n  created: "Restic repo locked"$`));
    expect(text(await call('history', { episodeId: 999999 }))).toMatch(/^Error \(not_found\): episode 999999 does not exist in homelab/);
    const missing = await call('history', { slug: 'env/never-was' });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/Error \(not_found\): the card homelab:env\/never-was does not exist[\s\S]*Hint: Search first/);
  });

  it('ingest cites a document on a card, once; get shows the sources; a missing card or slug is an error', async () => {
    const doc = text(await call('ingest', { content: '# Backup review\nWe keep restic for offsite.', title: 'Backup review 2026-10-02', uri: 'file:///notes/review.md' }));
    const id = Number(/document (\d+)/.exec(doc)![1]);
    const cite = { slug: 'tool/restic', documentId: id, locator: 'para 1', quote: 'We keep restic for offsite.' };
    expect(text(await call('ingest', cite))).toBe(`Cited: document ${id} as a source of homelab:tool/restic @ para 1.`);
    expect(text(await call('ingest', cite))).toBe(`Already cited: document ${id} as a source of homelab:tool/restic @ para 1.`);
    const inOne = text(await call('ingest', { slug: 'tool/borg', content: 'Borg notes: dedup works.', title: 'Borg notes' }));
    expect(inOne).toMatch(/^Cited: document \d+ \(stored now\) as a source of homelab:tool\/borg\.$/);
    expect(await q("SELECT t.slug, s.document_id::int AS doc, s.locator, s.quote FROM homelab.sources s JOIN homelab.topics t ON t.id = s.topic_id ORDER BY s.id")).toEqual([
      { slug: 'tool/restic', doc: id, locator: 'para 1', quote: 'We keep restic for offsite.' },
      { slug: 'tool/borg', doc: expect.any(Number), locator: '', quote: '' },
    ]);
    const card = text(await call('get', { slug: 'tool/restic', include: ['sources'] }));
    expect(card).toContain(`## Sources\n- document ${id} "Backup review 2026-10-02" (file:///notes/review.md) @ para 1 — "We keep restic for offsite."`);
    const noCard = await call('ingest', { slug: 'tool/nothing', documentId: id });
    expect(text(noCard)).toMatch(/^Error \(not_found\)/);
    const noDoc = await call('ingest', { slug: 'tool/restic', documentId: 999999 });
    expect(text(noDoc)).toMatch(/^Error \(not_found\): no document 999999 in homelab\nHint: Store it first/);
    const noSlug = await call('ingest', { documentId: id, quote: 'x' });
    expect(text(noSlug)).toMatch(/^Error \(invalid_input\): ingest: documentId, locator and quote cite a source on a card; slug is missing/);
  });

  it('archive hides a card from get, list, search and lint, versioned; unarchive brings it back as it was', async () => {
    const before = await count("SELECT 1 FROM homelab.versions v JOIN homelab.topics t ON t.id = v.entity_id AND v.entity = 'topic' WHERE t.slug = 'env/old-router'");
    expect(before).toBe(0);
    const r = text(await call('archive', { slug: 'env/old-router', reason: 'decommissioned' }));
    expect(r).toBe(
      'Archived homelab:env/old-router (now v2): hidden from search, list and get, kept in history. Undo: archive with slug "env/old-router", unarchive: true.\n' +
        'Note: 1 link(s) in homelab point at it; lint lists them.',
    );
    expect(await q("SELECT archived_at IS NOT NULL AS archived, merged_into, body FROM homelab.topics WHERE slug = 'env/old-router'")).toEqual([
      { archived: true, merged_into: null, body: 'Retired in 2025.' },
    ]);
    expect(await q("SELECT operation, app_operation, reason FROM homelab.outbox WHERE table_name = 'topics' AND slug = 'env/old-router' ORDER BY id")).toEqual([
      { operation: 'INSERT', app_operation: 'create', reason: null },
      { operation: 'UPDATE', app_operation: 'archive', reason: 'decommissioned' },
    ]);

    const get = await call('get', { slug: 'env/old-router' });
    expect(get.isError).toBe(true);
    expect(text(get)).toMatch(/^Error \(not_found\): homelab:env\/old-router is archived \(since \d{4}-\d{2}-\d{2}\)\nHint: .*unarchive: true/);
    expect(text(await call('list', { kind: 'environment' }))).not.toContain('env/old-router');
    expect(text(await call('search', { query: 'old router retired', mode: 'keyword' }))).not.toContain('env/old-router');
    const tag = await call('tag', { slug: 'env/old-router', tags: ['x'] });
    expect(text(tag)).toMatch(/^Error \(not_found\): homelab:env\/old-router is archived/);
    const lint = text(await call('lint', {}));
    expect(lint).toContain('## Links to archived cards — reported only: relink, or unarchive the card (1)\n- tool/borg —mentions→ homelab:env/old-router (archived)');
    expect(lint).not.toMatch(/Orphans[^#]*env\/old-router/);
    expect(text(await call('history', { slug: 'env/old-router' }))).toMatch(/History of homelab:env\/old-router: 2 versions, v2 is current \(archived\)\.\nv2 \(current\) · [^\n]* · archive — decommissioned\n  status: live → archived/);
    expect(text(await call('archive', { slug: 'env/old-router' }))).toBe('homelab:env/old-router was already archived; nothing changed.');

    expect(text(await call('archive', { slug: 'env/old-router', unarchive: true }))).toBe('Unarchived homelab:env/old-router (now v3).');
    expect(text(await call('get', { slug: 'env/old-router' }))).toContain('Retired in 2025.');
    expect(text(await call('list', { kind: 'environment' }))).toContain('homelab:env/old-router');
    expect(await q("SELECT archived_at, merged_into FROM homelab.topics WHERE slug = 'env/old-router'")).toEqual([{ archived_at: null, merged_into: null }]);
    const bad = await call('archive', { slug: 'env/old-router', body: 'x' });
    expect(text(bad)).toMatch(/^Error \(invalid_input\): archive: body is the survivor's body in a merge; it needs into/);
  });

  it('merge folds one card into another in one transaction: body, tags, links, backlinks, episodes, sources; the merged slug points at the survivor', async () => {
    const r = text(await call('archive', { slug: 'tool/restic', into: 'tool/backup', reason: 'one backup card' }));
    expect(r).toMatch(/^Merged homelab:tool\/restic into homelab:tool\/backup \(now v2\): body appended, 1 tag\(s\) added, 2 link\(s\) and 0 backlink\(s\) moved \(2 duplicate or self link\(s\) dropped\), 2 episode\(s\), 1 source\(s\)\.\n/);
    expect(r).toContain('homelab:tool/restic is archived (v2) and answers "merged into tool/backup"; both histories are kept.');

    const [survivor] = await q<{ body: string; summary: string }>("SELECT body, summary FROM homelab.topics WHERE slug = 'tool/backup'");
    expect(survivor).toEqual({ body: 'Nightly backups of the NAS.\n\nRestic backs up to B2.\nSnapshots are encrypted.', summary: 'Backup tool' });
    expect(await q("SELECT tag FROM homelab.topic_tags tt JOIN homelab.topics t ON t.id = tt.topic_id WHERE t.slug = 'tool/backup' ORDER BY tag")).toEqual([{ tag: 'backup' }, { tag: 'cli' }]);
    // Links: the survivor has the merged card's (not the one to itself); nothing links to the merged card.
    const links = await q<{ f: string; to: string; relation: string }>(
      "SELECT f.slug AS f, l.to_subject || ':' || l.to_slug AS to, l.relation FROM homelab.links l JOIN homelab.topics f ON f.id = l.from_topic_id ORDER BY 1, 2",
    );
    expect(links.length).toBe(5);
    expect(links).toEqual([
      { f: 'env/nas', to: 'homelab:tool/backup', relation: 'mentions' },
      { f: 'env/nas', to: 'personal:tool/zfs', relation: 'mentions' },
      { f: 'tool/backup', to: 'homelab:env/nas', relation: 'mentions' },
      { f: 'tool/backup', to: 'homelab:tool/borg', relation: 'relates-to' },
      { f: 'tool/borg', to: 'homelab:env/old-router', relation: 'mentions' },
    ]);
    expect(await count("SELECT 1 FROM homelab.links l JOIN homelab.topics f ON f.id = l.from_topic_id WHERE l.to_subject = 'homelab' AND l.to_slug = f.slug")).toBe(0);
    expect(await count("SELECT 1 FROM homelab.links WHERE to_subject = 'homelab' AND to_slug = 'tool/restic'")).toBe(0);
    expect(await count("SELECT 1 FROM homelab.links l JOIN homelab.topics f ON f.id = l.from_topic_id WHERE f.slug = 'tool/restic'")).toBe(0);
    // Episodes: both now concern the survivor, the shared one once.
    const episodes = await q<{ title: string; slug: string }>(
      "SELECT e.title, t.slug FROM homelab.episode_topics et JOIN homelab.episodes e ON e.id = et.episode_id JOIN homelab.topics t ON t.id = et.topic_id WHERE e.title IN ('Restic repo locked', 'Set up backups') ORDER BY 1",
    );
    expect(episodes).toEqual([
      { title: 'Restic repo locked', slug: 'tool/backup' },
      { title: 'Set up backups', slug: 'tool/backup' },
    ]);
    expect(await q("SELECT t.slug FROM homelab.sources s JOIN homelab.topics t ON t.id = s.topic_id WHERE s.locator = 'para 1'")).toEqual([{ slug: 'tool/backup' }]);
    expect(await q("SELECT archived_at IS NOT NULL AS archived, merged_into FROM homelab.topics WHERE slug = 'tool/restic'")).toEqual([{ archived: true, merged_into: 'tool/backup' }]);
    // One transaction: every row the merge wrote carries the same transaction id in the outbox.
    expect(await count("SELECT DISTINCT txid FROM homelab.outbox WHERE app_operation = 'merge'")).toBe(1);

    const merged = await call('get', { slug: 'tool/restic' });
    expect(text(merged)).toMatch(/^Error \(not_found\): homelab:tool\/restic was merged into homelab:tool\/backup on \d{4}-\d{2}-\d{2}\nHint: Read homelab:tool\/backup instead/);
    expect(text(await call('history', { slug: 'tool/restic' }))).toMatch(/v2 is current \(archived: merged into homelab:tool\/backup\)[\s\S]*status: live → archived, merged into tool\/backup/);
    expect(text(await call('history', { slug: 'tool/backup' }))).toMatch(/v2 \(current\) · [^\n]* · merge — one backup card\n  summary: \(empty\) → Backup tool\n  body: \+3 −0 lines/);
    expect(text(await call('get', { slug: 'tool/backup', include: ['timeline', 'backlinks'] }))).toMatch(/Restic repo locked[\s\S]*## Backlinks\n- homelab:env\/nas/);

    const intoArchived = await call('archive', { slug: 'tool/borg', into: 'tool/restic' });
    expect(text(intoArchived)).toMatch(/^Error \(conflict\): homelab:tool\/restic was merged into homelab:tool\/backup/);
    const same = await call('archive', { slug: 'tool/borg', into: 'tool/borg' });
    expect(text(same)).toMatch(/^Error \(invalid_input\): merge: from and into name the same card/);
    const none = await call('archive', { slug: 'tool/none', into: 'tool/borg' });
    expect(text(none)).toMatch(/^Error \(not_found\): merge: no topic "tool\/none" in homelab/);
    // A write aimed at the merged card is refused, pointing at the survivor.
    const write = await call('remember', { kind: 'tool', title: 'Restic', slug: 'tool/restic', body: 'More about restic.' });
    expect(text(write)).toMatch(/Error \(conflict\): homelab:tool\/restic was merged into homelab:tool\/backup[\s\S]*Hint: Write to homelab:tool\/backup instead/);
  });

  it('a project can neither archive nor merge personal cards: the database refuses, for the tool and for plain SQL', async () => {
    const refused = await call('archive', { subject: 'personal', slug: 'tool/zfs', reason: 'tidy' });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^Error \(forbidden\): archive personal:tool\/zfs: only the personal brain may archive, unarchive or merge a personal card\nHint: Nothing was changed/);
    const mergeRefused = await call('archive', { subject: 'personal', slug: 'tool/zfs', into: 'tool/zfs2' });
    expect(text(mergeRefused)).toMatch(/^Error \(forbidden\)/);
    expect(await q("SELECT archived_at, merged_into FROM personal.topics WHERE slug = 'tool/zfs'")).toEqual([{ archived_at: null, merged_into: null }]);

    const project = roleOf(brain(), 'homelab');
    const asProject = (statement: string) => outcome(() => brain().asRole(project, (s) => s.exec(statement)));
    expect(await asProject("UPDATE personal.topics SET archived_at = now() WHERE slug = 'tool/zfs'")).toBe('42501');
    expect(await asProject("UPDATE personal.topics SET archived_at = now(), merged_into = 'tool/other' WHERE slug = 'tool/zfs'")).toBe('42501');
    expect(await asProject("INSERT INTO personal.topics (slug, kind, title, archived_at) VALUES ('tool/pre-archived', 'tool', 'x', now())")).toBe('42501');
    // Amending a personal card (an upcast) is still allowed; the guard is about archiving only.
    expect(await asProject("UPDATE personal.topics SET body = 'Snapshots are cheap and instant.' WHERE slug = 'tool/zfs'")).toBe('ok');
    // In its own schema a project archives freely, and personal's role archives its own cards.
    expect(await asProject("UPDATE homelab.topics SET archived_at = now() WHERE slug = 'tool/borg'")).toBe('ok');
    expect(await outcome(() => brain().asRole(roleOf(brain(), 'personal'), (s) => s.exec("UPDATE personal.topics SET archived_at = now() WHERE slug = 'tool/zfs'")))).toBe('ok');
  });

  it("personal archives its own card; a project then sees it gone, and lint tells the project to relink", async () => {
    const r = await personalClient.callTool({ name: 'archive', arguments: { slug: 'tool/zfs', reason: 'folded into storage notes' } });
    expect(text(r)).toMatch(/^Archived personal:tool\/zfs \(now v2\)/);
    expect(await q("SELECT actor FROM personal.outbox WHERE app_operation = 'archive' AND slug = 'tool/zfs'")).toEqual([{ actor: roleOf(brain(), 'personal') }]);
    const fromProject = await call('get', { subject: 'personal', slug: 'tool/zfs' });
    expect(text(fromProject)).toMatch(/^Error \(not_found\): personal:tool\/zfs is archived/);
    expect(text(await call('lint', {}))).toContain('- env/nas —mentions→ personal:tool/zfs (archived)');
    expect(text(await call('list', { subject: 'personal' }))).not.toContain('tool/zfs');
    // The project still cannot bring it back.
    const undo = await call('archive', { subject: 'personal', slug: 'tool/zfs', unarchive: true });
    expect(text(undo)).toMatch(/^Error \(forbidden\)/);
    expect(text(await personalClient.callTool({ name: 'archive', arguments: { slug: 'tool/zfs', unarchive: true } }))).toBe('Unarchived personal:tool/zfs (now v3).');
  });
});
