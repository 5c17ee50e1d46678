// The audit outbox records every write kind with actor and reason, is append-only and
// written only by triggers; upcasts are flagged when they come without a reason; the
// upcast operation is atomic and refused whole by the deny-list.
import { beforeAll, expect, it } from 'vitest';
import {
  addSource,
  archiveTopic,
  BrainError,
  createTopic,
  ingestDocument,
  linkTopics,
  raw,
  recordEpisode,
  tagTopic,
  updateTopic,
  upcast,
  type BrainContext,
} from '../../services/knowledge/index.js';
import { describeOnBothDatabases, outcome } from '../support/both-databases.js';
import { contextFor, roleOf } from '../support/knowledge.js';

interface OutboxRow {
  actor: string;
  operation: string;
  table_name: string;
  slug: string | null;
  reason: string | null;
  app_operation: string | null;
  is_upcast: boolean;
  flagged: boolean;
}

describeOnBothDatabases('outbox and upcast', (brain) => {
  let homelab: BrainContext;
  let homelabRole: string;
  beforeAll(async () => {
    homelab = await contextFor(brain(), 'homelab');
    homelabRole = roleOf(brain(), 'homelab');
  });
  const outbox = (schema: string) => brain().admin.query<OutboxRow>(`SELECT actor, operation, table_name, slug, reason, app_operation, is_upcast, flagged FROM ${schema}.outbox ORDER BY id`);

  it('records every write kind on every knowledge table, with the writer role and the reason', async () => {
    await createTopic(homelab, { slug: 'svc/dns', kind: 'environment', title: 'DNS', tags: ['net'], reason: 'new service' });
    await updateTopic(homelab, { slug: 'svc/dns', summary: 'dnsmasq on the router' });
    await tagTopic(homelab, { slug: 'svc/dns', tags: ['net'], remove: true });
    await linkTopics(homelab, { from: 'svc/dns', to: 'svc/dns', relation: 'relates-to' });
    const ep = await recordEpisode(homelab, { kind: 'work-session', occurredAt: '2026-11-29', title: 'Set up DNS', topics: ['svc/dns'] });
    const doc = await ingestDocument(homelab, { content: 'dns notes' });
    await addSource(homelab, { episodeId: ep.id, documentId: doc.id });
    await raw(homelab, { slug: 'svc/dns', source: 'probe', data: { ok: true } });
    await archiveTopic(homelab, { slug: 'svc/dns', reason: 'retired' });
    await archiveTopic(homelab, { slug: 'svc/dns', unarchive: true });
    // No tool deletes a card; the subject's own role still may, and the triggers record it.
    await brain().asRole(homelabRole, (s) => s.exec("SELECT set_config('brain.reason', 'gone', true), set_config('brain.operation', 'delete', true); DELETE FROM homelab.topics WHERE slug = 'svc/dns'"), { commit: true });
    const rows = await outbox('homelab');
    expect(rows.filter((r) => r.actor !== homelabRole)).toEqual([]);
    const seen = new Set(rows.map((r) => `${r.operation} ${r.table_name}`));
    for (const want of [
      'INSERT topics',
      'UPDATE topics',
      'DELETE topics',
      'INSERT topic_tags',
      'DELETE topic_tags',
      'INSERT links',
      'INSERT episodes',
      'INSERT episode_topics',
      'INSERT documents',
      'INSERT sources',
      'INSERT raw_data',
    ]) {
      expect(seen, want).toContain(want);
    }
    expect(rows.find((r) => r.operation === 'INSERT' && r.table_name === 'topics')).toMatchObject({ slug: 'svc/dns', reason: 'new service', app_operation: 'create', is_upcast: false });
    expect(rows.find((r) => r.operation === 'DELETE' && r.table_name === 'topics')).toMatchObject({ reason: 'gone', app_operation: 'delete' });
    expect(rows.filter((r) => r.table_name === 'topics' && ['archive', 'unarchive'].includes(r.app_operation ?? '')).map((r) => [r.operation, r.app_operation, r.reason])).toEqual([
      ['UPDATE', 'archive', 'retired'],
      ['UPDATE', 'unarchive', null],
    ]);
  });

  it('a statement of many rows gets one outbox row per row, in insert order, with each row id, and an upsert records both kinds', async () => {
    const before = (await brain().admin.query<{ n: number }>('SELECT count(*)::int AS n FROM homelab.outbox'))[0]!.n;
    await brain().asRole(
      homelabRole,
      (s) =>
        s.exec(`SELECT set_config('brain.reason', 'bulk', true);
          INSERT INTO homelab.topics (slug, kind, title) VALUES ('bulk/a', 'concept', 'A'), ('bulk/b', 'concept', 'B'), ('bulk/c', 'concept', 'C');
          INSERT INTO homelab.topic_tags (topic_id, tag) SELECT id, 'bulk' FROM homelab.topics WHERE slug LIKE 'bulk/%' ORDER BY slug;
          INSERT INTO homelab.links (from_topic_id, to_subject, to_slug, relation, context)
            SELECT id, 'homelab', 'bulk/a', 'mentions', 'first' FROM homelab.topics WHERE slug IN ('bulk/b', 'bulk/c') ORDER BY slug;`),
      { commit: true },
    );
    // One statement that inserts a row and updates another (and leaves a third as it was).
    await brain().asRole(
      homelabRole,
      (s) =>
        s.exec(`INSERT INTO homelab.links (from_topic_id, to_subject, to_slug, relation, context)
          SELECT id, 'homelab', 'bulk/a', 'mentions', CASE slug WHEN 'bulk/b' THEN 'changed' ELSE 'first' END FROM homelab.topics WHERE slug IN ('bulk/a', 'bulk/b', 'bulk/c') ORDER BY slug
          ON CONFLICT (from_topic_id, to_subject, to_slug, relation) DO UPDATE SET context = excluded.context WHERE links.context IS DISTINCT FROM excluded.context`),
      { commit: true },
    );
    const ids = new Map(
      (await brain().admin.query<{ id: number; slug: string }>("SELECT id, slug FROM homelab.topics WHERE slug LIKE 'bulk/%'")).map((r) => [r.slug, String(r.id)]),
    );
    expect(ids.size).toBe(3);
    const rows = await brain().admin.query<OutboxRow & { row_id: string }>(
      `SELECT actor, operation, table_name, row_id, slug, reason FROM homelab.outbox WHERE id > ${before} ORDER BY id`,
    );
    const linkId = async (from: string) => String((await brain().admin.query<{ id: number }>(`SELECT id FROM homelab.links WHERE from_topic_id = ${ids.get(from)} AND to_slug = 'bulk/a'`))[0]!.id);
    expect(rows.map((r) => [r.operation, r.table_name, r.row_id, r.slug])).toEqual([
      ['INSERT', 'topics', ids.get('bulk/a'), 'bulk/a'],
      ['INSERT', 'topics', ids.get('bulk/b'), 'bulk/b'],
      ['INSERT', 'topics', ids.get('bulk/c'), 'bulk/c'],
      ['INSERT', 'topic_tags', `${ids.get('bulk/a')}:bulk`, null],
      ['INSERT', 'topic_tags', `${ids.get('bulk/b')}:bulk`, null],
      ['INSERT', 'topic_tags', `${ids.get('bulk/c')}:bulk`, null],
      ['INSERT', 'links', await linkId('bulk/b'), null],
      ['INSERT', 'links', await linkId('bulk/c'), null],
      // The upsert: bulk/b's link changed (an UPDATE), bulk/a's is new (an INSERT), bulk/c's is untouched (nothing).
      ['UPDATE', 'links', await linkId('bulk/b'), null],
      ['INSERT', 'links', await linkId('bulk/a'), null],
    ]);
    expect(new Set(rows.map((r) => r.actor))).toEqual(new Set([homelabRole]));
    expect(rows.slice(0, 8).map((r) => r.reason)).toEqual(Array(8).fill('bulk'));
  });

  it('is append-only and written by triggers only, for every subject role', async () => {
    for (const subject of ['homelab', 'personal']) {
      const role = roleOf(brain(), subject);
      for (const schema of subject === 'homelab' ? ['homelab', 'personal'] : ['personal']) {
        expect(await outcome(() => brain().asRole(role, (s) => s.exec(`UPDATE ${schema}.outbox SET reason = 'forged'`)))).toBe('42501');
        expect(await outcome(() => brain().asRole(role, (s) => s.exec(`DELETE FROM ${schema}.outbox`)))).toBe('42501');
        expect(await outcome(() => brain().asRole(role, (s) => s.exec(`UPDATE ${schema}.versions SET reason = 'forged'`)))).toBe('42501');
        expect(
          await outcome(() => brain().asRole(role, (s) => s.exec(`INSERT INTO ${schema}.outbox (operation, table_name, row_id, actor) VALUES ('INSERT', 'topics', '1', 'someone-else')`))),
        ).toBe('42501');
        expect(
          await outcome(() => brain().asRole(role, (s) => s.exec(`INSERT INTO ${schema}.versions (entity, entity_id, operation, row_data) VALUES ('topic', 1, 'UPDATE', '{}')`))),
        ).toBe('42501');
      }
    }
  });

  it('a write into personal by a project role is an upcast; without a reason it is flagged', async () => {
    await brain().asRole(homelabRole, (s) => s.exec("INSERT INTO personal.topics (slug, kind, title) VALUES ('sneaky/no-reason', 'concept', 'No reason given')"), { commit: true });
    const rows = (await outbox('personal')).filter((r) => r.slug === 'sneaky/no-reason');
    expect(rows).toEqual([expect.objectContaining({ actor: homelabRole, is_upcast: true, flagged: true, reason: null })]);
    // personal's own writes are not upcasts.
    const personalCtx = await contextFor(brain(), 'personal');
    await createTopic(personalCtx, { slug: 'own/card', kind: 'concept', title: 'Own card' });
    expect((await outbox('personal')).find((r) => r.slug === 'own/card')).toMatchObject({ is_upcast: false, flagged: false });
  });

  it('upcast creates the personal card, links the project card, and records the reason', async () => {
    await createTopic(homelab, { slug: 'pattern/backup-3-2-1', kind: 'methodology', title: '3-2-1 backups', body: 'Three copies, two media, one offsite.' });
    const r = await upcast(homelab, { slug: 'pattern/backup-3-2-1', reason: 'generic, no homelab specifics' });
    expect(r.action).toBe('created');
    // The personal slug comes from the kind and the title, never from the project card's slug.
    expect(r.personal.slug).toBe('methodology/3-2-1-backups');
    const [card] = await brain().admin.query<{ body: string }>("SELECT body FROM personal.topics WHERE slug = 'methodology/3-2-1-backups'");
    expect(card!.body).toBe('Three copies, two media, one offsite.');
    const [link] = await brain().admin.query<{ relation: string; to_subject: string }>(
      "SELECT l.relation, l.to_subject FROM homelab.links l JOIN homelab.topics t ON t.id = l.from_topic_id WHERE t.slug = 'pattern/backup-3-2-1'",
    );
    expect(link).toEqual({ relation: 'upcast-of', to_subject: 'personal' });
    expect((await outbox('personal')).find((o) => o.slug === 'methodology/3-2-1-backups')).toMatchObject({
      actor: homelabRole,
      is_upcast: true,
      flagged: false,
      reason: 'generic, no homelab specifics',
      app_operation: 'upcast',
    });
    // A second upcast appends to the existing personal card instead of duplicating it.
    await updateTopic(homelab, { slug: 'pattern/backup-3-2-1', body: 'Test restores quarterly.', bodyMode: 'append' });
    const again = await upcast(homelab, { slug: 'pattern/backup-3-2-1', reason: 'restore testing is generic too', body: 'Test restores quarterly.' });
    expect(again.action).toBe('updated');
    expect(again.personal.body).toBe('Three copies, two media, one offsite.\n\nTest restores quarterly.');
  });

  it('a deny-listed upcast is refused whole: nothing in personal, no link in the project', async () => {
    await createTopic(homelab, { slug: 'env/nas01', kind: 'environment', title: 'nas01', body: 'ZFS on nas01 at 192.168.1.20' });
    let error: unknown;
    try {
      await upcast(homelab, { slug: 'env/nas01', reason: 'storage setup' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(BrainError);
    expect((error as BrainError).code).toBe('denied_by_deny_list');
    expect((error as BrainError).hint).toContain('Keep the card in this project');
    expect((error as BrainError).message).not.toMatch(/nas01|192\.168|homelab/);
    expect(await brain().admin.query("SELECT 1 FROM personal.topics WHERE slug = 'env/nas01'")).toEqual([]);
    expect(
      await brain().admin.query("SELECT 1 FROM homelab.links l JOIN homelab.topics t ON t.id = l.from_topic_id WHERE t.slug = 'env/nas01'"),
    ).toEqual([]);
  });
});
