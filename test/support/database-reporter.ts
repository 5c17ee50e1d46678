// Prints how many tests ran on each database, and a plain closing line CI can read.
// A test's database is the [pglite] / [postgres] tag in its suite or test name.
import type { Reporter, SerializedError, TestModule } from 'vitest/node';

export default class DatabaseReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<SerializedError>): void {
    const counts = { pglite: 0, postgres: 0, none: 0 };
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    // A failing file, suite or hook is a failure even when no test of it ran.
    failed += unhandled.length;
    for (const module of modules) {
      failed += module.errors().length;
      for (const suite of module.children.allSuites()) failed += suite.errors().length;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'skipped' || state === 'pending') {
          skipped++;
          continue;
        }
        if (state === 'passed') passed++;
        else failed++;
        const name = test.fullName;
        if (name.includes('[pglite]')) counts.pglite++;
        else if (name.includes('[postgres]')) counts.postgres++;
        else counts.none++;
      }
    }
    // Set by global-setup.ts in this same process: which server, and whether it has pgvector.
    const server = process.env.BRAIN_TEST_SERVER_LABEL ?? 'no server';
    console.log(`\nTests run by database: PGlite (embedded, SET LOCAL ROLE) ${counts.pglite}, real Postgres server (login roles; ${server}) ${counts.postgres}, no database ${counts.none}`);
    console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
  }
}
