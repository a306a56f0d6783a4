#!/usr/bin/env -S npx tsx
// The conformance suite proves its strength: it runs against Till behind the breaking proxy
// (conformance/selftest/), once per way the proxy breaks the contract, and each run must FAIL.
// Till runs as CI runs it (PGlite, a fresh data dir, two merchants made by the merchant command,
// test-mode loopback webhooks allowed); the proxy sits in front of it, one per way.
//
//   npm run conformance:selftest [-- --full] [--way NAME]… [--parallel N] [--concurrency N] [--report-dir out]
//
// Quick (the default, for CI): each way runs the part of the suite expected to catch it (the
// contract part, or the scenarios its `focus` names) and is stopped at its first failure.
// --full: each way runs the whole suite to the end, for the table of everything it fails.
// Prints a table (way → operations and scenarios failed, the first failure); exits 1 when a way
// was not caught (a hole in the suite), 0 when every way was.
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startBreakingProxy } from '../conformance/selftest/proxy.js';
import { SELFTEST_WAYS, WAYS } from '../conformance/selftest/ways.js';
import { inPool, merchant, type MadeMerchant, merchantArgs, root, startServer, stop } from './till-process.js';

const { values } = parseArgs({
  options: {
    full: { type: 'boolean', default: false },
    way: { type: 'string', multiple: true },
    parallel: { type: 'string', default: '2' },
    'report-dir': { type: 'string', default: 'out' },
    /** Passed to each suite run (its own default when absent). */
    concurrency: { type: 'string' },
    /** How long one way's run may take (seconds) before it is stopped: quick runs 300, full runs 3600. */
    'way-timeout': { type: 'string' },
  },
});
const reportDir = path.resolve(root, values['report-dir']!, 'conformance-selftest');
const wayTimeoutMs = Number(values['way-timeout'] ?? (values.full ? 3600 : 300)) * 1000;
/** The processes to stop when the self-test is interrupted. */
const running = new Set<ChildProcess>();

interface WayResult {
  way: string;
  caught: boolean;
  operations: string[];
  scenarios: string[];
  seconds: number;
  exitCode: number | null;
  first?: string;
}

/** A failure line of the suite's progress: `✗ operationId …` or `[i/n  elapsed] ✗ scenario.id … (why)`. */
function failureOf(line: string): { kind: 'operation' | 'scenario'; id: string } | undefined {
  const scenario = /^\s*\[\s*\d+\/\d+[^\]]*\] ✗ (\S+)/.exec(line);
  if (scenario) return { kind: 'scenario', id: scenario[1]! };
  const operation = /^\s*✗ (\S+) \d+ ms/.exec(line);
  return operation ? { kind: 'operation', id: operation[1]! } : undefined;
}

/** The suite's arguments for one way: the whole suite (--full), or the part expected to catch it. */
function suiteArgs(way: string, baseUrl: string, a: MadeMerchant, b: MadeMerchant): string[] {
  const keys = ['--base-url', baseUrl, ...merchantArgs(a, b), ...(values.concurrency ? ['--concurrency', values.concurrency] : [])];
  if (values.full) return [...keys, '--report', path.join(reportDir, way)];
  const focus = WAYS[way]!.focus;
  return focus === 'contract' ? [...keys, '--contract-only'] : [...keys, '--scenarios-only', ...focus.flatMap((p) => ['--only', p])];
}

/** Runs the suite through the proxy for one way; a quick run is stopped at its first failure. */
async function runWay(way: string, upstream: string, a: MadeMerchant, b: MadeMerchant): Promise<WayResult> {
  const proxy = await startBreakingProxy({ upstream, way, keys: [a.keys.test.secret, b.keys.test.secret, a.keys.live.secret] });
  const started = Date.now();
  const result: WayResult = { way, caught: false, operations: [], scenarios: [], seconds: 0, exitCode: null };
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', 'conformance/index.ts', ...suiteArgs(way, proxy.url, a, b)], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(child);
    const timer = setTimeout(() => void stop(child), wayTimeoutMs);
    result.exitCode = await watchProgress(child, result);
    clearTimeout(timer);
    running.delete(child);
  } finally {
    await proxy.close();
  }
  result.seconds = Math.round((Date.now() - started) / 1000);
  // Quick runs are stopped at their first failure; a full run must end with exit status 1.
  result.caught = values.full ? result.exitCode === 1 && result.operations.length + result.scenarios.length > 0 : result.first !== undefined;
  return result;
}

