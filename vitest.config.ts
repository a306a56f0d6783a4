import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'sdk/test/**/*.test.ts', 'conformance/test/**/*.test.ts'],
    globalSetup: ['test/setup/template.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Two test files at once even on a 2-core machine (vitest's default there is one): much of a
    // file's time is waiting (servers starting, browsers, webhooks, clocks), so two overlap well.
    // On PostgreSQL (DATABASE_URL) one at a time: the files share that one database, and one
    // file's background work (jobs, due work, deliveries) must not touch what another checks.
    maxWorkers: Number(process.env.VITEST_MAX_WORKERS) || (process.env.DATABASE_URL ? 1 : Math.max(2, availableParallelism() - 1)),
    reporters: process.env.VITEST_JSON ? ['default', ['json', { outputFile: process.env.VITEST_JSON }]] : ['default'],
  },
});
