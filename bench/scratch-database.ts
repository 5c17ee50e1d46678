// A throwaway database on a real server (for tests and benchmarks): created under the
// admin URL, connected to as that admin, and dropped afterwards with the roles its brain
// created (roles are cluster-wide, so they go by their prefix).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { ident } from '../db/sql.js';

export interface ScratchDatabase {
  readonly database: string;
  /** The admin URL pointed at the new database. */
  readonly url: URL;
  /** A superuser connection to it. */
  readonly admin: pg.Client;
  /** Closes the admin connection, drops the database and every role with this prefix. */
  drop(rolePrefix: string): Promise<void>;
}

export async function createScratchDatabase(adminUrl: string, label: string): Promise<ScratchDatabase> {
  const database = `${label}_${randomBytes(4).toString('hex')}`;
  const root = new pg.Client({ connectionString: adminUrl });
  await root.connect();
  await root.query(`CREATE DATABASE ${ident(database)}`);
  await root.end();
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  const admin = new pg.Client({ connectionString: url.toString() });
  await admin.connect();
  return {
    database,
    url,
    admin,
    async drop(rolePrefix) {
      await admin.end().catch(() => undefined);
      const cleanup = new pg.Client({ connectionString: adminUrl });
      await cleanup.connect();
      try {
        await cleanup.query(`DROP DATABASE IF EXISTS ${ident(database)} WITH (FORCE)`);
        const roles = await cleanup.query<{ rolname: string }>('SELECT rolname FROM pg_roles WHERE starts_with(rolname, $1)', [rolePrefix]);
        for (const { rolname } of roles.rows) await cleanup.query(`DROP ROLE IF EXISTS ${ident(rolname)}`);
      } finally {
        await cleanup.end();
      }
    },
  };
}