/** Reads the suite's progress (all its output also goes to <report-dir>/conformance-selftest/<way>.log): notes each failure, stops a quick run at the first; answers the exit status. */
function watchProgress(child: ChildProcess, result: WayResult): Promise<number | null> {
  let pending = '';
  const output: string[] = [];
  const log = createWriteStream(path.join(reportDir, `${result.way}.log`));
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  child.stdout!.on('data', (c: Buffer) => output.push(c.toString()));
  child.stderr!.on('data', (c: Buffer) => {
    pending += c.toString();
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      output.push(line);
      const failure = failureOf(line);
      if (!failure) continue;
      (failure.kind === 'operation' ? result.operations : result.scenarios).push(failure.id);
      result.first ??= line.trim().slice(0, 220);
      if (!values.full) void stop(child);
    }
  });
  return new Promise((resolve) =>
    child.on('close', (code) => {
      if (result.first === undefined) console.error(`-- ${result.way}: the suite caught nothing; its output:\n${output.join('\n').slice(-3000)}`);
      resolve(code);
    }),
  );
}

function table(results: WayResult[]): string {
  const rows = results.map((r) => {
    const counts = `${r.operations.length} operations, ${r.scenarios.length} scenarios`;
    return `| ${r.way} | ${r.caught ? 'caught' : '**NOT CAUGHT**'} | ${counts} | ${r.seconds} s | ${(r.first ?? '').replaceAll('|', '\\|')} |`;
  });
  return [
    `| way (${values.full ? 'full runs' : 'quick runs, stopped at the first failure'}) | | failed | time | first failure |`,
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

async function main() {
  const ways = values.way ?? SELFTEST_WAYS;
  for (const way of ways) if (!WAYS[way]) throw new Error(`unknown way ${way}; the ways: ${Object.keys(WAYS).join(', ')}`);
  const started = Date.now();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'till-conformance-selftest-'));
  const env = { ...process.env, DATABASE_URL: '', TILL_DATA_DIR: dataDir, NODE_ENV: 'development', LOG_LEVEL: 'info', TILL_ALLOW_LOOPBACK_WEBHOOKS: 'true' };
  let server: { url: string; child: ChildProcess } | undefined;
  try {
    // Full runs: a pair of merchants per way, so that no way's sandbox merchants (a merchant may have 50
    // alive), rate-limit bucket or balance is another's. Quick runs share one pair.
    const pairs: Record<string, [MadeMerchant, MadeMerchant]> = {};
    for (const way of values.full ? ways : ['all'])
      pairs[way] = [await merchant(`Selftest A ${way}`, env), await merchant(`Selftest B ${way}`, env, ['--plan', 'enterprise'])];
    // Its log beside the other conformance servers' logs, for the secrets scan.
    server = await startServer(env, path.resolve(root, values['report-dir']!, 'logs', 'conformance-selftest.log'));
    running.add(server.child);
    await mkdir(reportDir, { recursive: true });
    console.error(`selftest: Till on ${server.url}; ${ways.length} ways, ${values.parallel} at a time${values.full ? ', full runs' : ''}`);
    const tasks = ways.map((way) => async () => {
      const r = await runWay(way, server!.url, ...(pairs[way] ?? pairs.all!));
      const counts = `${r.operations.length} operations and ${r.scenarios.length} scenarios failed`;
      console.error(`selftest: ${way}: ${r.caught ? 'caught' : 'NOT CAUGHT'} in ${r.seconds} s (${counts})${r.first ? `: ${r.first}` : ''}`);
      return r;
    });
    const results = await inPool(tasks, Number(values.parallel) || 1);
    const summary = `${table(results)}\n\n${results.filter((r) => r.caught).length} of ${results.length} ways caught in ${Math.round((Date.now() - started) / 1000)} s`;
    console.log(`\n${summary}`);
    await mkdir(reportDir, { recursive: true });
    await writeFile(path.join(reportDir, values.full ? 'selftest-full.md' : 'selftest.md'), `${summary}\n`);
    await writeFile(path.join(reportDir, values.full ? 'selftest-full.json' : 'selftest.json'), JSON.stringify(results, null, 2));
    process.exitCode = results.every((r) => r.caught) ? 0 : 1;
  } finally {
    if (server) await stop(server.child);
    await rm(dataDir, { recursive: true, force: true });
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    console.error(`conformance-selftest: ${signal}: stopping the suites and the server`);
    void Promise.all([...running].map(stop)).finally(() => process.exit(130));
  });

main().catch((err: unknown) => {
  console.error(`conformance-selftest: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
