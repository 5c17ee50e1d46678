// The audit SQL views of migrations/subject/0008_audit_views.sql, queried as a psql user would
// (the audit role, docs/view.md has the queries): each agrees with the tables under it, none
// can be written through, and they show a role nothing its grants would not.
import { beforeAll, expect, it } from 'vitest';
import { describeOnBothDatabases, outcome } from '../support/both-databases.js';
import { contextFor, roleOf } from '../support/knowledge.js';
import { createTopic } from '../../services/knowledge/index.js';
import { seedBrain, SEEDED } from './seed.js';

describeOnBothDatabases('audit SQL views', (brain) => {
  const audit = () => brain().config.auditRole;
  beforeAll(async () => {
    await seedBrain(brain());
    // Same words as tool/restic's title, case and punctuation aside: a duplicate candidate.
    await createTopic(await contextFor(brain(), 'homelab'), { slug: 'tool/restic-again', kind: 'tool', title: 'Restic!', body: 'again' });
  });

  it('personal.audit_upcasts lists every write into personal by a project, the reason-less first', async () => {
    const rows = await brain().asRole(audit(), (s) => s.query<{ slug: string; reason: string | null; flagged: boolean; actor: string }>('SELECT slug, reason, flagged, actor FROM personal.audit_upcasts ORDER BY flagged DESC, at DESC, id DESC'));
    const [n] = await brain().admin.query<{ n: number }>('SELECT count(*)::int AS n FROM personal.outbox WHERE is_upcast');
    expect(rows.length).toBe(n!.n);
    expect(rows.length).toBeGreaterThan(1);
    expect(rows[0]).toMatchObject({ slug: SEEDED.reasonless, reason: null, flagged: true, actor: roleOf(brain(), 'homelab') });
    expect(rows.filter((r) => r.reason === SEEDED.upcastReason).length).toBeGreaterThan(0);
    expect(rows.every((r) => r.actor === roleOf(brain(), 'homelab'))).toBe(true);
  });

  it('audit_flagged_writes holds the flagged outbox rows; audit_activity counts every write', async () => {
    const flagged = await brain().asRole(audit(), (s) => s.query<{ slug: string }>('SELECT slug FROM personal.audit_flagged_writes'));
    expect(flagged.map((r) => r.slug)).toEqual([SEEDED.reasonless]);
    for (const subject of brain().config.subjects.map((s) => s.name)) {
      const [viewed] = await brain().asRole(audit(), (s) => s.query<{ n: number | null }>(`SELECT sum(writes)::int AS n FROM ${subject}.audit_activity`));
      const [counted] = await brain().admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${subject}.outbox`);
      expect(viewed!.n ?? 0, subject).toBe(counted!.n);
    }
  });

  it('audit_duplicate_candidates pairs live cards of one kind with the same title words', async () => {
    const pairs = await brain().asRole(audit(), (s) => s.query<{ slug_a: string; slug_b: string }>('SELECT slug_a, slug_b FROM homelab.audit_duplicate_candidates ORDER BY 1, 2'));
    expect(pairs).toEqual([{ slug_a: SEEDED.restic, slug_b: 'tool/restic-again' }]);
  });

  it('no view can be written through, by the audit role or by the subject that owns the schema', async () => {
    const views = ['audit_upcasts', 'audit_flagged_writes', 'audit_activity', 'audit_duplicate_candidates'];
    const attempts: string[] = [];
    for (const view of views) {
      for (const role of [audit(), roleOf(brain(), 'personal'), roleOf(brain(), 'homelab')]) {
        attempts.push(`${role} ${view} ${await outcome(() => brain().asRole(role, (s) => s.query(`DELETE FROM personal.${view}`)))}`);
      }
    }
    expect(attempts.length).toBe(12);
    expect(attempts.filter((a) => a.endsWith(' ok'))).toEqual([]);
  });

  it('a view shows a role nothing its grants would not: novel cannot read homelab through one', async () => {
    expect(await outcome(() => brain().asRole(roleOf(brain(), 'novel'), (s) => s.query('SELECT * FROM homelab.audit_activity')))).toBe('42501');
    const options = await brain().admin.query<{ name: string; invoker: boolean }>(
      `SELECT c.relname AS name, coalesce(c.reloptions @> ARRAY['security_invoker=true'], false) AS invoker
         FROM pg_class c WHERE c.relkind = 'v' AND c.relnamespace = 'homelab'::regnamespace ORDER BY 1`,
    );
    expect(options.length).toBe(4);
    expect(options.every((o) => o.invoker)).toBe(true);
  });
});
