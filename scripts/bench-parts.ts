// What one `npm run bench` measures, part by part: the parts BENCH_ONLY names, the baseline revision, the
// PostgreSQL probe, each target's req/s rows (in rounds beside the baseline), payments, cold starts and webhooks.
import os from 'node:os';
import { checkoutBaseline } from './bench-baseline.js';
import { type ColdStartRow, measureColdStarts } from './bench-cold-start.js';
import {
  checkInterrupted,
  CONNECTIONS,
  createBenchDatabase,
  DURATION_S,
  isInterrupted,
  message,
  onCleanup,
  PG_ADMIN_URL,
  PgUnreachable,
  root,
  ROUNDS,
  WARMUP_S,
} from './bench-lib.js';
import { PGLITE_SESSION_CONNECTIONS } from './bench-goals.js';
import { benchPayments, type PaymentRow } from './bench-payments.js';
import { benchWebhooks } from './bench-webhooks.js';
import { type RunningTarget, startNodeHttp, startPgFloor, startPgliteFloor, startPrismTarget, startTill, startTillOnPostgres } from './bench-targets.js';
import { autocannonVersion, measure, OPERATIONS, type Row, type TargetName } from './bench-load.js';

/** The parts a run measures (`BENCH_ONLY`, comma-separated); all by default. */
const PARTS = [
  'till-pglite',
  'till-postgres',
  'till-postgres-2',
  'till-postgres-metrics',
  'till-postgres-bare',
  'node-http',
  'pg-floor',
  // The pg floor recording every request as a request log does at the least (issue 34's reference).
  'pg-floor-logged',
  // The pg floor's statements served by an Express app: what Express itself costs a request (issue 37).
  'express-floor',
  // node:http and PGlite sending Till's statements: the reference for PGlite's req/s goals (issue 37).
  'pglite-floor',
  'prism',
  'payments',
  'cold-start',
  'webhooks',
  'invoices',
  'clock',
  // The dashboard's pages with 10,000 payments of one merchant (bench-dashboard.ts, issue 33).
  'dashboard',
] as const;
export type Part = (typeof PARTS)[number];
/** The parts whose selection alone does not probe PostgreSQL (the others need it probed first). */
const WITHOUT_POSTGRES: readonly Part[] = ['till-pglite', 'pglite-floor', 'node-http', 'prism'];
const ONLY = (() => {
  const raw = process.env.BENCH_ONLY;
  if (!raw) return undefined;
  const names = raw
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(PARTS as readonly string[]).includes(n));
  if (unknown.length) throw new Error(`BENCH_ONLY names ${unknown.join(', ')}; the parts are ${PARTS.join(', ')}.`);
  return new Set(names);
})();
/** A git revision to measure beside this checkout, in the same run (`BENCH_BASELINE`; see bench-baseline.ts). */
export const BASELINE_REVISION = process.env.BENCH_BASELINE || undefined;
/**
 * A git revision whose Till stands in for this checkout's in the till-pglite and till-postgres rows
 * (`BENCH_CANDIDATE`, with BENCH_BASELINE): two revisions compared by this checkout's bench, e.g.
 * a commit against its parent (tracing off: BENCH_CANDIDATE=e052eca BENCH_BASELINE=5e27fa0).
 */
export const CANDIDATE_REVISION = process.env.BENCH_CANDIDATE || undefined;
if (CANDIDATE_REVISION && !BASELINE_REVISION) throw new Error('BENCH_CANDIDATE is compared with BENCH_BASELINE: set both.');
/** The BENCH_ONLY part a target belongs to (a baseline row goes with this checkout's row). */
const partOf = (target: TargetName): Part => (target === 'baseline-pglite' ? 'till-pglite' : target === 'baseline-postgres' ? 'till-postgres' : target);
/** Whether this run measures a part. */
export const wanted = (part: Part) => !ONLY || ONLY.has(part);
/** Checks the baseline revision out, removed at the end like every other thing the bench makes. */
export async function prepareBaseline(revision: string) {
  const baseline = await checkoutBaseline(root, revision);
  return { ...baseline, remove: onCleanup(`remove the baseline worktree ${baseline.dir}`, baseline.remove) };
}

