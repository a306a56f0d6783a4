#!/usr/bin/env -S npx tsx
// CI's conformance runs: the suite against the server on PGlite, on PostgreSQL (when a database
// URL is given), against the server on PGlite again started with TILL_ALLOW_LOOPBACK_WEBHOOKS=true
// (as developers and CI receivers run it; skip with --no-loopback), and its contract part against
// the Prism mock. Each server runs as its own process, started the way a deployment starts, with
// two merchants made by the merchant command (the second one is the "another merchant" of the 404
// checks). Each run writes its report and JUnit XML to <report-dir>/conformance/<label>/
// (conformance.md, conformance.json, junit.xml), with a line per scenario unless --quiet.
//
//   npx tsx scripts/conformance-ci.ts [--pg-url postgres://…/db] [--report-dir out] [--no-loopback] [--quiet] [--parallel N] [--concurrency N]
//
// The runs are independent (each its own server, database and merchants). By default they run one
// after another, each at the suite's own concurrency (8 checks at once): one run keeps its server's
// one thread busy, and three servers at 8 each on CI's two cores made requests wait past the suite's
// 60 s. `--parallel N` runs N at once, `--concurrency N` is passed to each run. Each run's output is
// printed whole when it ends, under its label. Exits non-zero if any run failed (2 when a preflight did).
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { startPrism } from './mock.mjs';
import { inPool, merchant, merchantArgs, root, startServer, stop } from './till-process.js';

const run = promisify(execFile);
const { values } = parseArgs({
  options: {
    'pg-url': { type: 'string' },
    'report-dir': { type: 'string', default: 'out' },
    'no-loopback': { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
    parallel: { type: 'string' },
    concurrency: { type: 'string' },
  },
});
const reportDir = path.resolve(root, values['report-dir']!);

/** Runs `npm run conformance` as a merchant's pipeline would, prints its output whole when it ends, and returns its exit code. */
function conformance(label: string, args: string[]): Promise<number> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'conformance/index.ts',
        ...args,
        '--reporter',
        'junit',
        ...(values.quiet ? ['--quiet'] : []),
        ...(values.concurrency ? ['--concurrency', values.concurrency] : []),
      ],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const output: Buffer[] = [];
    child.stdout!.on('data', (c: Buffer) => output.push(c));
    child.stderr!.on('data', (c: Buffer) => output.push(c));
    child.on('close', (code) => {
      process.stdout.write(`\n== conformance: ${label} (${Math.round((Date.now() - started) / 1000)} s) ==\n${Buffer.concat(output).toString()}`);
      resolve(code ?? 1);
    });
  });
}

async function againstMock(): Promise<number> {
  const mocks = await Promise.all([startPrism({ api: 'checkout' }), startPrism({ api: 'commerce' })]);
  try {
    return await conformance('Prism mock (contract)', [
      '--base-url',
      mocks[0]!.url,
      '--commerce-base-url',
      mocks[1]!.url,
      '--secret-key',
      'sk_test_conformancemock00000000000',
      '--publishable-key',
      'pk_test_conformancemock00000000000',
      '--target',
      'mock',
      '--contract-only',
      '--report',
      path.join(reportDir, 'conformance', 'mock'),
    ]);
  } finally {
    await Promise.all(mocks.map((m) => m.stop()));
  }
}

async function againstServer(label: string, database: NodeJS.ProcessEnv, extra: NodeJS.ProcessEnv = {}): Promise<number> {
  const dataDir = await mkdtemp(path.join(tmpdir(), `till-conformance-${label}-`));
  const env = { ...process.env, ...database, TILL_DATA_DIR: dataDir, NODE_ENV: 'development', LOG_LEVEL: 'info', ...extra };
  let server: { url: string; child: ChildProcess } | undefined;
  try {
    const a = await merchant(`Conformance A ${label}`, env);
    // B is on the Enterprise plan: the rate-plan scenario checks that plan's limits on it.
    const b = await merchant(`Conformance B ${label}`, env, ['--plan', 'enterprise']);
    server = await startServer(env, path.join(reportDir, 'logs', `conformance-${label}.log`));
    return await conformance(`server on ${label}`, [
      '--base-url',
      server.url,
      ...merchantArgs(a, b),
      '--implemented',
      path.join(reportDir, 'implemented.json'),
      '--report',
      path.join(reportDir, 'conformance', label),
    ]);
  } finally {
    if (server) await stop(server.child);
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/operations.ts', '--json'], { cwd: root });
  await mkdir(reportDir, { recursive: true });
  await writeFile(path.join(reportDir, 'implemented.json'), stdout);

  const runs: Record<string, () => Promise<number>> = { pglite: () => againstServer('pglite', { DATABASE_URL: '' }) };
  if (values['pg-url']) runs.postgres = () => againstServer('postgres', { DATABASE_URL: values['pg-url'] });
  // The notification-URL rules answer differently where test-mode loopback webhooks are allowed; the suite must pass there too.
  if (!values['no-loopback']) runs.loopback = () => againstServer('loopback', { DATABASE_URL: '' }, { TILL_ALLOW_LOOPBACK_WEBHOOKS: 'true' });
  runs.mock = againstMock;

  const codes: Record<string, number> = {};
  // A run that throws (its server would not start) fails, and the others still run.
  const settle = (label: string, start: () => Promise<number>) => async () => {
    codes[label] = await start().catch((err: unknown) => (console.error(`conformance-ci: ${label}: ${err instanceof Error ? err.message : String(err)}`), 1));
  };
  await inPool(
    Object.entries(runs).map(([label, start]) => settle(label, start)),
    Number(values.parallel) || 1,
  );
  console.log(
    `\nconformance runs: ${Object.entries(codes)
      .map(([k, c]) => `${k} ${c === 0 ? 'ok' : c === 2 ? 'PREFLIGHT FAILED' : 'FAILED'}`)
      .join(', ')}`,
  );
  console.log(
    `JUnit XML: ${Object.keys(codes)
      .map((k) => path.join(path.relative(root, reportDir), 'conformance', k, 'junit.xml'))
      .join(', ')}`,
  );
  process.exit(Object.values(codes).some((c) => c !== 0) ? 1 : 0);
}

main().catch((err) => {
  console.error(`conformance-ci: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
