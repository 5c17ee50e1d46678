// The embedded brain's role dialect (db/pglite-dialect.ts) sends each statement's wire-protocol
// messages to PGlite in one call: BEGIN + SET LOCAL ROLE, the statement, COMMIT. These tests
// hold it to what PGlite's query() and one call per message gave: every statement runs as the
// subject's role, in a transaction that ends with it; a role that cannot be set means the
// statement does not run at all; a failed statement leaves nothing open; parameters and results
// convert as before; kysely's transactions commit and roll back.
import { Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Subject } from '../config/subjects.js';
import { bootstrap } from '../db/bootstrap.js';
import type { KnowledgeDatabase } from '../db/database.js';
import { EmbeddedDatabase, GIN_PENDING_LIST_KB } from '../db/embedded.js';
import { PGliteRoleDialect, PREPARE_MAX_PARAMETERS } from '../db/pglite-dialect.js';
import { pgliteSession, type SqlSession } from '../db/sql.js';
import { carriesSettings, setLocally, withStatementSettings } from '../db/statement-settings.js';
import { openEmbeddedSubjectDb, type SubjectDb } from '../db/subject-db.js';
import { DENY_LIST, KINDS, testSubjects } from './support/brains.js';

describe('[pglite] the role dialect', () => {
  const config = testSubjects();
  let embedded: EmbeddedDatabase;
  let admin: SqlSession;
  let homelab: SubjectDb;
  let novel: SubjectDb;
  let db: Kysely<KnowledgeDatabase>;
  let superuser: string;
  beforeAll(async () => {
    embedded = await EmbeddedDatabase.open();
    admin = pgliteSession(embedded.pg);
    await bootstrap(admin, { subjects: config, kinds: KINDS, denyList: DENY_LIST, secrets: null });
    homelab = openEmbeddedSubjectDb(embedded, subject('homelab'));
    novel = openEmbeddedSubjectDb(embedded, subject('novel'));
    db = homelab.db;
    superuser = (await admin.query<{ u: string }>('SELECT current_user AS u'))[0]!.u;
  });
  afterAll(async () => {
    await homelab.close();
    await novel.close();
    await embedded.close();
  });

  const subject = (name: string) => config.subjects.find((s) => s.name === name)!;
  const role = (name: string) => subject(name).role;
  /** Whether the superuser session is outside any transaction block (now() is the statement's own time only then). */
  const outsideTransaction = async () => !embedded.pg.isInTransaction() && (await admin.query<{ u: string }>('SELECT current_user AS u'))[0]!.u === superuser;

  it('runs a statement as the role, in a transaction of its own that it ends', async () => {
    // As the role: SET LOCAL ROLE takes effect only inside a transaction block (outside one it
    // only warns), so this also says the statement ran in the block BEGIN opened.
    const r = await sql<{ u: string }>`SELECT current_user AS u`.execute(db);
    expect(r.rows[0]!.u).toBe(role('homelab'));
    expect(r.rows[0]!.u).not.toBe(superuser);
    // The session is back to the superuser afterwards, outside any transaction.
    expect(await outsideTransaction()).toBe(true);
  });

  it('runs statements with and without parameters, the second time from remembered parameter types too', async () => {
    for (let i = 0; i < 2; i++) {
      const r = await sql<{ u: string; n: number }>`SELECT current_user AS u, ${41 + i}::int + 1 AS n`.execute(db);
      expect(r.rows).toEqual([{ u: role('homelab'), n: 42 + i }]);
    }
  });

  it('keeps each handle on its own role when their statements interleave', async () => {
    const who = (d: Kysely<KnowledgeDatabase>, i: number) => sql<{ u: string; i: number }>`SELECT current_user AS u, ${i}::int AS i`.execute(d);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => who(i % 2 ? novel.db : db, i)));
    results.forEach((r, i) => expect(r.rows[0]).toEqual({ u: role(i % 2 ? 'novel' : 'homelab'), i }));
  });

  it('refuses what the role may not do, and leaves no transaction open after a failure', async () => {
    await expect(sql`SELECT count(*) FROM novel.topics`.execute(db)).rejects.toMatchObject({ code: '42501' });
    await expect(sql`SELECT 1 / ${0}::int`.execute(db)).rejects.toMatchObject({ code: '22012' });
    await expect(sql`SELECT nonsense FROM`.execute(db)).rejects.toMatchObject({ code: '42601' });
    await expect(sql`SELECT * FROM homelab.no_such_table WHERE id = ${1}`.execute(db)).rejects.toMatchObject({ code: '42P01' });
    expect(await outsideTransaction()).toBe(true);
    expect((await sql<{ u: string }>`SELECT current_user AS u`.execute(db)).rows[0]!.u).toBe(role('homelab'));
  });

  it('never runs a statement as the superuser when the role cannot be set', async () => {
    const ghost: Subject = { name: 'homelab', port: 1, role: 'no_such_role_here', isPersonal: false };
    const handle = openEmbeddedSubjectDb(embedded, ghost);
    try {
      await expect(sql`SELECT current_user AS u`.execute(handle.db)).rejects.toMatchObject({ code: '22023', message: expect.stringContaining('no_such_role_here') });
      await expect(sql`INSERT INTO homelab.topics (slug, kind, title) VALUES (${'ghost/write'}, 'concept', 'Ghost')`.execute(handle.db)).rejects.toMatchObject({ code: '22023', message: expect.stringContaining('no_such_role_here') });
      expect(await admin.query(`SELECT 1 FROM homelab.topics WHERE slug = 'ghost/write'`)).toEqual([]);
      expect(await outsideTransaction()).toBe(true);
    } finally {
      await handle.close();
    }
  });

  it('converts parameters and results as PGlite does: arrays, JSON, dates, booleans, nulls, int8 as a number', async () => {
    const at = new Date('2025-03-04T05:06:07.089Z');
    const r = await sql<{ a: string[]; j: string; d: Date; b: boolean; n: null; big: number; ids: number[] }>`
      SELECT ${['x', 'y "z"', 'ä,{}']}::text[] AS a, ${JSON.stringify({ k: [1, 'two'] })}::jsonb ->> 'k' AS j, ${at}::timestamptz AS d,
             ${true}::boolean AS b, ${null}::text AS n, ${9_007_199_254_740_991}::bigint AS big, ${[3, 1, 2]}::bigint[] AS ids`.execute(db);
    expect(r.rows[0]).toEqual({ a: ['x', 'y "z"', 'ä,{}'], j: '[1, "two"]', d: at, b: true, n: null, big: 9_007_199_254_740_991, ids: [3, 1, 2] });
  });

  it('sends bytea in binary and reads it back as a Buffer, every byte value intact, twice (remembered types too)', async () => {
    const bytes = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 37) % 256));
    for (let round = 0; round < 2; round++) {
      const { rows } = await sql<{ back: Uint8Array; n: number; hex: string }>`SELECT ${bytes}::bytea AS back, length(${bytes}::bytea) AS n, encode(substr(${bytes}::bytea, 1, 4), 'hex') AS hex`.execute(db);
      expect(rows[0]!.n).toBe(4096);
      expect(rows[0]!.hex).toBe('00254a6f');
      expect(Buffer.isBuffer(rows[0]!.back)).toBe(true);
      expect(Buffer.compare(rows[0]!.back as Buffer, bytes)).toBe(0);
    }
  });

  it('reports the rows a write touched, and commits or rolls back kysely transactions', async () => {
    await db.withSchema('homelab').insertInto('topics').values({ slug: 'dialect/one', kind: 'concept', title: 'One', summary: '', body: '', timeline: '', frontmatter: '{}' }).execute();
    const updated = await db.withSchema('homelab').updateTable('topics').set({ summary: 'changed' }).where('slug', '=', 'dialect/one').executeTakeFirst();
    expect(updated.numUpdatedRows).toBe(1n);

    await db.transaction().execute(async (trx) => {
      const who = await sql<{ u: string }>`SELECT current_user AS u`.execute(trx);
      expect(who.rows[0]!.u).toBe(role('homelab'));
      await trx.withSchema('homelab').updateTable('topics').set({ summary: 'in a transaction' }).where('slug', '=', 'dialect/one').execute();
    });
    expect((await admin.query<{ summary: string }>(`SELECT summary FROM homelab.topics WHERE slug = 'dialect/one'`))[0]!.summary).toBe('in a transaction');

    await expect(
      db.transaction().execute(async (trx) => {
        await trx.withSchema('homelab').updateTable('topics').set({ summary: 'never kept' }).where('slug', '=', 'dialect/one').execute();
        await sql`SELECT 1 / ${0}::int`.execute(trx);
      }),
    ).rejects.toMatchObject({ code: '22012' });
    expect((await admin.query<{ summary: string }>(`SELECT summary FROM homelab.topics WHERE slug = 'dialect/one'`))[0]!.summary).toBe('in a transaction');

    await expect(
      db.transaction().execute(async () => {
        throw new Error('given up before any statement');
      }),
    ).rejects.toThrow('given up');
    expect(await outsideTransaction()).toBe(true);
  });

  it('keeps the isolation level and access mode kysely asks for', async () => {
    await db
      .transaction()
      .setIsolationLevel('serializable')
      .setAccessMode('read only')
      .execute(async (trx) => {
        const r = await sql<{ iso: string; ro: string; u: string }>`SELECT current_setting('transaction_isolation') AS iso, current_setting('transaction_read_only') AS ro, current_user AS u`.execute(trx);
        expect(r.rows[0]).toEqual({ iso: 'serializable', ro: 'on', u: role('homelab') });
      });
  });

  /** The session's prepared statements whose text contains `marker`. */
  const preparedWith = async (marker: string) =>
    (await admin.query<{ name: string }>('SELECT name FROM pg_prepared_statements WHERE statement LIKE $1 ORDER BY name', [`%${marker}%`])).map((r) => r.name);

  it('prepares a statement text once per role, the second time it runs, and then only binds and executes it', async () => {
    const run = (i: number) => sql<{ n: number }>`SELECT ${i}::int AS n /* prepared-once */`.execute(db);
    expect((await run(0)).rows).toEqual([{ n: 0 }]);
    expect(await preparedWith('prepared-once')).toEqual([]); // a text that runs once (an import's) is never prepared
    for (let i = 1; i < 4; i++) expect((await run(i)).rows).toEqual([{ n: i }]);
    expect(await preparedWith('prepared-once')).toHaveLength(1);
    // Another role's statement of the same text is its own.
    for (let i = 0; i < 2; i++) await sql`SELECT ${i}::int AS n /* prepared-once */`.execute(novel.db);
    expect(await preparedWith('prepared-once')).toHaveLength(2);
  });

  it('never prepares a statement with more parameters than PREPARE_MAX_PARAMETERS (a batch write), and runs it right each time', async () => {
    const sum = (n: number, from: number) => {
      const values = Array.from({ length: n }, (_, i) => sql`(${from + i}::int)`);
      return sql<{ s: number }>`SELECT sum(v)::int AS s /* many-params-${sql.raw(String(n))} */ FROM (VALUES ${sql.join(values)}) AS t(v)`.execute(db);
    };
    const total = (n: number, from: number) => n * from + (n * (n - 1)) / 2;
    for (const from of [1, 2, 3]) expect((await sum(PREPARE_MAX_PARAMETERS + 1, from)).rows).toEqual([{ s: total(PREPARE_MAX_PARAMETERS + 1, from) }]);
    expect(await preparedWith(`many-params-${PREPARE_MAX_PARAMETERS + 1}`)).toEqual([]);
    // At the limit, it is prepared as any other the second time it runs.
    for (const from of [1, 2]) expect((await sum(PREPARE_MAX_PARAMETERS, from)).rows).toEqual([{ s: total(PREPARE_MAX_PARAMETERS, from) }]);
    expect(await preparedWith(`many-params-${PREPARE_MAX_PARAMETERS}`)).toHaveLength(1);
  });

  it('prepares again a statement whose batch failed after its Parse, and keeps one of it', async () => {
    const divide = (d: number) => sql<{ q: number }>`SELECT 10 / ${d}::int AS q /* failed-batch */`.execute(db);
    expect((await divide(2)).rows).toEqual([{ q: 5 }]);
    await expect(divide(0)).rejects.toThrow(/division by zero/); // Parse went out with it; the outcome is not trusted
    expect(await outsideTransaction()).toBe(true);
    expect((await divide(5)).rows).toEqual([{ q: 2 }]);
    expect((await divide(1)).rows).toEqual([{ q: 10 }]);
    expect(await preparedWith('failed-batch')).toHaveLength(1);
  });

  it("checks the role's grants each time a prepared statement runs, not when it was prepared", async () => {
    const read = () => sql<{ n: number }>`SELECT count(*)::int AS n FROM homelab.topics /* grant-check */`.execute(db);
    for (let i = 0; i < 2; i++) expect((await read()).rows[0]!.n).toBeGreaterThanOrEqual(0);
    expect(await preparedWith('grant-check')).toHaveLength(1);
    await admin.exec(`REVOKE SELECT ON homelab.topics FROM ${role('homelab')}`);
    try {
      await expect(read()).rejects.toThrow(/permission denied/);
    } finally {
      await admin.exec(`GRANT SELECT ON homelab.topics TO ${role('homelab')}`);
    }
    expect((await read()).rows[0]!.n).toBeGreaterThanOrEqual(0);
    // The same text as another subject's role is refused: it reads a schema that role cannot.
    await expect(sql`SELECT count(*)::int AS n FROM homelab.topics /* grant-check */`.execute(novel.db)).rejects.toThrow(/permission denied/);
  });

  it('forgets the least recently used text past its limit, closing its prepared statement', async () => {
    const small = new Kysely<KnowledgeDatabase>({ dialect: new PGliteRoleDialect(embedded, role('homelab'), { maxPrepared: 2 }) });
    try {
      const run = (tag: string) => sql.raw<{ t: string }>(`SELECT '${tag}'::text AS t /* lru-${tag} */`).execute(small);
      const twice = async (tag: string) => (await run(tag), run(tag));
      await twice('a');
      await twice('b');
      await run('a'); // a is now the most recently used
      await twice('c'); // forgets b
      expect(await preparedWith('lru-b')).toEqual([]);
      expect(await preparedWith('lru-a')).toHaveLength(1);
      expect(await preparedWith('lru-c')).toHaveLength(1);
      expect((await twice('b')).rows).toEqual([{ t: 'b' }]); // forgets a
      expect(await preparedWith('lru-a')).toEqual([]);
      expect(await preparedWith('lru-')).toHaveLength(2);
      // A statement too big to be prepared makes no room for itself: b and c stay.
      const values = Array.from({ length: PREPARE_MAX_PARAMETERS + 1 }, (_, i) => sql`(${i}::int)`);
      for (let i = 0; i < 2; i++) await sql`SELECT count(*)::int AS n /* lru-big */ FROM (VALUES ${sql.join(values)}) AS t(v)`.execute(small);
      expect(await preparedWith('lru-b')).toHaveLength(1);
      expect(await preparedWith('lru-c')).toHaveLength(1);
    } finally {
      await small.destroy();
    }
  });

  it('applies the settings a statement carries to that statement only, as the role, twice (prepared too)', async () => {
    expect(carriesSettings(db)).toBe(true);
    const settings = { 'hnsw.ef_search': '123', enable_seqscan: 'off' };
    const read = sql<{ u: string; ef: string; seq: string }>`SELECT current_user AS u, current_setting('hnsw.ef_search', true) AS ef, current_setting('enable_seqscan') AS seq`;
    for (let i = 0; i < 2; i++) {
      expect((await withStatementSettings(settings, read).execute(db)).rows).toEqual([{ u: role('homelab'), ef: '123', seq: 'off' }]);
      // The next statement, and the superuser's session, are back to the defaults.
      const after = (await read.execute(db)).rows[0]!;
      expect(after.seq).toBe('on');
      expect(after.ef).not.toBe('123');
      expect(await outsideTransaction()).toBe(true);
    }
    // Inside a kysely transaction they hold from that statement to its end, as SET LOCAL does.
    const inside = await db.transaction().execute(async (trx) => {
      const first = (await read.execute(trx)).rows[0]!.seq;
      const carried = (await withStatementSettings({ enable_seqscan: 'off' }, read).execute(trx)).rows[0]!.seq;
      return [first, carried, (await read.execute(trx)).rows[0]!.seq];
    });
    expect(inside).toEqual(['on', 'off', 'off']);
    expect((await read.execute(db)).rows[0]!.seq).toBe('on');
  });

  it('sets the same settings until the end of a transaction where a statement cannot carry them', async () => {
    const read = sql<{ seq: string; bitmap: string }>`SELECT current_setting('enable_seqscan') AS seq, current_setting('enable_bitmapscan') AS bitmap`;
    const inside = await db.transaction().execute(async (trx) => {
      await setLocally(trx, { enable_seqscan: 'off', enable_bitmapscan: 'off' });
      return (await read.execute(trx)).rows[0];
    });
    expect(inside).toEqual({ seq: 'off', bitmap: 'off' });
    expect((await read.execute(db)).rows[0]).toEqual({ seq: 'on', bitmap: 'on' });
    await expect(db.transaction().execute((trx) => setLocally(trx, { role: 'postgres' }))).rejects.toThrow(/not allowed/);
  });

  it('refuses a carried setting that is not allowed, before anything runs', async () => {
    // Who runs a statement is not a setting it can carry; nor is a value that is not a plain word.
    expect(() => withStatementSettings({ role: 'postgres' }, sql`SELECT 1`)).toThrow(/not allowed/);
    expect(() => withStatementSettings({ enable_seqscan: "off'; RESET ROLE; --" }, sql`SELECT 1`)).toThrow(/plain word/);
    // A marker written by hand is checked by the dialect as well.
    await expect(sql.raw(`/*brain:set role=${superuser}*/ SELECT current_user AS u`).execute(db)).rejects.toThrow(/not allowed/);
    await expect(sql.raw(`/*brain:set search_path=public*/ SELECT 1`).execute(db)).rejects.toThrow(/not allowed/);
    await expect(sql.raw(`/*brain:set enable_seqscan*/ SELECT 1`).execute(db)).rejects.toThrow(/no value/);
    expect(await outsideTransaction()).toBe(true);
    expect((await sql<{ u: string }>`SELECT current_user AS u`.execute(db)).rows[0]!.u).toBe(role('homelab'));
  });

  it('does not remember a statement that fails to parse, and leaves nothing open after it', async () => {
    await expect(sql.raw('SELEC 1 /* parse-fails */').execute(db)).rejects.toThrow(/syntax error/);
    expect(await preparedWith('parse-fails')).toEqual([]);
    expect(await outsideTransaction()).toBe(true);
    expect((await sql<{ n: number }>`SELECT 1::int AS n`.execute(db)).rows).toEqual([{ n: 1 }]);
  });
});

describe('[pglite] the embedded database', () => {
  it(`keeps the full-text indexes' pending list small (gin_pending_list_limit ${GIN_PENDING_LIST_KB} kB)`, async () => {
    const embedded = await EmbeddedDatabase.open();
    try {
      const r = await embedded.pg.query<{ v: string }>("SELECT current_setting('gin_pending_list_limit') AS v");
      expect(r.rows[0]!.v).toBe(`${GIN_PENDING_LIST_KB}kB`);
    } finally {
      await embedded.close();
    }
  });
});