export type Baseline = Awaited<ReturnType<typeof prepareBaseline>>;
export type WebhookResult = Awaited<ReturnType<typeof benchWebhooks>>;
/** Why the PostgreSQL parts are not measured, when they are not. */
export type Unavailable = { status: 'skipped' | 'failed'; reason: string };

/** The PostgreSQL server's version, or why the PostgreSQL parts are skipped (or failed). */
async function probePostgres(): Promise<{ version?: string; unavailable?: Unavailable }> {
  try {
    const database = await createBenchDatabase();
    await database.drop(); // it answers: each PostgreSQL part gets a fresh database of its own
    return { version: database.serverVersion };
  } catch (error) {
    checkInterrupted();
    if (error instanceof PgUnreachable) {
      console.log(`bench: PostgreSQL unreachable at ${PG_ADMIN_URL} (${error.message}): skipping its parts`);
      return { unavailable: { status: 'skipped', reason: 'PostgreSQL unreachable' } };
    }
    console.log(`bench: could not create a bench database: ${message(error)}`);
    return { unavailable: { status: 'failed', reason: `could not create a bench database: ${message(error)}` } };
  }
}

/** Rows saying why a target was not measured, one per operation. */
function skipTarget(rows: Row[], target: TargetName, status: 'skipped' | 'failed', reason: string, round?: number): void {
  const done = new Set(rows.filter((r) => r.target === target && r.round === round).map((r) => r.operation));
  for (const operation of OPERATIONS) if (!done.has(operation)) rows.push({ target, operation, status, reason, ...(round ? { round } : {}) });
}

/** Starts a target, measures every operation, stops it. A target that fails is reported, not fatal. */
async function benchTarget(rows: Row[], name: TargetName, start: () => Promise<RunningTarget>, round?: number): Promise<void> {
  if (!wanted(partOf(name))) return skipTarget(rows, name, 'skipped', 'not in BENCH_ONLY');
  let target: RunningTarget | undefined;
  try {
    checkInterrupted();
    console.log(`bench: starting ${name}${round ? ` (round ${round} of ${ROUNDS})` : ''}...`);
    target = await start();
    for (const operation of OPERATIONS) rows.push({ ...(await measure(name, operation, target)), ...(round ? { round } : {}) });
    // PGlite's session goal is at 10 connections (issue 37): one more row, when the run's are not 10.
    if (name.includes('pglite') && CONNECTIONS !== PGLITE_SESSION_CONNECTIONS)
      rows.push({ ...(await measure(name, 'POST /v1/checkout-sessions', target, PGLITE_SESSION_CONNECTIONS)), ...(round ? { round } : {}) });
  } catch (error) {
    if (isInterrupted()) throw error;
    console.log(`\nbench: ${name} failed: ${message(error)}`);
    skipTarget(rows, name, 'failed', message(error).split('\n')[0] ?? '', round);
  } finally {
    await target?.stop();
  }
}

