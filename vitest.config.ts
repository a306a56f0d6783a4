import { availableParallelism } from 'node:os';
import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';

// The test projects. A file's project is in its name, so test/<area>/ can hold all kinds:
//   unit       *.unit.test.ts      rules and code called directly: no server, no database
//   domain     *.domain.test.ts    domain rules called through the services on a database of their own, no HTTP
//   api        *.test.ts           the app over HTTP on a database of its own (PGlite; PostgreSQL with DATABASE_URL)
//   browser    *.browser.test.ts   pages in Debian's Chromium
//   processes  *.process.test.ts   spawned servers, workers, CLIs, restarts
//   postgres   *.pg.test.ts        races and several processes on one PostgreSQL database (only with DATABASE_URL)
//   fuzz       test/fuzz/          every operation of both contracts, fuzzed
//   sdk        sdk/test/           the published client
// `npm test` runs every project but postgres; `npm run test:<project>` runs one.
const KINDS = [
  'test/**/*.unit.test.ts',
  'test/**/*.domain.test.ts',
  'test/**/*.browser.test.ts',
  'test/**/*.process.test.ts',
  'test/**/*.pg.test.ts',
  'test/fuzz/**',
];

// Vitest runs each group of projects after the one before, and each pool of a group with workers
// of its own: seven projects at once would be fourteen workers on two cores. The projects on
// threads (below) share one pool, which takes their files project by project, the next one's
// first files beside the last one's last; then the processes, then the PostgreSQL races.
const GROUPS: Record<string, number> = { processes: 1, postgres: 2 };

/** A project over the root settings below. */
const project = (name: string, include: string[], settings: TestProjectInlineConfiguration['test'] = {}): TestProjectInlineConfiguration => ({
  extends: true,
  test: { name, include, sequence: { groupOrder: GROUPS[name] ?? 0 }, ...settings },
});

// Files of a project share one worker's modules: each file still starts its own server on its own
// database, but the server's modules are imported once per worker instead of once per file (0.8 s
// a file). Vitest makes one pool per kind for all projects, and a pool's isolation is the root's
// (a project's `isolate` only decides whether modules are reset), so these projects run on worker
// threads that are kept (poolOptions.threads below), while processes and postgres keep a fresh
// forked process per file: they start servers in-process, with their signal handlers and workers.
//
// TILL_TEST_POOL=forks runs those projects on kept forked processes instead (one per worker,
// modules shared across its files as on threads), and defines only them: the processes and
// postgres projects need a fresh process per file, which forks with isolate off would not give.
// CI's Node 24 run uses it: Node 24's V8 can abort the whole process (`Check failed:
// jit_page.has_value()`) when PGlite's WebAssembly is compiled and freed in worker threads at
// once (nodejs/node#64500), and a forked process keeps a V8 of its own.
const forks = process.env.TILL_TEST_POOL === 'forks';
const shared = { pool: forks ? 'forks' : 'threads', isolate: false } as const;
/** Projects that start servers in-process (a fresh process per file): left out of a forks run. */
const ownProcess = (p: TestProjectInlineConfiguration): TestProjectInlineConfiguration[] => (forks ? [] : [p]);

export default defineConfig({
  test: {
    // Migrates the run's template database once; every test file starts from a copy (test/support/database.ts).
    globalSetup: ['test/setup/template.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two test files at once even on a 2-core machine (vitest's default there is one): much of a
    // file's time is waiting (servers starting, browsers, webhooks, clocks), so two overlap well.
    // Every file has a database of its own, on PGlite and on PostgreSQL alike.
    poolOptions: { threads: { isolate: false }, forks: { isolate: !forks } },
    maxWorkers: Number(process.env.VITEST_MAX_WORKERS) || Math.max(2, availableParallelism() - 1),
    reporters: process.env.VITEST_JSON ? ['default', ['json', { outputFile: process.env.VITEST_JSON }]] : ['default'],
    projects: [
      // Time limits per project fit what its tests do: a rule called directly takes milliseconds, a
      // spawned server seconds. A test with more to do says so itself.
      project('unit', ['test/**/*.unit.test.ts', 'conformance/test/**/*.test.ts'], { ...shared, testTimeout: 10_000 }),
      project('domain', ['test/**/*.domain.test.ts'], shared),
      project('api', ['test/**/*.test.ts'], { ...shared, exclude: KINDS }),
      project('browser', ['test/**/*.browser.test.ts'], { ...shared, testTimeout: 60_000 }),
      ...ownProcess(project('processes', ['test/**/*.process.test.ts'], { testTimeout: 90_000 })),
      ...(process.env.DATABASE_URL ? ownProcess(project('postgres', ['test/**/*.pg.test.ts'], { testTimeout: 60_000 })) : []),
      project('fuzz', ['test/fuzz/**/*.test.ts'], shared),
      project('sdk', ['sdk/test/**/*.test.ts'], { ...shared, testTimeout: 60_000 }),
    ],
  },
});
