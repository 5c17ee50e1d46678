import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/build.ts', 'test/support/global-setup.ts'],
    reporters: ['default', './test/support/database-reporter.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: two workers keep PGlite instances and the server busy without thrashing.
    maxWorkers: 2,
  },
});