/** The req/s rows: Till on PGlite, on PostgreSQL with 1 and 2 processes (and the baseline's), node:http, Prism. */
export async function benchTargets(baseline: Baseline | undefined, postgres: { unavailable?: Unavailable }, candidate?: Baseline): Promise<Row[]> {
  const rows: Row[] = [];
  /** Each round of a Till target on one database, beside the baseline's; odd rounds this checkout first, even rounds the baseline first. */
  const rounds = async (ours: TargetName, theirs: TargetName, start: (cwd: string) => Promise<RunningTarget>) => {
    for (let round = 1; round <= ROUNDS; round++) {
      const pair: Array<[TargetName, string]> = [[ours, candidate?.dir ?? root], ...(baseline ? [[theirs, baseline.dir] as [TargetName, string]] : [])];
      for (const [name, cwd] of round % 2 === 1 ? pair : pair.reverse()) await benchTarget(rows, name, () => start(cwd), ROUNDS > 1 ? round : undefined);
    }
  };
  await rounds('till-pglite', 'baseline-pglite', (cwd) => startTill(undefined, cwd));
  await benchTarget(rows, 'pglite-floor', startPgliteFloor);
  const { unavailable } = postgres;
  if (unavailable) {
    for (const name of [
      'till-postgres',
      'till-postgres-2',
      'till-postgres-metrics',
      'till-postgres-bare',
      'pg-floor',
      'pg-floor-logged',
      'express-floor',
    ] as const)
      skipTarget(rows, name, wanted(name) ? unavailable.status : 'skipped', wanted(name) ? unavailable.reason : 'not in BENCH_ONLY');
  } else {
    await rounds('till-postgres', 'baseline-postgres', (cwd) => startTillOnPostgres(cwd));
    await benchTarget(rows, 'till-postgres-2', () => startTillOnPostgres(root, { TILL_WORKERS: '2' }));
    // Beside till-postgres: the same server with its metrics on (every request measured, process metrics
    // collected), and without either (no request log, no metrics); what the two cost is the gap between
    // these rows, measured in turn round by round (odd rounds metrics first, even rounds bare first).
    const observed: Array<[TargetName, NodeJS.ProcessEnv]> = [
      ['till-postgres-metrics', { TILL_METRICS_TOKEN: 'bench-metrics-token-0123456789' }],
      ['till-postgres-bare', { TILL_REQUEST_LOGS: 'off' }],
    ];
    for (let round = 1; round <= ROUNDS; round++) {
      for (const [name, env] of round % 2 === 1 ? observed : [...observed].reverse())
        await benchTarget(rows, name, () => startTillOnPostgres(root, env), ROUNDS > 1 ? round : undefined);
    }
  }
  await benchTarget(rows, 'node-http', startNodeHttp);
  if (!unavailable) await floorRounds(rows);
  if (!unavailable) await benchTarget(rows, 'express-floor', () => startPgFloor({ FLOOR_EXPRESS: '1' }));
  await benchTarget(rows, 'prism', startPrismTarget);
  return rows;
}

/**
 * The pg floor, and beside it (with pg-floor-logged) the floor writing a request log row per request,
 * in turn round by round as the metrics pair: what a request log costs whoever writes it. Without
 * pg-floor-logged, the floor once, as before.
 */
async function floorRounds(rows: Row[]): Promise<void> {
  if (!wanted('pg-floor-logged')) return benchTarget(rows, 'pg-floor', () => startPgFloor());
  const pair: Array<[TargetName, NodeJS.ProcessEnv]> = [
    ['pg-floor', {}],
    ['pg-floor-logged', { FLOOR_REQUEST_LOG: '1' }],
  ];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [name, env] of round % 2 === 1 ? pair : [...pair].reverse())
      await benchTarget(rows, name, () => startPgFloor(env), ROUNDS > 1 ? round : undefined);
  }
}

/**
 * Full card payments on till-postgres (and till-postgres-2 when that part runs too). With a
 * baseline, `baseline-postgres` beside till-postgres in BENCH_ROUNDS rounds, the order alternating
 * as the req/s rows' (odd rounds this checkout first).
 */
