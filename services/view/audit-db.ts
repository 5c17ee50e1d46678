// The view's only database handle: the audit role, which holds SELECT and nothing else
// (db/grants/audit.sql, db/grants/subject.sql). On a server it logs in as that role with
// its own password, every transaction read-only by the role's setting and again by the
// connection's; in the embedded brain every statement runs under SET LOCAL ROLE to it inside
// a READ ONLY transaction (db/pglite-dialect.ts). No write can succeed either way: the grants
// refuse it (42501) even where read-only is turned off, which test/view/read-only.test.ts does.
import { Kysely } from 'kysely';
import pg from '../../db/node-postgres.js';
import type { KnowledgeDatabase } from '../../db/database.js';
import type { EmbeddedDatabase } from '../../db/embedded.js';
import { PGliteRoleDialect } from '../../db/pglite-dialect.js';
import { ReconnectingPostgresDialect, reconnectingPool, type ConnectionLog } from '../../db/reconnecting-pg.js';
import type { ServerLocation } from '../../db/subject-db.js';

export interface AuditDb {
  readonly db: Kysely<KnowledgeDatabase>;
  readonly role: string;
  close(): Promise<void>;
}

/** `embedded` may still be opening (`brain up` listens first): the first statement waits for it. */
export function openEmbeddedAuditDb(embedded: EmbeddedDatabase | Promise<EmbeddedDatabase>, auditRole: string): AuditDb {
  const db = new Kysely<KnowledgeDatabase>({ dialect: new PGliteRoleDialect(embedded, auditRole, { readOnly: true }) });
  return { db, role: auditRole, close: () => db.destroy() };
}

const quietLog: ConnectionLog = { warn: () => undefined, info: () => undefined };

/** A small pool (the view's pages run a few statements each), logging in as the audit role. */
export function openServerAuditDb(location: ServerLocation, auditRole: string, password: string, log: ConnectionLog = quietLog, poolSize = 3): AuditDb {
  const pool = new pg.Pool({
    ...location,
    user: auditRole,
    password,
    max: poolSize,
    application_name: 'claude-brain:view',
    connectionTimeoutMillis: 10_000,
    // The role's own default, asked for again by the connection.
    options: '-c default_transaction_read_only=on',
  });
  const db = new Kysely<KnowledgeDatabase>({
    dialect: new ReconnectingPostgresDialect({ pool: reconnectingPool(pool, log, `${auditRole}@${location.host}:${location.port}/${location.database}`) }),
  });
  return { db, role: auditRole, close: () => db.destroy() };
}
