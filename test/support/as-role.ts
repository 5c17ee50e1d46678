// Running statements as a subject's role, in one transaction rolled back unless commit is asked
// for: on PGlite under SET LOCAL ROLE (the brain's one connection, under its lock), on a server
// over a login connection of the role. Shared by the test brains (brains.ts) and the deny-list
// corpus bench (bench/deny-list/brain.ts); no top-level work, so built benches can import it.
import type pg from 'pg';
import type { EmbeddedDatabase } from '../../db/embedded.js';
import { ident, pgSession, type SqlSession } from '../../db/sql.js';

export type AsRole = <T>(role: string, fn: (s: SqlSession) => Promise<T>, opts?: { commit?: boolean }) => Promise<T>;

export function pgliteAsRole(embedded: EmbeddedDatabase, admin: SqlSession): AsRole {
  return (role, fn, opts) =>
    embedded.lock.run(async () => {
      await admin.exec(`BEGIN; SET LOCAL ROLE ${ident(role)}`);
      try {
        const result = await fn(admin);
        await admin.exec(opts?.commit ? 'COMMIT' : 'ROLLBACK');
        return result;
      } catch (error) {
        await admin.exec('ROLLBACK');
        throw error;
      }
    });
}

/** `login(role)` gives the role's connection (kept open by the caller). */
export function loginAsRole(login: (role: string) => Promise<pg.Client>): AsRole {
  return async (role, fn, opts) => {
    const client = await login(role);
    await client.query('BEGIN');
    try {
      const result = await fn(pgSession(client));
      await client.query(opts?.commit ? 'COMMIT' : 'ROLLBACK');
      return result;
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    }
  };
}
