// The database link (db/link-server.ts, db/link-dialect.ts): a second process's statements run
// in the process holding the embedded brain, as the subject's role, with the same rows,
// types, errors and transactions as its own PGlite would give, and never more rights.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Subject } from '../../config/subjects.js';
import { bootstrap } from '../../db/bootstrap.js';
import { EmbeddedDatabase } from '../../db/embedded.js';
import { LinkClient, openLinkedSubjectDb } from '../../db/link-dialect.js';
import { startLinkServer, type LinkServer } from '../../db/link-server.js';
import { decodeLine, encodeLine } from '../../db/link-wire.js';
import { pgliteSession } from '../../db/sql.js';
import type { SubjectDb } from '../../db/subject-db.js';
import { asBrainError, BrainError } from '../../services/knowledge/index.js';
import { DENY_LIST, KINDS, testSubjects } from '../support/brains.js';

describe('database link values', () => {
  it('keep their types: dates, bytes, bigints, NaN and infinities, and data keys that start with $', () => {
    const value = {
      at: new Date('2026-11-29T10:00:00.123Z'),
      bad: new Date(Number.NaN),
      bytes: new Uint8Array([0, 1, 254, 255]),
      big: 2n ** 70n,
      nan: Number.NaN,
      inf: Number.NEGATIVE_INFINITY,
      json: { $date: 5, $$x: 'y', nested: [{ $bytes: 'not bytes' }, null, 'text\nwith newline'] },
      list: [new Date(0), 1.5, 'x'],
    };
    const line = encodeLine(value);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    const back = decodeLine<typeof value>(line);
    expect(back.at).toEqual(value.at);
    expect(Number.isNaN(back.bad.getTime())).toBe(true);
    expect(back.bytes).toEqual(value.bytes);
    expect(back.big).toBe(value.big);
    expect(back.nan).toBeNaN();
    expect(back.inf).toBe(Number.NEGATIVE_INFINITY);
    expect(back.json).toEqual(value.json);
    expect(back.list).toEqual(value.list);
  });
});

describe('[pglite] database link', () => {
  let embedded: EmbeddedDatabase;
  let server: LinkServer;
  let subjects: readonly Subject[];
  const clients: LinkClient[] = [];
  const handles: SubjectDb[] = [];
  const link = async (name: string) => {
    const client = await LinkClient.connect(server, 'the test brain');
    clients.push(client);
    const handle = openLinkedSubjectDb(client, subjects.find((s) => s.name === name)!);
    handles.push(handle);
    return handle.db;
  };

  beforeAll(async () => {
    const config = testSubjects();
    subjects = config.subjects;
    embedded = await EmbeddedDatabase.open();
    await bootstrap(pgliteSession(embedded.pg), { subjects: config, kinds: KINDS, denyList: DENY_LIST, secrets: null });
    server = await startLinkServer(embedded, subjects, undefined, { idleMs: 500 });
  });
  afterAll(async () => {
    for (const h of handles) await h.close().catch(() => undefined);
    await server?.close();
    await embedded?.close();
  });

  it('runs statements as the subject role, with rows of the right types', async () => {
    const db = await link('homelab');
    const who = await sql<{ role: string }>`SELECT current_user AS role`.execute(db);
    expect(who.rows[0]!.role).toBe(subjects.find((s) => s.name === 'homelab')!.role);
    const inserted = await sql<{ id: number; created_at: Date }>`INSERT INTO homelab.topics (slug, kind, title) VALUES ('tool/psql', 'tool', 'psql') RETURNING id, created_at`.execute(db);
    expect(typeof inserted.rows[0]!.id).toBe('number');
    expect(inserted.rows[0]!.created_at).toBeInstanceOf(Date);
    expect(inserted.numAffectedRows).toBe(1n);
    const read = await db.withSchema('homelab').selectFrom('topics').select(['slug', 'frontmatter']).where('slug', '=', 'tool/psql').execute();
    expect(read).toEqual([{ slug: 'tool/psql', frontmatter: expect.any(Object) }]);
  });

  it('keeps the grants: another project is out of reach, with the database error code the brain maps', async () => {
    const db = await link('homelab');
    const error = await sql`SELECT count(*) FROM novel.topics`.execute(db).catch((e: unknown) => e);
    expect((error as { code?: string }).code).toBe('42501');
    expect(asBrainError(error, 'read')).toMatchObject({ code: 'forbidden' });
    const dup = await sql`INSERT INTO homelab.topics (slug, kind, title) VALUES ('tool/psql', 'tool', 'again')`.execute(db).catch((e: unknown) => e);
    expect(asBrainError(dup, 'write')).toBeInstanceOf(BrainError);
    expect(asBrainError(dup, 'write')).toMatchObject({ code: 'already_exists' });
  });

  it('commits and rolls back transactions', async () => {
    const db = await link('homelab');
    const count = async () => Number((await sql<{ n: number }>`SELECT count(*)::int AS n FROM homelab.topics`.execute(db)).rows[0]!.n);
    const before = await count();
    await db.transaction().execute(async (trx) => {
      await sql`INSERT INTO homelab.topics (slug, kind, title) VALUES ('tool/a', 'tool', 'a')`.execute(trx);
      await sql`INSERT INTO homelab.topics (slug, kind, title) VALUES ('tool/b', 'tool', 'b')`.execute(trx);
    });
    expect(await count()).toBe(before + 2);
    await expect(
      db.transaction().execute(async (trx) => {
        await sql`INSERT INTO homelab.topics (slug, kind, title) VALUES ('tool/c', 'tool', 'c')`.execute(trx);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await count()).toBe(before + 2);
  });

  it('rolls back a transaction left idle, and one whose client went away, so the brain is not held', async () => {
    const db = await link('homelab');
    const idle = await db.startTransaction().execute();
    await sql`INSERT INTO homelab.topics (slug, kind, title) VALUES ('tool/idle', 'tool', 'idle')`.execute(idle);
    await new Promise((resolve) => setTimeout(resolve, 900));
    await expect(idle.commit().execute()).rejects.toThrow(/no open transaction/);
    const other = await link('personal');
    expect((await sql<{ n: number }>`SELECT count(*)::int AS n FROM homelab.topics WHERE slug = 'tool/idle'`.execute(await link('homelab'))).rows[0]!.n).toBe(0);

    const leaving = await LinkClient.connect(server, 'the test brain');
    const handle = openLinkedSubjectDb(leaving, subjects.find((s) => s.name === 'homelab')!);
    await handle.db.startTransaction().execute();
    await handle.close(); // the socket ends with the transaction open
    const started = performance.now();
    await sql`SELECT 1`.execute(other);
    expect(performance.now() - started).toBeLessThan(400);
  });

  it('refuses a client without the token', async () => {
    await expect(LinkClient.connect({ ...server, host: server.host, port: server.port, token: 'not-the-token-not-the-token-12' }, 'the test brain')).rejects.toThrow(/refused the database link: wrong token/);
  });
});
