// The view cannot write. Its database handle (the audit role; on PGlite also READ ONLY
// transactions) refuses every kind of write statement, and still refuses them, by grants alone,
// once read-only is turned off; and no route of its HTTP app accepts anything but GET.
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeOnBothDatabases, outcome } from '../support/both-databases.js';
import { seedBrain } from './seed.js';
import { viewFor, type ViewUnderTest } from './view-support.js';

/** Refused for want of privilege, or because the transaction is read-only. */
const REFUSED = ['42501', '25006'];

function writes(subjects: readonly string[]): string[] {
  const out: string[] = [];
  for (const s of subjects) {
    out.push(
      `INSERT INTO ${s}.topics (slug, kind, title) VALUES ('concept/x', 'concept', 'x')`,
      `UPDATE ${s}.topics SET title = 'changed'`,
      `DELETE FROM ${s}.topics`,
      `DELETE FROM ${s}.outbox`,
      `INSERT INTO ${s}.links (from_topic_id, to_subject, to_slug) SELECT id, '${s}', slug FROM ${s}.topics LIMIT 1`,
      `TRUNCATE ${s}.topic_tags`,
      `CREATE TABLE ${s}.planted (x int)`,
      `CREATE VIEW ${s}.peek AS SELECT 1 AS x`,
      `ALTER TABLE ${s}.topics ADD COLUMN planted int`,
      `CREATE INDEX planted_idx ON ${s}.topics (title)`,
      `DROP TABLE ${s}.raw_data`,
      `SELECT nextval(pg_get_serial_sequence('${s}.topics', 'id'))`,
    );
  }
  out.push(
    `UPDATE brain.kinds SET description = 'changed'`,
    `INSERT INTO brain.kinds (name, class, description) VALUES ('planted', 'topic', 'x')`,
    'CREATE TABLE public.planted (x int)',
    'CREATE TEMP TABLE planted (x int)',
    'CREATE SCHEMA planted',
    'SELECT lo_create(0)',
    "SELECT lo_from_bytea(0, '\\x41'::bytea)",
    "SELECT lo_import('/etc/hostname')",
  );
  return out;
}

describeOnBothDatabases('web view is read-only', (brain, target) => {
  let v: ViewUnderTest;
  beforeAll(async () => {
    await seedBrain(brain());
    v = await viewFor(brain(), { token: 'view-token' });
  });
  afterAll(async () => {
    await v?.close();
  });

  it('its database connection refuses every write statement', async () => {
    const statements = writes(brain().config.subjects.map((s) => s.name));
    expect(statements.length).toBeGreaterThan(40);
    const results: Record<string, string> = {};
    for (const statement of statements) results[statement] = await outcome(() => sql.raw(statement).execute(v.audit.db));
    const allowed = Object.entries(results).filter(([, state]) => !REFUSED.includes(state));
    expect(allowed).toEqual([]);
    const [n] = await brain().admin.query<{ n: number }>('SELECT count(*)::int AS n FROM homelab.topics');
    expect(n!.n).toBeGreaterThan(0);
  });

  it('with read-only turned off, the grants alone still refuse every write (42501)', async () => {
    const statements = writes(brain().config.subjects.map((s) => s.name));
    const results: Record<string, string> = {};
    if (target === 'postgres') {
      // The view's own pooled connection, its session's read-only default turned off.
      await v.audit.db.connection().execute(async (c) => {
        await sql`SET default_transaction_read_only = off`.execute(c);
        expect((await sql<{ ro: string }>`SELECT current_setting('transaction_read_only') AS ro`.execute(c)).rows[0]!.ro).toBe('off');
        for (const statement of statements) results[statement] = await outcome(() => sql.raw(statement).execute(c));
        await sql`RESET default_transaction_read_only`.execute(c);
      });
    } else {
      // PGlite: the audit role under SET LOCAL ROLE in a read-write transaction.
      for (const statement of statements) {
        results[statement] = await outcome(() =>
          brain().asRole(brain().config.auditRole, async (s) => {
            expect((await s.query<{ ro: string }>("SELECT current_setting('transaction_read_only') AS ro"))[0]!.ro).toBe('off');
            return s.query(statement);
          }),
        );
      }
    }
    const notPrivilege = Object.entries(results).filter(([, state]) => state !== '42501');
    expect(notPrivilege).toEqual([]);
  });

  it('every route answers 405 to every method but GET, before asking for the token', async () => {
    const paths = v.app.viewRoutes.map((r) => r.replace(':subject', 'homelab').replace('*', 'tool/restic'));
    expect(paths.length).toBeGreaterThanOrEqual(9);
    paths.push('/no/such/page');
    const methods = ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'] as const;
    const answers: string[] = [];
    for (const url of paths) {
      for (const method of methods) {
        const res = await v.app.inject({ method, url, headers: { host: '127.0.0.1', 'content-type': 'application/json' }, ...(method === 'HEAD' || method === 'OPTIONS' ? {} : { payload: '{}' }) });
        answers.push(`${method} ${url} ${res.statusCode} ${res.headers.allow ?? ''}`);
      }
    }
    expect(answers.filter((a) => !a.endsWith(' 405 GET'))).toEqual([]);
    // GET still needs the token, as a bearer or as Basic auth's password.
    expect((await v.app.inject({ method: 'GET', url: '/', headers: { host: '127.0.0.1' } })).statusCode).toBe(401);
    expect((await v.app.inject({ method: 'GET', url: '/', headers: { host: '127.0.0.1', authorization: 'Bearer wrong' } })).statusCode).toBe(401);
    expect((await v.app.inject({ method: 'GET', url: '/', headers: { host: '127.0.0.1', authorization: 'Bearer view-token' } })).statusCode).toBe(200);
    const basic = `Basic ${Buffer.from('me:view-token').toString('base64')}`;
    expect((await v.app.inject({ method: 'GET', url: '/upcasts', headers: { host: '127.0.0.1', authorization: basic } })).statusCode).toBe(200);
  });
});
