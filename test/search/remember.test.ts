// Search before add, on both databases: each outcome (update, linked new card, island), the
// forced-new path, the decision stored in the outbox, and an upcast whose stored decision
// names only personal cards.
import { beforeAll, expect, it } from 'vitest';
import { BrainError, createTopic, getTopic, type BrainContext } from '../../services/knowledge/index.js';
import { remember } from '../../services/search/index.js';
import { judgementModelFor } from '../../services/search/calibration.js';
import { describeOnBothDatabases } from '../support/both-databases.js';
import { contextFor } from '../support/knowledge.js';

interface OutboxRow {
  table_name: string;
  operation: string;
  slug: string | null;
  app_operation: string | null;
  reason: string | null;
  detail: { decision: string; candidates: { subject: string; slug: string; score: number; verdict: string }[] } | null;
}

describeOnBothDatabases('search before add', (brain) => {
  let homelab: BrainContext;
  const outboxFor = async (schema: string, slug: string) =>
    brain().admin.query<OutboxRow>(
      `SELECT table_name, operation, slug, app_operation, reason, detail FROM ${schema}.outbox WHERE table_name = 'topics' AND slug = $1 ORDER BY id`,
      [slug],
    );

  beforeAll(async () => {
    homelab = await contextFor(brain(), 'homelab');
    await createTopic(homelab, {
      slug: 'tool/psycopg3',
      kind: 'tool',
      title: 'psycopg3',
      summary: 'The Postgres driver for Python we use.',
      body: 'Use connection pools; set search_path per connection.',
    });
    await createTopic(homelab, {
      slug: 'svc/postgres',
      kind: 'environment',
      title: 'Postgres server',
      body: 'Postgres 16 runs on the storage host with pgvector installed.',
    });
  });

  it('updates the card it confidently matches (append, then replace)', async () => {
    const r = await remember(homelab, { kind: 'tool', title: 'Psycopg3', body: 'Server-side cursors need a named cursor.', mode: 'append' });
    expect(r.action).toBe('updated');
    expect(r.card.slug).toBe('tool/psycopg3');
    expect(r.changed).toBe(true);
    expect(r.candidates[0]).toMatchObject({ subject: 'homelab', slug: 'tool/psycopg3', verdict: 'same', score: 1 });
    const card = await getTopic(homelab, { slug: 'tool/psycopg3' });
    expect(card.body).toBe('Use connection pools; set search_path per connection.\n\nServer-side cursors need a named cursor.');
    const rows = await outboxFor('homelab', 'tool/psycopg3');
    const last = rows.at(-1)!;
    expect(last).toMatchObject({ operation: 'UPDATE', app_operation: 'remember' });
    expect(last.detail!.decision).toBe('updated');
    expect(last.detail!.candidates[0]).toMatchObject({ subject: 'homelab', slug: 'tool/psycopg3', verdict: 'same' });

    const replaced = await remember(homelab, { slug: 'tool/psycopg3', kind: 'tool', title: 'psycopg 3', summary: 'Python Postgres driver.', body: 'Rewritten.', mode: 'replace' });
    expect(replaced).toMatchObject({ action: 'updated', changed: true });
    expect(await getTopic(homelab, { slug: 'tool/psycopg3' })).toMatchObject({ title: 'psycopg 3', summary: 'Python Postgres driver.', body: 'Rewritten.' });
  });

  it('creates a new card linked to loosely related ones', async () => {
    const r = await remember(homelab, {
      kind: 'decision',
      title: 'Keep pgvector on the Postgres server',
      body: 'Vector search needs pgvector; the storage host keeps it installed and upgraded with Postgres.',
    });
    expect(r.action, JSON.stringify(r.candidates)).toBe('created-linked');
    expect(r.card.slug).toBe('decision/keep-pgvector-on-the-postgres-server');
    expect(r.linkedTo).toContainEqual({ subject: 'homelab', slug: 'svc/postgres' });
    const related = r.candidates.find((c) => c.slug === 'svc/postgres')!;
    expect(related.verdict).toBe('related');
    expect(related.linkable).toBe(true);
    // Worth a link, not the same thing.
    expect(related.link).toBeGreaterThanOrEqual(judgementModelFor(undefined).linkAt);
    expect(related.score).toBeLessThan(judgementModelFor(undefined).updateAt);
    const card = await getTopic(homelab, { slug: r.card.slug, include: ['links'] });
    expect(card.links).toContainEqual(expect.objectContaining({ toSubject: 'homelab', toSlug: 'svc/postgres', relation: 'mentions' }));
    const [row] = await outboxFor('homelab', r.card.slug);
    expect(row!.detail!.decision).toBe('created-linked');
    expect(row!.detail!.candidates.map((c) => c.slug)).toContain('svc/postgres');
  });

  it('creates an island card when nothing meaningful matches', async () => {
    const r = await remember(homelab, { kind: 'concept', title: 'Sourdough hydration', body: 'Seventy percent water to flour makes an open crumb.' });
    expect(r.action).toBe('created-island');
    expect(r.linkedTo).toEqual([]);
    // Nothing shares a content word with it: not even a weak candidate.
    expect(r.candidates).toEqual([]);
    const [row] = await outboxFor('homelab', 'concept/sourdough-hydration');
    expect(row).toMatchObject({ operation: 'INSERT', app_operation: 'remember' });
    expect(row!.detail!.decision).toBe('created-island');
  });

  it('creates a new card despite a confident match only with forceNew and a reason', async () => {
    const refused = await remember(homelab, { kind: 'environment', title: 'Postgres server', body: 'A second server.', forceNew: true }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BrainError);
    expect((refused as BrainError).code).toBe('reason_required');
    // Without forceNew the same text updates the existing card instead.
    const r = await remember(homelab, { kind: 'environment', title: 'Postgres server', body: 'The replica on the backup host.', forceNew: true, reason: 'the replica is a separate machine' });
    expect(r.action).toBe('created-forced');
    expect(r.card.slug).toBe('environment/postgres-server');
    expect(r.linkedTo).toContainEqual({ subject: 'homelab', slug: 'svc/postgres' });
    const [row] = await outboxFor('homelab', r.card.slug);
    expect(row).toMatchObject({ reason: 'the replica is a separate machine', app_operation: 'remember' });
    expect(row!.detail!.decision).toBe('created-forced');
    expect(row!.detail!.candidates.find((c) => c.slug === 'svc/postgres')!.verdict).toBe('same');
    // A second forced card with the same title gets the next free slug.
    const again = await remember(homelab, { kind: 'environment', title: 'Postgres server', body: 'Yet another.', forceNew: true, reason: 'third machine' });
    expect(again.card.slug).toBe('environment/postgres-server-2');
  });

  it('an upcast weighs and records only personal candidates, with its reason', async () => {
    const personal = await contextFor(brain(), 'personal');
    await createTopic(personal, { slug: 'method/connection-pools', kind: 'methodology', title: 'Connection pools', body: 'Size pools to the cores of the database host.' });
    const refused = await remember(homelab, { subject: 'personal', kind: 'methodology', title: 'Connection pool sizing', body: 'Size pools to the database cores.' }).catch((e: unknown) => e);
    expect((refused as BrainError).code).toBe('reason_required');
    const r = await remember(homelab, {
      subject: 'personal',
      kind: 'methodology',
      title: 'Connection pool sizing for Postgres drivers',
      body: 'Size pools to the database cores, whatever the driver; psycopg3 pools work the same way.',
      reason: 'applies to any Postgres client',
    });
    expect(r.card.subject).toBe('personal');
    // The homelab psycopg3 card shares words, but a personal decision may not mention it.
    expect(r.candidates.map((c) => `${c.subject}:${c.slug}`)).toContain('personal:method/connection-pools');
    expect(r.candidates.filter((c) => c.subject !== 'personal')).toEqual([]);
    // Judged the same thing (both say: size pools to the database's cores), so personal's card
    // is updated; linked or flagged would do too. Either way only personal's cards are named.
    const named = [...(r.action === 'updated' ? [r.card] : []), ...r.linkedTo, ...r.possibleDuplicates].map((c) => `${c.subject}:${c.slug}`);
    expect(named, JSON.stringify(r.candidates)).toContain('personal:method/connection-pools');
    expect(named.filter((n) => !n.startsWith('personal:'))).toEqual([]);
    const rows = await brain().admin.query<{ detail: OutboxRow['detail']; is_upcast: boolean; flagged: boolean; reason: string }>(
      "SELECT detail, is_upcast, flagged, reason FROM personal.outbox WHERE app_operation = 'remember' ORDER BY id",
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row).toMatchObject({ is_upcast: true, flagged: false, reason: 'applies to any Postgres client' });
      expect(JSON.stringify(row.detail)).not.toMatch(/homelab|psycopg/);
    }
  });
});
