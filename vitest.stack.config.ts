// The end-to-end suite against the real compose stack (test/stack/run.sh starts it): not part
// of `npm test`, which needs no Docker. One file, its steps in order, one worker.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/stack/**/*.e2e.ts'],
    testTimeout: 900_000,
    hookTimeout: 300_000,
    maxWorkers: 1,
    fileParallelism: false,
    reporters: ['default', './test/support/database-reporter.ts'],
  },
});
