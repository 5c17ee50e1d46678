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

/** Tables that are append-only history, written by triggers: readable where the schema is, never writable. */
export const HISTORY_TABLES = ['versions', 'outbox'];
