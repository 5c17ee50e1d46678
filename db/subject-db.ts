// One database handle per subject, connecting as that subject's role and nothing else.
// Server mode: a pg pool logging in as the role with its own password (server-subject-db.ts,
// loaded only in server mode: an embedded command need not load node-postgres).
// Embedded mode: the shared PGlite, with every statement run under SET LOCAL ROLE.
import { Kysely } from 'kysely';
import type { Subject } from '../config/subjects.js';
import type { KnowledgeDatabase } from './database.js';
import type { EmbeddedDatabase } from './embedded.js';
import { PGliteRoleDialect } from './pglite-dialect.js';
import { markCarriesSettings } from './statement-settings.js';

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

/** `embedded` may still be opening: the first statement waits for it (PGliteRoleDialect). */
export function openEmbeddedSubjectDb(embedded: EmbeddedDatabase | Promise<EmbeddedDatabase>, subject: Subject): SubjectDb {
  const db = new Kysely<KnowledgeDatabase>({ dialect: new PGliteRoleDialect(embedded, subject.role) });
  markCarriesSettings(db);
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
