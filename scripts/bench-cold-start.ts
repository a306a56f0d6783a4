/**
 * Cold start, for `npm run bench` (scripts/bench.ts): the time from spawning `npm start`
 * (literally: npm, then Node with its build check; cwd this checkout, dist/ already built)
 * with a fresh TILL_DATA_DIR (and, on PostgreSQL, a fresh database) to the first 200 of
 * `GET /v1/plans` with the demo merchant's test secret key. demo-merchant.json is read from the
 * data dir as soon as it exists; everything is polled every 20 ms. Each run then stops it and
 * times a restart the same way (same data dir and database). COLD_START_RUNS runs per database;
 * the medians are reported.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { checkInterrupted, createBenchDatabase, onCleanup, positiveInt, root, sleep, spawnTracked, stopChild } from './bench-lib.js';
import { type DemoMerchant, tillCommand, tillEnv } from './bench-till.js';
import { fmt } from './bench-format.js';
import { freePort } from './mock.mjs';

/** Runs per database (`BENCH_COLD_START_RUNS`, default 3). */
export const COLD_START_RUNS = positiveInt('BENCH_COLD_START_RUNS', 3);
const POLL_MS = 20;
const TIMEOUT_MS = 60_000;

export interface ColdStartRow {
  /**
   * `pglite-floor`: scripts/bench-pglite-floor.mjs, Node.js and PGlite alone, the reference for
   * PGlite's goals; `pglite-npm-floor`: the same started by npm (`npm run bench:pglite-floor`), as
   * `npm start` starts Till, so what npm adds to every start is measured beside it.
   */
  database: 'postgres' | 'pglite' | 'pglite-floor' | 'pglite-npm-floor';
  status: 'ok' | 'skipped' | 'failed';
  reason?: string;
  /** Each run, ms from spawning `npm start` to the first 200. */
  runsMs?: number[];
  medianMs?: number;
  /** Each run's restart (stopped, then `npm start` again on the same data), ms to the first 200. */
  restartsMs?: number[];
  restartMedianMs?: number;
}

/** The demo merchant's test secret key, once demo-merchant.json exists and is complete. */
async function demoSecretKey(dataDir: string): Promise<string | undefined> {
  try {
    return (JSON.parse(await readFile(path.join(dataDir, 'demo-merchant.json'), 'utf8')) as DemoMerchant).keys.test.secret;
  } catch {
    return undefined; // not written yet, or half written
  }
}

/** Whether GET /v1/plans answers 200 with this key now. */
async function plansAnswer200(url: string, key: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/v1/plans`, { headers: { Authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false; // not listening yet
  }
}

/** What a floor's runs are called in the progress lines; Till's are `npm start (<database>)`. */
const FLOOR_LABELS: Partial<Record<ColdStartRow['database'], string>> = {
  'pglite-floor': 'node + PGlite (floor)',
  'pglite-npm-floor': 'npm + PGlite (floor)',
};

/** Whether a start is the PGlite floor's (which answers without a key). */
const isFloor = (database: ColdStartRow['database']) => FLOOR_LABELS[database] !== undefined;

/** How a start is spawned: `npm start`, or the PGlite floor with node or with npm. */
function startCommand(database: ColdStartRow['database']): [string, string[]] {
  if (database === 'pglite-floor') return [process.execPath, ['scripts/bench-pglite-floor.mjs']];
  if (database === 'pglite-npm-floor') return ['npm', ['run', '--silent', 'bench:pglite-floor']];
  return ['npm', ['start']];
}

/** One start on `dataDir` (fresh or not): ms from spawning it to the first 200 of GET /v1/plans. */
async function startToFirst200(dataDir: string, databaseUrl: string | undefined, database: ColdStartRow['database']): Promise<number> {
  const floor = isFloor(database);
  const port = (await freePort()) as number;
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const [command, args] = startCommand(database);
  const { child, output, exited } = spawnTracked(command, args, tillEnv(port, dataDir, databaseUrl), root, { detached: true });
  const stop = onCleanup(`stop npm start (pid ${child.pid})`, () => stopChild(child, exited));
  try {
    let key: string | undefined;
    for (;;) {
      checkInterrupted();
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`${command} ${args.join(' ')} exited (${child.exitCode ?? child.signalCode}) before answering:\n${output()}`);
      key ??= floor ? 'none' : await demoSecretKey(dataDir);
      if (key && (await plansAnswer200(url, key))) return performance.now() - started;
      if (performance.now() - started > TIMEOUT_MS) throw new Error(`no 200 from GET /v1/plans within ${TIMEOUT_MS / 1000} s:\n${output()}`);
      await sleep(POLL_MS);
    }
  } finally {
    await stop();
  }
}

/** One cold start with a fresh data dir, stopped, then started again on the same data: ms to each first 200. */
async function coldStartOnce(databaseUrl: string | undefined, database: ColdStartRow['database']): Promise<{ coldMs: number; restartMs: number }> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'till-bench-cold-'));
  const removeDataDir = onCleanup(`remove ${dataDir}`, () => rm(dataDir, { recursive: true, force: true }));
  try {
    const coldMs = await startToFirst200(dataDir, databaseUrl, database);
    return { coldMs, restartMs: await startToFirst200(dataDir, databaseUrl, database) };
  } finally {
    await removeDataDir();
  }
}

/** The median of some numbers. */
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** COLD_START_RUNS cold starts on one database (PostgreSQL: a fresh database each run), or of the PGlite floor (by node or by npm). */
export async function measureColdStarts(database: ColdStartRow['database']): Promise<ColdStartRow> {
  await tillCommand(root); // dist/ built before the first run, as `npm start` expects
  const runsMs: number[] = [];
  const restartsMs: number[] = [];
  for (let run = 1; run <= COLD_START_RUNS; run++) {
    const what = FLOOR_LABELS[database] ?? `npm start (${database})`;
    process.stdout.write(`bench: ${'cold-start'.padEnd(15)} ${what.padEnd(26)} run ${run} of ${COLD_START_RUNS}`);
    const fresh = database === 'postgres' ? await createBenchDatabase() : undefined;
    try {
      const { coldMs, restartMs } = await coldStartOnce(fresh?.url, database);
      runsMs.push(coldMs);
      restartsMs.push(restartMs);
    } catch (error) {
      console.log('');
      throw error;
    } finally {
      await fresh?.drop();
    }
    console.log(`  → ${fmt(runsMs.at(-1)!, 0)} ms, restart ${fmt(restartsMs.at(-1)!, 0)} ms`);
  }
  return {
    database,
    status: 'ok',
    runsMs: runsMs.map(Math.round),
    medianMs: Math.round(median(runsMs)),
    restartsMs: restartsMs.map(Math.round),
    restartMedianMs: Math.round(median(restartsMs)),
  };
}

/** The cold-start rows as cells, for the console and the Markdown table alike. */
export function coldStartCells(rows: ColdStartRow[]): string[][] {
  const header = ['start', 'database', 'median ms', 'runs ms'];
  const runs = (ms: number[]) => ms.map((x) => fmt(x, 0)).join(', ');
  const body = rows.flatMap((r) =>
    r.status !== 'ok'
      ? [['npm start', r.database, `${r.status}: ${r.reason ?? ''}`]]
      : [
          ['npm start (fresh data)', r.database, fmt(r.medianMs!, 0), runs(r.runsMs!)],
          ...(r.restartsMs ? [['restart (same data)', r.database, fmt(r.restartMedianMs!, 0), runs(r.restartsMs)]] : []),
        ],
  );
  return [header, ...body];
}
