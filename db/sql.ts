// The smallest common ground between node-postgres and PGlite that the bootstrap and
// the migration runner need: parameterised queries, multi-statement scripts, close.
import type pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';

export interface SqlSession {
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<R[]>;
  /** Runs a script of several statements (no parameters). */
  exec(text: string): Promise<void>;
}

export function pgSession(client: pg.ClientBase): SqlSession {
  return {
    async query<R>(text: string, params: readonly unknown[] = []) {
      return (await client.query(text, params as unknown[])).rows as R[];
    },
    async exec(text: string) {
      await client.query(text);
    },
  };
}

export function pgliteSession(db: PGlite): SqlSession {
  return {
    async query<R>(text: string, params: readonly unknown[] = []) {
      return (await db.query<R>(text, params as unknown[])).rows;
    },
    async exec(text: string) {
      await db.exec(text);
    },
  };
}

/** Quotes an identifier for SQL text. Names are validated before they get here; this is the second lock. */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Quotes a string literal for the few statements that cannot take parameters (CREATE ROLE ... PASSWORD). */
export function literal(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** The SQLSTATE of a database error, from either driver. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

export async function inTransaction<T>(session: SqlSession, fn: () => Promise<T>): Promise<T> {
  await session.exec('BEGIN');
  try {
    const result = await fn();
    await session.exec('COMMIT');
    return result;
  } catch (error) {
    await session.exec('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