export async function benchPaymentsPart(postgres: { unavailable?: Unavailable }, baseline?: Baseline): Promise<PaymentRow[]> {
  if (!wanted('payments')) return [{ target: 'till-postgres', status: 'skipped', reason: 'not in BENCH_ONLY' }];
  if (postgres.unavailable) return [{ target: 'till-postgres', ...postgres.unavailable }];
  type Run = { target: PaymentRow['target']; workers: number; cwd: string; round?: number };
  const runs: Run[] = [];
  const pair: Run[] = [
    { target: 'till-postgres', workers: 1, cwd: root },
    ...(baseline ? [{ target: 'baseline-postgres' as const, workers: 1, cwd: baseline.dir }] : []),
  ];
  const rounds = baseline ? ROUNDS : 1;
  for (let round = 1; round <= rounds; round++)
    runs.push(...(round % 2 === 1 ? pair : [...pair].reverse()).map((run) => ({ ...run, ...(rounds > 1 ? { round } : {}) })));
  if (wanted('till-postgres-2')) runs.push({ target: 'till-postgres-2', workers: 2, cwd: root });
  const rows: PaymentRow[] = [];
  for (const { target, workers, cwd, round } of runs) {
    try {
      checkInterrupted();
      rows.push({ ...(await benchPayments(target, workers, cwd)), ...(round ? { round } : {}) });
    } catch (error) {
      if (isInterrupted()) throw error;
      console.log(`\nbench: payments on ${target} failed: ${message(error)}`);
      rows.push({ target, status: 'failed', reason: message(error).split('\n')[0] ?? '' });
    }
  }
  return rows;
}

/** Cold `npm start` to the first 200, on PostgreSQL and on PGlite, and the PGlite floor's start. */
export async function benchColdStartPart(postgres: { unavailable?: Unavailable }): Promise<ColdStartRow[]> {
  if (!wanted('cold-start')) return (['postgres', 'pglite'] as const).map((database) => ({ database, status: 'skipped', reason: 'not in BENCH_ONLY' }));
  const rows: ColdStartRow[] = [];
  // The floor right after PGlite, on the same warm machine: the reference for PGlite's start goals;
  // then the floor started by npm, as `npm start` starts Till (npm's own time, measured beside it).
  for (const database of ['postgres', 'pglite', 'pglite-floor', 'pglite-npm-floor'] as const) {
    if (database === 'postgres' && postgres.unavailable) {
      rows.push({ database, ...postgres.unavailable });
      continue;
    }
    try {
      checkInterrupted();
      rows.push(await measureColdStarts(database));
    } catch (error) {
      if (isInterrupted()) throw error;
      console.log(`bench: cold start on ${database} failed: ${message(error)}`);
      rows.push({ database, status: 'failed', reason: message(error).split('\n')[0] ?? '' });
    }
  }
  return rows;
}

/** The webhook case, for this checkout and the baseline. */
export async function benchWebhooksPart(baseline: Baseline | undefined): Promise<WebhookResult> {
  checkInterrupted();
  if (!wanted('webhooks')) {
    return {
      rows: (['API state changes', 'outbox writes'] as const).map((c) => ({
        target: 'till-postgres' as const,
        case: c,
        status: 'skipped' as const,
        reason: 'not in BENCH_ONLY',
      })),
      unexpected: 0,
      badRequests: 0,
    };
  }
  const webhooks = await benchWebhooks();
  if (baseline) {
    const before = await benchWebhooks('baseline-postgres', baseline.dir);
    webhooks.rows.push(...before.rows);
    webhooks.unexpected += before.unexpected;
    webhooks.badRequests += before.badRequests;
  }
  return webhooks;
}
/** Node, the machine, autocannon and (when a PostgreSQL part runs and it answers) the PostgreSQL server. */
export async function describeEnvironment() {
  const postgres = PARTS.some((part) => !WITHOUT_POSTGRES.includes(part) && wanted(part))
    ? await probePostgres()
    : { unavailable: { status: 'skipped' as const, reason: 'not in BENCH_ONLY' } };
  const environment = {
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    autocannon: autocannonVersion,
    postgres: postgres.version,
  };
  console.log(
    `bench: node ${environment.node}, PostgreSQL ${environment.postgres ?? `n/a (${postgres.unavailable?.reason})`}, ${environment.cpus} CPUs (${environment.cpuModel}), ${environment.platform}, autocannon ${environment.autocannon}`,
  );
  console.log(`bench: ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s per target and operation`);
  return { ...environment, unavailable: postgres.unavailable };
}
