// Starts one throwaway Postgres server for the whole run (or uses BRAIN_TEST_DATABASE_URL)
// and hands its admin URL to the tests. Without server binaries the login-role tests are
// skipped, loudly; in CI that is a failure, because there they must always run.
import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { findPostgresBinaries, startThrowawayPostgres, type ThrowawayServer } from './postgres-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string | null;
  }
}

let server: ThrowawayServer | undefined;

export async function setup(project: TestProject): Promise<void> {
  const external = process.env.BRAIN_TEST_DATABASE_URL;
  if (external) {
    project.provide('pgAdminUrl', external);
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
}

export function teardown(): void {
  server?.stop();
}
