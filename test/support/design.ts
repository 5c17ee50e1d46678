// The isolation design, stated once for the tests: what a role may do in a subject schema.
import type { SubjectsConfig } from '../../config/subjects.js';

export const OPS = ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'CREATE', 'ALTER', 'DROP'] as const;
export type Op = (typeof OPS)[number];

export function designed(cfg: SubjectsConfig, role: string, schema: string): ReadonlySet<Op> {
  if (role === cfg.auditRole) return new Set(['SELECT']);
  const own = cfg.subjects.find((s) => s.role === role)!;
  if (own.name === schema) return new Set(['SELECT', 'INSERT', 'UPDATE', 'DELETE']);
  const target = cfg.subjects.find((s) => s.name === schema)!;
  if (target.isPersonal && !own.isPersonal) return new Set(['SELECT', 'INSERT', 'UPDATE']);
  return new Set();
}

/**
 * Append-only history, written by triggers as the writer: where a role may write the
 * knowledge it may also append here (INSERT), and it may read it, but never change it.
 */
export const HISTORY_TABLES = ['versions', 'outbox'];

/**
 * Embeddings, derived data that only the subject's own worker writes (present where
 * pgvector is): a project may read personal's, to search them, but never write them.
 */
export const DERIVED_TABLES = ['chunks', 'embedding_state'];

/** Working state of the subject's own sessions (proposals): no other subject role touches it. */
export const SESSION_TABLES = ['proposals'];

/**
 * What a project may UPDATE in personal, by column only (db/grants/upcast.sql): no project
 * holds a table-wide UPDATE there, which is what LOCK TABLE in a strong mode would need.
 * null: every column but the ones the database keeps.
 */
export const PROJECT_UPDATE_COLUMNS: Readonly<Record<string, readonly string[] | null>> = {
  topics: null,
  episodes: null,
  links: ['context'],
  raw_data: ['data', 'fetched_at'],
};
export const DATABASE_KEPT_COLUMNS = ['id', 'created_at', 'updated_at', 'search'];

/** The table privileges a role holds on one table of a subject schema (table-wide grants). */
export function designedTablePrivileges(cfg: SubjectsConfig, role: string, schema: string, table: string): ReadonlySet<string> {
  const ops = designed(cfg, role, schema);
  const own = cfg.subjects.find((s) => s.role === role);
  const upcast = own !== undefined && own.name !== schema;
  const keep = SESSION_TABLES.includes(table) && own && own.name !== schema
    ? []
    : HISTORY_TABLES.includes(table)
    ? ['SELECT', 'INSERT']
    : DERIVED_TABLES.includes(table) && own?.name !== schema
      ? ['SELECT']
      : upcast
        ? ['SELECT', 'INSERT']
        : ['SELECT', 'INSERT', 'UPDATE', 'DELETE'];
  return new Set([...ops].filter((op) => keep.includes(op)));
}
