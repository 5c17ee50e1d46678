// The domain layer over both databases, through each subject's own role; every effect is
// checked in the database directly.
import { beforeAll, expect, it } from 'vitest';
import {
  addSource,
  allTags,
  archiveTopic,
  BrainError,
  createTopic,
  getTopic,
  history,
  ingestDocument,
  linkTopics,
  listTopics,
  raw,
  recordEpisode,
  restore,
  tagTopic,
  timeline,
  updateTopic,
  type BrainContext,
} from '../../services/knowledge/index.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { contextFor, roleOf } from '../support/knowledge.js';

async function brainError(p: Promise<unknown>): Promise<BrainError> {
  try {
    await p;
  } catch (error) {
    if (error instanceof BrainError) return error;
    throw error;
  }
  throw new Error('expected a BrainError');
}

describeOnBothDatabases('knowledge services', (brain) => {
  let homelab: BrainContext;
  let personal: BrainContext;

  beforeAll(async () => {
    homelab = await contextFor(brain(), 'homelab');
    personal = await contextFor(brain(), 'personal');
  });

  it('creates a topic with frontmatter in its key order, and tags', async () => {
    const t = await createTopic(homelab, {
      slug: 'tool/psycopg3',
      kind: 'tool',
      title: 'psycopg3',
      summary: 'Postgres driver for Python',
      body: '## Use\nConnection pools.',
      frontmatter: { zeta: 1, alpha: 'two', middle: [3] },
      tags: ['python', 'postgres'],
    });
    expect(t.subject).toBe('homelab');
    expect(Object.keys(t.frontmatter)).toEqual(['zeta', 'alpha', 'middle']);
    const [row] = await brain().admin.query<{ fm: string; search: string }>("SELECT frontmatter::text AS fm, search::text AS search FROM homelab.topics WHERE slug = 'tool/psycopg3'");
    expect(row!.fm).toBe('{"zeta":1,"alpha":"two","middle":[3]}');
    expect(row!.search).toContain("'psycopg3':1A");
    expect(await allTags(homelab)).toEqual([
      { tag: 'postgres', count: 1 },
      { tag: 'python', count: 1 },
    ]);
    const dup = await brainError(createTopic(homelab, { slug: 'tool/psycopg3', kind: 'tool', title: 'again' }));
    expect(dup.code).toBe('already_exists');
  });

  it('refuses an unknown kind and a wrong-class kind, listing the valid kinds', async () => {
    const unknown = await brainError(createTopic(homelab, { slug: 'x/1', kind: 'gadget', title: 'X' }));
    expect(unknown.code).toBe('unknown_kind');
    expect(unknown.hint).toContain('methodology');
    expect(unknown.hint).toContain('environment');
    expect(unknown.hint).not.toContain('work-session');
    const wrong = await brainError(createTopic(homelab, { slug: 'x/1', kind: 'deploy', title: 'X' }));
    expect(wrong.code).toBe('wrong_kind_class');
    expect(wrong.message).toContain('episode kind');
    const ep = await brainError(recordEpisode(homelab, { kind: 'tool', title: 'x', occurredAt: '2026-11-01' }));
    expect(ep.code).toBe('wrong_kind_class');
    expect(ep.hint).toContain('work-session');
  });

  it('update replaces or appends, keeps every previous row as a version, and skips no-op updates', async () => {
    await updateTopic(homelab, { slug: 'tool/psycopg3', body: '## Use\nPools and pipelines.', reason: 'learnt pipelines' });
    await updateTopic(homelab, { slug: 'tool/psycopg3', body: '## Gotcha\nsearch_path is per connection.', bodyMode: 'append' });
    await updateTopic(homelab, { slug: 'tool/psycopg3', body: '## Use\nPools and pipelines.\n\n## Gotcha\nsearch_path is per connection.' });
    const t = await getTopic(homelab, { slug: 'tool/psycopg3', include: ['history', 'tags'] });
    expect(t.body).toBe('## Use\nPools and pipelines.\n\n## Gotcha\nsearch_path is per connection.');
    expect(t.tags).toEqual(['postgres', 'python']);
    // v1 as created, v2 and v3 the two updates that changed something; numbered per card, newest first.
    const h = t.history!;
    expect(h.total).toBe(3);
    expect(h.versions.map((v) => [v.version, v.current, v.state.body])).toEqual([
      [3, true, t.body],
      [2, false, '## Use\nPools and pipelines.'],
      [1, false, '## Use\nConnection pools.'],
    ]);
    expect(h.versions[1]!.reason).toBe('learnt pipelines');
    expect(h.versions[0]!.by).toBe(roleOf(brain(), 'homelab'));
    expect(h.versions[2]!.origin).toBe('created');
    // What each changed, as a line diff of the body.
    expect(h.versions[1]!.text).toEqual({ removed: 1, added: 1, lines: ['- Connection pools.', '+ Pools and pipelines.'] });
    expect(h.versions[0]!.text).toMatchObject({ removed: 0, added: 3 });
    const [n] = await brain().admin.query<{ n: number }>("SELECT count(*)::int AS n FROM homelab.versions WHERE entity = 'topic'");
    expect(n!.n).toBe(2);
  });

  it('delete keeps the card, its tags and links in versions; restore brings all of it back', async () => {
    await createTopic(homelab, { slug: 'env/nas', kind: 'environment', title: 'NAS', body: 'ZFS mirror', tags: ['storage'] });
    await linkTopics(homelab, { from: 'env/nas', to: 'tool/psycopg3', relation: 'relates-to', context: 'backups use it' });
    // No tool deletes a card (they are archived); the subject's own role still may, with psql.
    const [{ id }] = (await brain().admin.query<{ id: number }>("SELECT id FROM homelab.topics WHERE slug = 'env/nas'")) as [{ id: number }];
    await brain().asRole(roleOf(brain(), 'homelab'), (s) => s.query("DELETE FROM homelab.topics WHERE slug = 'env/nas'"), { commit: true });
    expect(await brain().admin.query("SELECT 1 FROM homelab.topics WHERE slug = 'env/nas'")).toEqual([]);
    const gone = await history(homelab, { slug: 'env/nas' });
    expect(gone.deleted).toMatchObject({ by: roleOf(brain(), 'homelab') });
    expect(gone.total).toBe(1);
    const r = await restore(homelab, { slug: 'env/nas', version: 1 });
    expect(r).toMatchObject({ recreated: true, restored: 1, current: 2 });
    const back = await getTopic(homelab, { slug: 'env/nas', include: ['tags', 'links'] });
    expect(back.id).toBe(id);
    expect(back.body).toBe('ZFS mirror');
    expect(back.tags).toEqual(['storage']);
    expect(back.links!.map((l) => `${l.relation}:${l.toSlug}`)).toEqual(['relates-to:tool/psycopg3']);
    // Restoring an update: the replaced state is kept too, so the restore can be undone.
    const before = await history(homelab, { slug: 'tool/psycopg3' });
    expect(await restore(homelab, { slug: 'tool/psycopg3', version: 1 })).toMatchObject({ restored: 1, current: before.total + 1, changed: true, recreated: false });
    expect((await getTopic(homelab, { slug: 'tool/psycopg3' })).body).toBe('## Use\nConnection pools.');
    const after = await history(homelab, { slug: 'tool/psycopg3' });
    expect(after.total).toBe(before.total + 1);
    expect(after.versions[0]).toMatchObject({ version: before.total + 1, operation: 'restore', reason: 'restore v1' });
    // Restoring the same again changes nothing and adds no version; the current one is refused.
    expect(await restore(homelab, { slug: 'tool/psycopg3', version: 1 })).toMatchObject({ changed: false, current: before.total + 1 });
    expect((await brainError(restore(homelab, { slug: 'tool/psycopg3', version: before.total + 1 }))).code).toBe('invalid_input');
    expect((await brainError(restore(homelab, { slug: 'tool/psycopg3', version: 99 }))).message).toContain(`v1 to v${before.total + 1}`);
    expect((await brainError(history(homelab, { slug: 'no/such' }))).message).toContain('does not exist');
  });

  it('records episodes, and a timeline is newest first', async () => {
    await recordEpisode(homelab, { kind: 'incident', occurredAt: '2026-10-01', title: 'Pool exhausted', topics: ['tool/psycopg3'] });
    await recordEpisode(homelab, { kind: 'deploy', occurredAt: '2026-11-02T10:30:00Z', title: 'Upgraded driver', detail: 'to 3.2', topics: ['tool/psycopg3', 'env/nas'] });
    const t = await timeline(homelab, { slug: 'tool/psycopg3' });
    expect(t.map((e) => [e.occurredAt, e.title])).toEqual([
      ['2026-11-02T10:30:00.000Z', 'Upgraded driver'],
      ['2026-10-01', 'Pool exhausted'],
    ]);
    const bad = await brainError(recordEpisode(homelab, { kind: 'note', occurredAt: 'yesterday', title: 'x' }));
    expect(bad.code).toBe('invalid_input');
    const missing = await brainError(recordEpisode(homelab, { kind: 'note', occurredAt: '2026-11-01', title: 'x', topics: ['no/such'] }));
    expect(missing.code).toBe('not_found');
    expect(await brain().admin.query("SELECT 1 FROM homelab.episodes WHERE title = 'x'")).toEqual([]);
  });

  it('lists with kind, tag and date filters', async () => {
    expect((await listTopics(homelab, { kind: 'environment' })).map((t) => t.slug)).toEqual(['env/nas']);
    expect((await listTopics(homelab, { tag: 'python' })).map((t) => t.slug)).toEqual(['tool/psycopg3']);
    expect(await listTopics(homelab, { updatedSince: '2999-01-01' })).toEqual([]);
  });

  it('documents deduplicate by sha256; sources and raw data attach to a card', async () => {
    const a = await ingestDocument(homelab, { content: '# Meeting\nWe chose ZFS.', uri: 'file:///notes/m1.md' });
    const b = await ingestDocument(homelab, { content: '# Meeting\nWe chose ZFS.' });
    expect(a.created).toBe(true);
    expect(b).toMatchObject({ id: a.id, created: false });
    await addSource(homelab, { slug: 'env/nas', documentId: a.id, locator: 'para 2', quote: 'We chose ZFS.' });
    await raw(homelab, { slug: 'env/nas', source: 'smart', data: { disks: 2, z: 1, a: 0 } });
    await raw(homelab, { slug: 'env/nas', source: 'smart', data: { disks: 3 } });
    const view = await getTopic(homelab, { slug: 'env/nas', include: ['sources', 'raw'] });
    expect(view.sources).toMatchObject([{ documentId: a.id, locator: 'para 2' }]);
    expect(view.raw).toMatchObject([{ source: 'smart', data: { disks: 3 } }]);
    const noTarget = await brainError(addSource(homelab, { documentId: a.id }));
    expect(noTarget.code).toBe('invalid_input');
  });

  it('links: a project may point into personal, never into another project; backlinks span what the subject can read', async () => {
    await createTopic(personal, { slug: 'pattern/structural-enforcement', kind: 'design-pattern', title: 'Structural enforcement beats procedural' });
    await linkTopics(homelab, { from: 'env/nas', to: 'pattern/structural-enforcement', toSubject: 'personal', context: 'why grants, not filters' });
    await linkTopics(personal, { from: 'pattern/structural-enforcement', to: 'pattern/structural-enforcement', relation: 'relates-to' });
    const fromProject = await getTopic(homelab, { subject: 'personal', slug: 'pattern/structural-enforcement', include: ['backlinks'] });
    expect(fromProject.backlinks!.map((l) => `${l.fromSubject}:${l.fromSlug}`).sort()).toEqual(['homelab:env/nas', 'personal:pattern/structural-enforcement']);
    const fromPersonal = await getTopic(personal, { slug: 'pattern/structural-enforcement', include: ['backlinks'] });
    expect(fromPersonal.backlinks!.map((l) => `${l.fromSubject}:${l.fromSlug}`)).toEqual(['personal:pattern/structural-enforcement']);
    expect((await brainError(linkTopics(homelab, { from: 'env/nas', to: 'x', toSubject: 'novel' }))).code).toBe('invalid_link');
    expect((await brainError(linkTopics(personal, { from: 'pattern/structural-enforcement', to: 'env/nas', toSubject: 'homelab' }))).code).toBe('invalid_link');
    // And Postgres refuses the same links from raw SQL.
    const h = roleOf(brain(), 'homelab');
    await expect(
      brain().asRole(h, (s) => s.query("INSERT INTO homelab.links (from_topic_id, to_subject, to_slug) SELECT id, 'novel', 'x' FROM homelab.topics LIMIT 1")),
    ).rejects.toMatchObject({ code: '23514' });
    await expect(
      brain().asRole(h, (s) => s.query("INSERT INTO personal.links (from_topic_id, to_subject, to_slug) SELECT id, 'homelab', 'env/nas' FROM personal.topics LIMIT 1")),
    ).rejects.toMatchObject({ code: '23514' });
  });

  it('a project reaches only itself and personal; writing into personal needs a reason', async () => {
    const other = await brainError(listTopics(homelab, { subject: 'novel' }));
    expect(other.code).toBe('forbidden');
    expect(other.message).not.toContain('secret');
    const noReason = await brainError(createTopic(homelab, { subject: 'personal', slug: 'tool/jq', kind: 'tool', title: 'jq' }));
    expect(noReason.code).toBe('reason_required');
    const t = await createTopic(homelab, { subject: 'personal', slug: 'tool/jq', kind: 'tool', title: 'jq', reason: 'generic CLI tool' });
    expect(t.subject).toBe('personal');
    // A project may amend a personal card, never archive it (the database refuses: migrations/global/0008).
    const archived = await brainError(archiveTopic(homelab, { subject: 'personal', slug: 'tool/jq' }));
    expect(archived.code).toBe('forbidden');
    expect(archived.message).toContain('only the personal brain');
    const [still] = await brain().admin.query<{ n: number }>("SELECT count(*)::int AS n FROM personal.topics WHERE slug = 'tool/jq' AND archived_at IS NULL");
    expect(still!.n).toBe(1);
  });

  it('tag and untag', async () => {
    expect((await tagTopic(homelab, { slug: 'env/nas', tags: ['zfs', 'storage'] })).tags).toEqual(['storage', 'zfs']);
    expect((await tagTopic(homelab, { slug: 'env/nas', tags: ['storage'], remove: true })).tags).toEqual(['zfs']);
  });

  it('bad input names the field and the fix', async () => {
    const e = await brainError(createTopic(homelab, { slug: '/bad slug', kind: 'tool', title: 'x' }));
    expect(e.code).toBe('invalid_input');
    expect(e.message).toContain('slug');
    expect(e.hint).toContain('slug');
  });
});
