// One database handle per subject, connecting as that subject's role and nothing else.
// Server mode: a pg pool logging in as the role with its own password.
// Embedded mode: the shared PGlite, with every statement run under SET LOCAL ROLE.
import { Kysely } from 'kysely';
import pg from 'pg';
import { pino } from 'pino';
import type { Subject } from '../config/subjects.js';
import type { KnowledgeDatabase } from './database.js';
import type { EmbeddedDatabase } from './embedded.js';
import { PGliteRoleDialect } from './pglite-dialect.js';
import { ReconnectingPostgresDialect, reconnectingPool, type ConnectionLog } from './reconnecting-pg.js';

// int8 as a JS number, as in the embedded brain; ids stay far below 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export interface ServerLocation {
  host: string;
  port: number;
  database: string;
}

export interface SubjectDb {
  readonly subject: Subject;
  readonly db: Kysely<KnowledgeDatabase>;
  close(): Promise<void>;
}

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

/** `embedded` may still be opening: the first statement waits for it (PGliteRoleDialect). */
export function openEmbeddedSubjectDb(embedded: EmbeddedDatabase | Promise<EmbeddedDatabase>, subject: Subject): SubjectDb {
  const db = new Kysely<KnowledgeDatabase>({ dialect: new PGliteRoleDialect(embedded, subject.role) });
  return { subject, db, close: () => db.destroy() };
}

/** Parses a server URL that must not carry credentials (each role brings its own). */
export function parseServerUrl(url: string): ServerLocation {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error('BRAIN_DATABASE_URL is not a URL; expected postgres://HOST:PORT/DATABASE');
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') throw new Error('BRAIN_DATABASE_URL must start with postgres://');
  if (u.password) throw new Error('BRAIN_DATABASE_URL must not contain a password; each subject role reads its own password file');
  return { host: decodeURIComponent(u.hostname) || '127.0.0.1', port: Number(u.port || 5432), database: decodeURIComponent(u.pathname.slice(1)) || 'brain' };
}
