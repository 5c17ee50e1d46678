// The database link: how a second process uses the embedded brain while this one holds it.
// PGlite is one process's files (db/data-lock.ts), so a `brain search` or a second stdio
// server next to a running `brain up` used to be refused. The holder now listens on a
// loopback port (published with a random token in BRAIN_HOME/running.json, mode 0600) and
// runs each statement it is sent as the named subject's role, through the same subject
// handles its own servers use (db/pglite-dialect.ts: SET LOCAL ROLE in every transaction).
// So a linked process has exactly the rights of that subject, as with its own PGlite: the
// grants in Postgres decide, never this code; it never gets the superuser.
//
// Protocol: one JSON line per message (db/link-wire.ts). The client's first line is
// {"token"}; then requests {"id", "op", ...} and answers {"id", "rows"|"error"}.
//   query    {subject, conn, sql, params}  in conn's transaction if one is open
//   begin    {subject, conn, isolation?, access?}
//   commit / rollback {conn}
// A transaction holds the brain's one connection, so one left idle for TRANSACTION_IDLE_MS
// is rolled back, and every transaction of a client that goes away is rolled back at once.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { CompiledQuery, type ControlledTransaction, type IsolationLevel, type Kysely } from 'kysely';
import type { Subject } from '../config/subjects.js';
import type { KnowledgeDatabase } from './database.js';
import type { EmbeddedDatabase } from './embedded.js';
import { decodeLine, encodeLine, errorToWire, lineReader } from './link-wire.js';
import { openEmbeddedSubjectDb, type SubjectDb } from './subject-db.js';

export const TRANSACTION_IDLE_MS = 15_000;
/** A statement with its parameters (a stored document, an imported page) fits; anything larger is refused. */
const MAX_MESSAGE_BYTES = 256 * 2 ** 20;

export interface LinkServer {
  readonly host: string;
  readonly port: number;
  readonly token: string;
  /** Statements run for linked processes so far (tests and logs). */
  readonly served: number;
  close(): Promise<void>;
}

interface Request {
  id: number;
  op: 'query' | 'begin' | 'commit' | 'rollback';
  subject?: string;
  conn?: number;
  sql?: string;
  params?: unknown[];
  isolation?: IsolationLevel;
  access?: 'read only' | 'read write';
}

type Trx = ControlledTransaction<KnowledgeDatabase>;

export async function startLinkServer(
  embedded: EmbeddedDatabase,
  subjects: readonly Subject[],
  log: { warn(obj: object, msg: string): void } = { warn: () => undefined },
  opts: { idleMs?: number } = {},
): Promise<LinkServer> {
  const idleMs = opts.idleMs ?? TRANSACTION_IDLE_MS;
  const token = randomBytes(24).toString('base64url');
  const handles = new Map<string, SubjectDb>(subjects.map((s) => [s.name, openEmbeddedSubjectDb(embedded, s)]));
  const sockets = new Set<Socket>();
  const closers = new Set<() => Promise<void>>();
  let served = 0;
  let closing = false;

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    let authenticated = false;
    const open = new Map<number, { trx: Trx; timer: NodeJS.Timeout }>();
    const send = (message: unknown) => {
      if (!socket.destroyed) socket.write(encodeLine(message));
    };
    const rollbackAll = async () => {
      const all = [...open.values()];
      open.clear();
      for (const t of all) {
        clearTimeout(t.timer);
        await t.trx.rollback().execute().catch(() => undefined);
      }
    };
    closers.add(rollbackAll);
    socket.once('close', () => {
      sockets.delete(socket);
      closers.delete(rollbackAll);
      void rollbackAll();
    });
    socket.on('error', () => undefined);

    const idle = (conn: number) =>
      setTimeout(() => {
        const t = open.get(conn);
        if (!t) return;
        open.delete(conn);
        log.warn({ conn, ms: idleMs }, 'database link: a transaction left idle was rolled back');
        void t.trx.rollback().execute().catch(() => undefined);
      }, idleMs).unref();

    const handle = async (r: Request): Promise<unknown> => {
      if (closing) throw new Error('the brain is shutting down');
      const conn = r.conn ?? 0;
      const current = open.get(conn);
      if (current) {
        clearTimeout(current.timer);
        current.timer = idle(conn);
      }
      switch (r.op) {
        case 'query': {
          const compiled = CompiledQuery.raw(r.sql ?? '', r.params ?? []);
          served++;
          const result = current ? await current.trx.executeQuery(compiled) : await dbOf(r.subject).executeQuery(compiled);
          return { rows: result.rows, ...(result.numAffectedRows === undefined ? {} : { affected: result.numAffectedRows }) };
        }
        case 'begin': {
          if (current) throw new Error('a transaction is already open on this connection');
          let builder = dbOf(r.subject).startTransaction();
          if (r.isolation) builder = builder.setIsolationLevel(r.isolation);
          if (r.access) builder = builder.setAccessMode(r.access);
          const trx = await builder.execute();
          open.set(conn, { trx, timer: idle(conn) });
          return {};
        }
        case 'commit':
        case 'rollback': {
          if (!current) throw new Error(`no open transaction to ${r.op} (it may have been rolled back after ${idleMs / 1000} s idle)`);
          clearTimeout(current.timer);
          open.delete(conn);
          await (r.op === 'commit' ? current.trx.commit() : current.trx.rollback()).execute();
          return {};
        }
        default:
          throw new Error(`unknown operation ${String(r.op)}`);
      }
    };

    const onData = lineReader((line) => {
      if (!authenticated) {
        const hello = (() => {
          try {
            return decodeLine<{ token?: unknown }>(line);
          } catch {
            return {};
          }
        })();
        const given = Buffer.from(typeof hello.token === 'string' ? hello.token : '');
        const wanted = Buffer.from(token);
        if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) {
          socket.end(encodeLine({ error: { message: 'wrong token' } }));
          return;
        }
        authenticated = true;
        send({ ok: true });
        return;
      }
      let request: Request;
      try {
        request = decodeLine<Request>(line);
      } catch {
        socket.destroy();
        return;
      }
      handle(request).then(
        (answer) => send({ id: request.id, ...(answer as object) }),
        (error: unknown) => send({ id: request.id, error: errorToWire(error) }),
      );
    }, MAX_MESSAGE_BYTES);
    socket.on('data', (chunk: Buffer) => {
      try {
        onData(chunk);
      } catch {
        socket.destroy();
      }
    });
  });

  const dbOf = (name: string | undefined): Kysely<KnowledgeDatabase> => {
    const h = name === undefined ? undefined : handles.get(name);
    if (!h) throw new Error(`no subject "${name}" in the running brain`);
    return h.db;
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    host: '127.0.0.1',
    port,
    token,
    get served() {
      return served;
    },
    async close() {
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all([...closers].map((c) => c()));
      for (const s of sockets) s.destroy();
      await closed;
      await Promise.all([...handles.values()].map((h) => h.close()));
    },
  };
}
