// The dialect's reader of PGlite's replies (db/pglite-wire.ts): rows come back as PGlite's own
// reader gives them (NULLs, empty strings, text in several scripts, replies larger than the
// first buffer), an error is PGlite's DatabaseError with its SQLSTATE and fields, and PGlite's
// own calls still work after the raw exchange, which leaves its output callback behind.
import { parse as pgliteParse, protocol, type PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedDatabase } from '../../db/embedded.js';
import { exchange, readReply } from '../../db/pglite-wire.js';

const { serialize } = protocol;

/** Parse, bind, describe, execute, sync: one unnamed statement in the extended protocol. */
function statement(text: string, values: (string | null)[] = []): Uint8Array {
  const parts = [serialize.parse({ text }), serialize.bind({ values }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function rowsOf(pg: PGlite, text: string, values: (string | null)[] = []): Promise<Record<string, unknown>[]> {
  const reply = readReply(await pg.runExclusive(() => exchange(pg, statement(text, values), false)));
  expect(reply.error).toBeUndefined();
  const [result] = pgliteParse.parseResults(reply.messages as never, pg.parsers);
  return (result?.rows ?? []) as Record<string, unknown>[];
}

describe('[pglite] reading PGlite replies (db/pglite-wire.ts)', () => {
  let embedded: EmbeddedDatabase;
  let pg: PGlite;
  beforeAll(async () => {
    embedded = await EmbeddedDatabase.open();
    pg = embedded.pg;
    await pg.exec(`CREATE TABLE wire (id int PRIMARY KEY, label text, note text, n float8, tags text[], at timestamptz)`);
    await pg.exec(`INSERT INTO wire SELECT g, 'label ' || g, CASE WHEN g % 3 = 0 THEN NULL WHEN g % 3 = 1 THEN '' ELSE repeat('Grüße, 東京 — ✓ ', g) END,
                   g / 7.0, ARRAY['a' || g, NULL, 'b'], '2026-12-03T10:00:00Z'::timestamptz + g * interval '1 hour' FROM generate_series(1, 400) g`);
  });
  afterAll(async () => {
    await embedded.close();
  });

  it('gives the rows PGlite gives, typed by its parsers, over more than the first buffer', async () => {
    const text = 'SELECT id, label, note, n, tags, at FROM wire WHERE id > $1 ORDER BY id';
    const ours = await rowsOf(pg, text, ['0']);
    const theirs = (await pg.query<Record<string, unknown>>(text, [0])).rows;
    expect(ours.length).toBe(400);
    expect(ours).toEqual(theirs);
    expect(ours[0]).toMatchObject({ id: 1, note: '', tags: ['a1', null, 'b'] });
    expect(ours[2]!.note).toBeNull();
    expect(ours[1]!.note).toBe('Grüße, 東京 — ✓ '.repeat(2));
    expect(ours[0]!.at).toBeInstanceOf(Date);
  });

  it('reads the parameter types of a described statement', async () => {
    const message = new Uint8Array([...serialize.parse({ text: 'SELECT $1::int8 + 1, $2::text' }), ...serialize.describe({ type: 'S' }), ...serialize.sync()]);
    const reply = readReply(await pg.runExclusive(() => exchange(pg, message, false)));
    expect(pgliteParse.parseDescribeStatementResults(reply.messages as never)).toEqual([20, 25]);
  });

  it("returns an error as PGlite's DatabaseError, with its SQLSTATE and fields", async () => {
    const reply = readReply(await pg.runExclusive(() => exchange(pg, statement("INSERT INTO wire (id, label) VALUES (1, 'again')"), false)));
    expect(reply.error).toBeInstanceOf(protocol.messages.DatabaseError);
    expect(reply.error).toMatchObject({ code: '23505', severity: 'ERROR', constraint: 'wire_pkey', table: 'wire', schema: 'public' });
    expect(reply.error!.message).toMatch(/duplicate key/);
    expect((reply.error as { detail?: string }).detail).toMatch(/\(id\)=\(1\)/);
    // PGlite's own query() reports the same.
    await expect(pg.query("INSERT INTO wire (id, label) VALUES (1, 'again')")).rejects.toMatchObject({ code: '23505', constraint: 'wire_pkey' });
  });

  it("leaves PGlite's own calls working after an exchange", async () => {
    await rowsOf(pg, 'SELECT 1 AS one');
    const direct = await pg.execProtocol(statement('SELECT 5 AS five'));
    expect(direct.messages.some((m) => m.name === 'dataRow')).toBe(true);
    await rowsOf(pg, 'SELECT 1 AS one');
    expect((await pg.query<{ two: number }>('SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
    await pg.exec('SELECT 3');
    const { messages } = await pg.execProtocol(statement('SELECT 4 AS four'));
    expect(messages.some((m) => m.name === 'dataRow')).toBe(true);
  });

  it('refuses a reply cut inside a message, naming the problem', () => {
    // A DataRow header that promises 100 bytes, with 3 of them present.
    expect(() => readReply(new Uint8Array([0x44, 0, 0, 0, 104, 0, 1, 0]))).toThrow(/runs past the reply's end/);
  });
});
