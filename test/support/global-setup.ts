// Starts one throwaway Postgres server for the whole run (or uses BRAIN_TEST_DATABASE_URL)
// and hands its admin URL to the tests. Without server binaries the login-role tests are
// skipped, loudly; in CI that is a failure, because there they must always run.
import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import pg from 'pg';
import { findPostgresBinaries, startThrowawayPostgres, type ThrowawayServer } from './postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string | null;
  }
}

let server: ThrowawayServer | undefined;

/**
 * Names the server the [postgres] tests ran on, with or without pgvector, for the reporter's
 * summary (the suite runs on Debian's PostgreSQL 15 without pgvector and on PostgreSQL 17
 * with it, and the two summaries must say which is which).
 */
async function describeServer(adminUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ version: string; vector: string | null }>(
      "SELECT current_setting('server_version') AS version, (SELECT default_version FROM pg_available_extensions WHERE name = 'vector') AS vector",
    );
    const { version, vector } = rows[0]!;
    return `PostgreSQL ${version.split(' ')[0]} ${vector ? `+ pgvector ${vector}` : '(no pgvector)'}`;
  } finally {
    await client.end();
  }
}

export async function setup(project: TestProject): Promise<void> {
  const external = process.env.BRAIN_TEST_DATABASE_URL;
  if (external) {
    project.provide('pgAdminUrl', external);
    process.env.BRAIN_TEST_SERVER_LABEL = await describeServer(external);
    return;
  }
  if (!findPostgresBinaries()) {
    if (process.env.CI) throw new Error('CI must run the real-server tests, but no Postgres binaries were found (.ci/run installs them)');
    console.warn('\n*** No Postgres server binaries found: the [postgres] login-role tests are SKIPPED. Install postgresql or set BRAIN_TEST_DATABASE_URL. ***\n');
    project.provide('pgAdminUrl', null);
    return;
  }
  server = await startThrowawayPostgres();
  project.provide('pgAdminUrl', server.adminUrl);
  process.env.BRAIN_TEST_SERVER_LABEL = await describeServer(server.adminUrl);
}

export function teardown(): void {
  server?.stop();
}
