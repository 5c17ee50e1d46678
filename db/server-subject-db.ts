// A subject's handle on a Postgres server: a pg pool logging in as the subject's role with its
// own password (db/subject-db.ts has the embedded one). Its own module, so that a command on
// the embedded brain never loads node-postgres.
import { Kysely } from 'kysely';
import pg from './node-postgres.js';
import { pino } from 'pino';
import type { Subject } from '../config/subjects.js';
import type { KnowledgeDatabase } from './database.js';
import { ReconnectingPostgresDialect, reconnectingPool, type ConnectionLog } from './reconnecting-pg.js';
import type { ServerLocation, SubjectDb } from './subject-db.js';

/** Where connection losses are logged when the caller gives no logger: stderr, so a CLI's stdout stays clean. */
let fallbackLog: ConnectionLog | undefined;
function defaultLog(): ConnectionLog {
  fallbackLog ??= pino({ name: 'claude-brain', level: process.env.BRAIN_LOG_LEVEL ?? 'warn' }, pino.destination(2));
  return fallbackLog;
}

/**
 * A pool of at most `poolSize` login connections as the subject's role (5: each tool call
 * takes one per statement or transaction). It survives the server going away and coming
 * back: see db/reconnecting-pg.ts.
 */
export function openServerSubjectDb(location: ServerLocation, subject: Subject, password: string, poolSize = 5, log: ConnectionLog = defaultLog()): SubjectDb {
  const pool = new pg.Pool({
    host: location.host,
    port: location.port,
    database: location.database,
    user: subject.role,
    password,
    max: poolSize,
    application_name: `claude-brain:${subject.name}`,
    connectionTimeoutMillis: 10_000,
  });
  const db = new Kysely<KnowledgeDatabase>({ dialect: new ReconnectingPostgresDialect({ pool: reconnectingPool(pool, log, `${subject.role}@${location.host}:${location.port}/${location.database}`) }) });
  return { subject, db, close: () => db.destroy() };
}

