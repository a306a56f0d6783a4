#!/usr/bin/env tsx
/**
 * `npm run bench`: Till's throughput and latency, beside two reference points, and the
 * performance issue's goals judged on them, all in one run.
 *
 * One run measures three operations of the Checkout & Billing interface (bearer secret key):
 *
 *   read     GET  /v1/plans/{id}           one plan, by id
 *   write    POST /v1/customers            a new customer; every request sends a new email, so each
 *                                          one really inserts a row (201) instead of matching one (200)
 *   session  POST /v1/checkout-sessions    {amount: 25, currency: 'USD', mode: 'embedded',
 *                                          paymentType: 'oneTime'} with a new Idempotency-Key per
 *                                          request: a transaction, the key and an event (201)
 *
 * against these targets, one after the other, each in its own child process so that it never
 * shares an event loop with autocannon (the load generator, which runs in this process):
 *
 *   till-pglite       Till from the compiled build (`node scripts/build.mjs` once, then
 *                     `node dist/server/main.js`; NODE_ENV=production) on the embedded PGlite, fresh data dir
 *   till-postgres     Till on the PostgreSQL server, in a fresh database `till_bench_<timestamp>`
 *                     (skipped, and said so, when PostgreSQL is unreachable)
 *   till-postgres-2   the same with TILL_WORKERS=2: two worker processes on one port
 *   node-http         a bare `node:http` server answering Till's own plan JSON for GET, and Till's
 *                     201 customer or checkout session JSON for the POSTs: the ceiling of Node itself
 *   pg-floor          bare `node:http` and node-postgres sending Till's own statements for each
 *                     operation, in the same round trips, on a database Till migrated
 *                     (bench-floor-server.mjs): the ceiling of this machine for the same database work
 *   prism             the Prism mock of the contract (`scripts/mock.mjs`), validating every request
 *
 * It prints req/s, p50 and p99 latency and non-2xx counts per target and operation, with req/s
 * ratios to node-http and to Prism. Then (bench-payments.ts) full card payments on till-postgres:
 * BENCH_CONNECTIONS loops create a session, tokenize 4242424242424242 and confirm it, reported as
 * payments/s and the p50/p99 of a whole payment; and (bench-cold-start.ts) cold starts: `npm start`
 * with a fresh data dir (and database) to the first 200 of GET /v1/plans, the median of
 * BENCH_COLD_START_RUNS runs, on PostgreSQL and PGlite.
 *
 * Then the webhook case (bench-webhooks.ts), on PostgreSQL only: Till with NODE_ENV=development and
 * TILL_ALLOW_LOOPBACK_WEBHOOKS=true, one endpoint subscribed to every event, and an HTTPS receiver
 * in its own process. Two cases, each writing events for 1 s warm-up + BENCH_DURATION s and then
 * waiting (at most BENCH_WEBHOOK_DRAIN s) until every event it wrote has arrived:
 *
 *   API state changes   BENCH_CONNECTIONS loops of full card payments (payment.succeeded and
 *                       checkout.session.completed per confirm), as fast as the API answers
 *   outbox writes       BENCH_WEBHOOK_RATE events a second inserted into the events table (the
 *                       outbox) one per statement, as writeEvent writes them
 *
 * measuring delivered events/s, the latency from each event's `created` to its receipt, the events
 * missing or duplicated, and the CPU used by each process. Goals: >= 500 events/s, p99 <= 1 s.
 *
 * Then the invoice list (bench-invoices.ts), on PostgreSQL only: `GET /v1/invoice` over
 * BENCH_INVOICES (1,000,000) seeded invoices at 1 connection, a filtered page (goal p50 ≤ 5 ms) and
 * `$count=true` over all (goal p50 ≤ 200 ms); the page at BENCH_INVOICE_CONNECTIONS (4), and both
 * statements alone, reported beside them with their EXPLAIN (ANALYZE, BUFFERS).
 *
 * Last, the issue's goals (bench-goals.ts), each printed with ✓ or ✗ and its ratio, e.g.
 * "GET one plan ≥ 3× Prism: 4,210 vs 1,402 req/s = 3.00× ✓".
 *
 * It writes out/bench/results.json and out/bench/results.md (tables and goals). It exits non-zero
 * when a part could not be measured, when more than 1% of the responses (or payments) of any Till
 * row failed, or when a webhook case lost or duplicated an event; sample error answers are
 * printed. Missing a goal is reported, not a failure.
 *
 * Settings (environment):
 *   BENCH_DURATION          seconds measured per target and operation, for payments, and per
 *                           webhook case (default 5); plus 1 s warm-up
 *   BENCH_CONNECTIONS       concurrent connections, and payment loops (default 50)
 *   BENCH_PG_URL            PostgreSQL admin URL (default postgres://postgres@127.0.0.1:5432/postgres)
 *   BENCH_COLD_START_RUNS   cold starts per database (default 3)
 *   BENCH_WEBHOOK_RATE      events a second written by the outbox case (default 600)
 *   BENCH_WEBHOOK_DRAIN     seconds to wait for the last deliveries of a webhook case (default 60)
 *   BENCH_ONLY              the parts to run, comma-separated: till-pglite, till-postgres,
 *                           till-postgres-2, node-http, pg-floor, prism, payments, cold-start, webhooks,
 *                           invoices
 *                           (default all)
 *   BENCH_BASELINE          a git revision (e.g. main, HEAD~3): Till at that revision is measured
 *                           too, in turn with this checkout's Till on each database (rows
 *                           baseline-pglite, baseline-postgres, and a ×baseline ratio); a revision
 *                           without scripts/build.mjs runs `node --import tsx server/main.ts`
 *   BENCH_ROUNDS            rounds of each Till target (default 1); with BENCH_BASELINE the order
 *                           alternates (odd rounds this checkout first), and the totals over all
 *                           rounds are compared, so neither side always runs on a warmer machine
 *   BENCH_INVOICES          invoices seeded for the invoice list (default 1,000,000)
 *   BENCH_INVOICE_RUNS      page requests timed at 1 connection (default 300; 20 untimed first)
 *   BENCH_INVOICE_COUNT_RUNS  `$count=true` requests timed (default 20; 2 untimed first)
 *   BENCH_INVOICE_CONNECTIONS  connections of the invoice page's concurrent row (default 4)
 *
 * Every child process, temp dir and database this script creates is removed at the end, on an
 * error, and on Ctrl+C.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { checkoutBaseline } from './bench-baseline.js';
import { COLD_START_RUNS, type ColdStartRow, coldStartCells, measureColdStarts } from './bench-cold-start.js';
import { evaluateGoals, type Goal, goalCells, goalLines } from './bench-goals.js';
import {
  checkInterrupted,
  cleanupAll,
  CONNECTIONS,
  consoleTable,
  createBenchDatabase,
  DURATION_S,
  fmt,
  isInterrupted,
  type LatencySummary,
  latencySummary,
  markdownTable,
  message,
  onCleanup,
  outDir,
  PG_ADMIN_URL,
  PgUnreachable,
  root,
  ROUNDS,
  setCurrentLoad,
  WARMUP_S,
} from './bench-lib.js';
import { benchPayments, paymentCells, type PaymentRow, SESSION_BODY } from './bench-payments.js';
import { benchInvoices, type InvoiceBenchResult, invoiceCells, invoiceGoals, invoiceMarkdown, invoiceNotes } from './bench-invoices.js';
import { benchWebhooks, WEBHOOK_DRAIN_S, WEBHOOK_GOALS, WEBHOOK_RATE, webhookCells } from './bench-webhooks.js';
import { type RunningTarget, runTag, startNodeHttp, startPgFloor, startPrismTarget, startTill, startTillOnPostgres } from './bench-targets.js';

/** The parts a run measures (`BENCH_ONLY`, comma-separated); all by default. */
const PARTS = ['till-pglite', 'till-postgres', 'till-postgres-2', 'node-http', 'pg-floor', 'prism', 'payments', 'cold-start', 'webhooks', 'invoices'] as const;
type Part = (typeof PARTS)[number];
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
const BASELINE_REVISION = process.env.BENCH_BASELINE || undefined;
/** The BENCH_ONLY part a target belongs to (a baseline row goes with this checkout's row). */
const partOf = (target: TargetName): Part => (target === 'baseline-pglite' ? 'till-pglite' : target === 'baseline-postgres' ? 'till-postgres' : target);
/** Whether this run measures a part. */
const wanted = (part: Part) => !ONLY || ONLY.has(part);
/** A Till row fails the run when more than this share of its responses are non-2xx or errors. */
const MAX_ERROR_SHARE = 0.01;

// ---------------------------------------------------------------------------------------------
// autocannon: it ships no type declarations, so the part of its API used here is typed below.
// ---------------------------------------------------------------------------------------------

/** One request of an autocannon run (`requests: [...]`). */
interface LoadRequest {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Called before every request; returns the request to send. */
  setupRequest?: (request: LoadRequest) => LoadRequest;
  /** Called with every response. */
  onResponse?: (status: number, body: string) => void;
}

interface LoadOptions {
  url: string;
  connections: number;
  /** Seconds. */
  duration: number;
  /** Per-request timeout, seconds. */
  timeout: number;
  requests: LoadRequest[];
}

/** An hdr-histogram summary (latency in ms, requests in req/s per 1 s sample). */
interface Histogram {
  average: number;
  stddev: number;
  min: number;
  max: number;
  total: number;
  p50: number;
  p90: number;
  p99: number;
}

interface LoadResult {
  requests: Histogram & { sent: number };
  latency: Histogram;
  /** Seconds. */
  duration: number;
  /** Connection errors, timeouts included. */
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats: Record<string, { count: number }>;
}

interface LoadInstance {
  stop(): void;
  on(event: 'reqError', listener: (error: Error) => void): void;
  /** Every response; `responseTime` in ms, with sub-millisecond precision. */
  on(event: 'response', listener: (client: unknown, statusCode: number, resBytes: number, responseTime: number) => void): void;
}

type Autocannon = (options: LoadOptions, done: (error: Error | null, result: LoadResult) => void) => LoadInstance;

// autocannon is CommonJS; `require` gives the typed function without a declaration file.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
const autocannonVersion = (createRequire(import.meta.url)('autocannon/package.json') as { version: string }).version;

// ---------------------------------------------------------------------------------------------
// The operations and the load runner
// ---------------------------------------------------------------------------------------------

type OperationName = 'GET /v1/plans/{id}' | 'POST /v1/customers' | 'POST /v1/checkout-sessions';
const OPERATIONS: OperationName[] = ['GET /v1/plans/{id}', 'POST /v1/customers', 'POST /v1/checkout-sessions'];

/** Counters that make every email and Idempotency-Key of this run unique (with runTag). */
let emailSeq = 0;
let keySeq = 0;

/** The autocannon request of an operation against a target. */
function loadRequest(operation: OperationName, target: RunningTarget, onResponse: (status: number, body: string) => void): LoadRequest {
  if (operation === 'GET /v1/plans/{id}') {
    return { method: 'GET', path: `/v1/plans/${target.planId}`, headers: target.headers, onResponse };
  }
  if (operation === 'POST /v1/checkout-sessions') {
    return {
      method: 'POST',
      path: '/v1/checkout-sessions',
      headers: { ...target.headers, 'Content-Type': 'application/json' },
      body: JSON.stringify(SESSION_BODY),
      setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'Idempotency-Key': `bench-${runTag}-${++keySeq}` } }),
      onResponse,
    };
  }
  return {
    method: 'POST',
    path: '/v1/customers',
    headers: { ...target.headers, 'Content-Type': 'application/json' },
    setupRequest: (request) => ({ ...request, body: JSON.stringify({ email: `bench-${runTag}-${++emailSeq}@example.com`, name: 'Bench' }) }),
    onResponse,
  };
}

/** One measured row of the report. */
interface Row {
  target: TargetName;
  operation: OperationName;
  status: 'ok' | 'skipped' | 'failed';
  /** Why it was skipped or failed. */
  reason?: string;
  reqPerSec?: number;
  latencyMs?: LatencySummary;
  responses?: number;
  non2xx?: number;
  /** Connection errors and timeouts. */
  errors?: number;
  statusCodes?: Record<string, number>;
  /** A few non-2xx answers and connection errors, to see what went wrong. */
  sampleErrors?: string[];
  vsNodeHttp?: number;
  vsPrism?: number;
  /** req/s over the same target's at BENCH_BASELINE, in the same round. */
  vsBaseline?: number;
  /** Which round (BENCH_ROUNDS > 1). */
  round?: number;
}

/**
 * Runs autocannon once; collects every response time (autocannon's own latency histogram has a
 * 1 ms resolution, too coarse for the bare node:http server) and the first few non-2xx answers
 * and connection errors.
 */
function runLoad(
  url: string,
  request: (onResponse: (status: number, body: string) => void) => LoadRequest,
  durationS: number,
): Promise<{ result: LoadResult; times: number[]; samples: string[] }> {
  const samples: string[] = [];
  const times: number[] = [];
  const seen = new Set<string>();
  /** Keeps up to 3 distinct errors (the request id in Till's error body does not count). */
  const sample = (text: string) => {
    const key = text.replace(/req_[0-9a-f]+/g, 'req_…');
    if (samples.length < 3 && !seen.has(key)) {
      seen.add(key);
      samples.push(text);
    }
  };
  const onResponse = (status: number, body: string) => {
    if (status < 200 || status > 299) sample(`${status} ${body.slice(0, 300)}`);
  };
  return new Promise((resolve, reject) => {
    const instance = autocannon({ url, connections: CONNECTIONS, duration: durationS, timeout: 10, requests: [request(onResponse)] }, (error, result) => {
      setCurrentLoad(undefined);
      if (error) reject(error);
      else resolve({ result, times, samples });
    });
    instance.on('response', (_client, _status, _bytes, responseTime) => {
      times.push(responseTime);
    });
    instance.on('reqError', (error) => sample(`connection error: ${error.message}`));
    setCurrentLoad(instance);
  });
}

/** Warms up for 1 s, then measures one operation against one target. */
async function measure(name: TargetName, operation: OperationName, target: RunningTarget): Promise<Row> {
  process.stdout.write(`bench: ${name.padEnd(15)} ${operation.padEnd(26)} ... ${WARMUP_S} s warm-up + ${DURATION_S} s`);
  const request = (onResponse: (status: number, body: string) => void) => loadRequest(operation, target, onResponse);
  checkInterrupted();
  await runLoad(target.url, request, WARMUP_S);
  checkInterrupted();
  const { result, times, samples } = await runLoad(target.url, request, DURATION_S);
  checkInterrupted();
  const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]));
  const row: Row = {
    target: name,
    operation,
    status: 'ok',
    reqPerSec: result.requests.average,
    latencyMs: latencySummary(times),
    responses: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    statusCodes,
    sampleErrors: samples,
  };
  const bad = row.non2xx! + row.errors!;
  console.log(
    `  → ${fmt(row.reqPerSec!, 0)} req/s, p50 ${fmt(row.latencyMs!.p50, 2)} ms, p99 ${fmt(row.latencyMs!.p99, 2)} ms${bad ? `, ${row.non2xx} non-2xx, ${row.errors} errors` : ''}`,
  );
  return row;
}

// ---------------------------------------------------------------------------------------------
// Targets
// ---------------------------------------------------------------------------------------------

type TargetName = 'till-pglite' | 'baseline-pglite' | 'till-postgres' | 'baseline-postgres' | 'till-postgres-2' | 'node-http' | 'pg-floor' | 'prism';
/** The baseline row each Till row is compared with (BENCH_BASELINE). */
const BASELINE_OF: Partial<Record<TargetName, TargetName>> = { 'till-pglite': 'baseline-pglite', 'till-postgres': 'baseline-postgres' };

/**
 * The report as rows of strings, for the console and the Markdown table alike. A row that was
 * not measured has three cells: target, operation, and why.
 */
function tableCells(rows: Row[]): string[][] {
  const withBaseline = rows.some((r) => r.target.startsWith('baseline-'));
  const header = ['target', 'operation', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', '×node:http', '×prism', ...(withBaseline ? ['×baseline'] : [])];
  // Two decimals, or two significant digits below 0.1 (0.0054×, not 0.01×).
  const ratio = (x: number | undefined) => (x === undefined ? 'n/a' : `${x >= 0.1 ? fmt(x, 2) : x.toPrecision(2)}×`);
  const body = rows.map((r) => {
    if (r.status !== 'ok' || !r.latencyMs) return [`${r.target}${r.round ? ` #${r.round}` : ''}`, r.operation, `${r.status}: ${r.reason ?? ''}`];
    const non2xx = `${r.non2xx ?? 0}${r.errors ? ` (+${r.errors} errors)` : ''}`;
    const cells = [
      `${r.target}${r.round ? ` #${r.round}` : ''}`,
      r.operation,
      fmt(r.reqPerSec ?? 0, 0),
      fmt(r.latencyMs.p50, 2),
      fmt(r.latencyMs.p99, 2),
      non2xx,
      ratio(r.vsNodeHttp),
      ratio(r.vsPrism),
    ];
    return withBaseline ? [...cells, BASELINE_OF[r.target] ? ratio(r.vsBaseline) : ''] : cells;
  });
  return [header, ...body];
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

/** Over every round: each Till target's total req/s over its baseline's, per operation. */
function overallVsBaseline(rows: Row[]): string[] {
  const total = (target: TargetName, operation: OperationName) =>
    rows.filter((r) => r.target === target && r.operation === operation && r.status === 'ok').reduce((sum, r) => sum + (r.reqPerSec ?? 0), 0);
  return Object.entries(BASELINE_OF).flatMap(([ours, theirs]) =>
    OPERATIONS.flatMap((operation) => {
      const before = total(theirs, operation);
      return before > 0 ? [`  all rounds, ${ours} ${operation}: ${fmt(total(ours as TargetName, operation) / before, 2)}× the baseline`] : [];
    }),
  );
}

/** Checks the baseline revision out, removed at the end like every other thing the bench makes. */
async function prepareBaseline(revision: string) {
  const baseline = await checkoutBaseline(root, revision);
  return { ...baseline, remove: onCleanup(`remove the baseline worktree ${baseline.dir}`, baseline.remove) };
}

type Baseline = Awaited<ReturnType<typeof prepareBaseline>>;
type WebhookResult = Awaited<ReturnType<typeof benchWebhooks>>;
/** Why the PostgreSQL parts are not measured, when they are not. */
type Unavailable = { status: 'skipped' | 'failed'; reason: string };

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
  } catch (error) {
    if (isInterrupted()) throw error;
    console.log(`\nbench: ${name} failed: ${message(error)}`);
    skipTarget(rows, name, 'failed', message(error).split('\n')[0] ?? '', round);
  } finally {
    await target?.stop();
  }
}

/** The req/s rows: Till on PGlite, on PostgreSQL with 1 and 2 processes (and the baseline's), node:http, Prism. */
async function benchTargets(baseline: Baseline | undefined, postgres: { unavailable?: Unavailable }): Promise<Row[]> {
  const rows: Row[] = [];
  /** Each round of a Till target on one database, beside the baseline's; odd rounds this checkout first, even rounds the baseline first. */
  const rounds = async (ours: TargetName, theirs: TargetName, start: (cwd: string) => Promise<RunningTarget>) => {
    for (let round = 1; round <= ROUNDS; round++) {
      const pair: Array<[TargetName, string]> = [[ours, root], ...(baseline ? [[theirs, baseline.dir] as [TargetName, string]] : [])];
      for (const [name, cwd] of round % 2 === 1 ? pair : pair.reverse()) await benchTarget(rows, name, () => start(cwd), ROUNDS > 1 ? round : undefined);
    }
  };
  await rounds('till-pglite', 'baseline-pglite', (cwd) => startTill(undefined, cwd));
  const { unavailable } = postgres;
  if (unavailable) {
    for (const name of ['till-postgres', 'till-postgres-2', 'pg-floor'] as const)
      skipTarget(rows, name, wanted(name) ? unavailable.status : 'skipped', wanted(name) ? unavailable.reason : 'not in BENCH_ONLY');
  } else {
    await rounds('till-postgres', 'baseline-postgres', (cwd) => startTillOnPostgres(cwd));
    await benchTarget(rows, 'till-postgres-2', () => startTillOnPostgres(root, { TILL_WORKERS: '2' }));
  }
  await benchTarget(rows, 'node-http', startNodeHttp);
  if (!unavailable) await benchTarget(rows, 'pg-floor', startPgFloor);
  await benchTarget(rows, 'prism', startPrismTarget);
  return rows;
}

/** Full card payments on till-postgres (and till-postgres-2 when that part runs too). */
async function benchPaymentsPart(postgres: { unavailable?: Unavailable }): Promise<PaymentRow[]> {
  if (!wanted('payments')) return [{ target: 'till-postgres', status: 'skipped', reason: 'not in BENCH_ONLY' }];
  if (postgres.unavailable) return [{ target: 'till-postgres', ...postgres.unavailable }];
  const rows: PaymentRow[] = [];
  const targets: Array<[PaymentRow['target'], number]> = [
    ['till-postgres', 1],
    ...(wanted('till-postgres-2') ? [['till-postgres-2', 2] as [PaymentRow['target'], number]] : []),
  ];
  for (const [target, workers] of targets) {
    try {
      checkInterrupted();
      rows.push(await benchPayments(target, workers));
    } catch (error) {
      if (isInterrupted()) throw error;
      console.log(`\nbench: payments on ${target} failed: ${message(error)}`);
      rows.push({ target, status: 'failed', reason: message(error).split('\n')[0] ?? '' });
    }
  }
  return rows;
}

/** Cold `npm start` to the first 200, on PostgreSQL and on PGlite. */
async function benchColdStartPart(postgres: { unavailable?: Unavailable }): Promise<ColdStartRow[]> {
  if (!wanted('cold-start')) return (['postgres', 'pglite'] as const).map((database) => ({ database, status: 'skipped', reason: 'not in BENCH_ONLY' }));
  const rows: ColdStartRow[] = [];
  for (const database of ['postgres', 'pglite'] as const) {
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
async function benchWebhooksPart(baseline: Baseline | undefined): Promise<WebhookResult> {
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

/** Ratios of req/s to the two references (and to the baseline), per operation. */
function addRatios(rows: Row[]): void {
  for (const row of rows) {
    if (row.status !== 'ok') continue;
    const ref = (target: TargetName) => rows.find((r) => r.target === target && r.operation === row.operation && r.status === 'ok')?.reqPerSec;
    const nodeHttp = ref('node-http');
    const prism = ref('prism');
    const before =
      BASELINE_OF[row.target] &&
      rows.find((r) => r.target === BASELINE_OF[row.target] && r.operation === row.operation && r.round === row.round && r.status === 'ok')?.reqPerSec;
    if (nodeHttp) row.vsNodeHttp = row.reqPerSec! / nodeHttp;
    if (prism) row.vsPrism = row.reqPerSec! / prism;
    if (before) row.vsBaseline = row.reqPerSec! / before;
  }
}

/** Everything one run measured. */
interface Report {
  environment: Awaited<ReturnType<typeof describeEnvironment>>;
  baseline: Baseline | undefined;
  rows: Row[];
  payments: PaymentRow[];
  coldStarts: ColdStartRow[];
  webhooks: WebhookResult;
  invoices: InvoiceBenchResult;
  goals: Goal[];
}

/** Problems with the req/s rows: a target not measured, or too many non-2xx answers from Till. */
function rowProblems(rows: Row[]): string[] {
  const problems: string[] = [];
  for (const row of rows) {
    if (row.status === 'failed') problems.push(`${row.target} ${row.operation}: ${row.reason}`);
    if (row.status !== 'ok') continue;
    const bad = row.non2xx! + row.errors!;
    const share = bad / Math.max(1, row.responses! + row.errors!);
    if (bad > 0) {
      console.log(
        `\nbench: ${row.target} ${row.operation}: ${row.non2xx} non-2xx, ${row.errors} connection errors (${fmt(share * 100, 2)}%); status codes ${JSON.stringify(row.statusCodes)}; samples:`,
      );
      for (const sample of row.sampleErrors ?? []) console.log(`  ${sample}`);
    }
    if (!['node-http', 'prism'].includes(row.target) && share > MAX_ERROR_SHARE)
      problems.push(`${row.target} ${row.operation}: ${fmt(share * 100, 2)}% of responses non-2xx or errors (limit ${MAX_ERROR_SHARE * 100}%)`);
    if (row.target.startsWith('till-') && row.operation === 'POST /v1/customers' && (row.statusCodes?.['200'] ?? 0) > 0) {
      problems.push(
        `${row.target} POST /v1/customers: ${row.statusCodes?.['200']} answers were 200 (existing customer) instead of 201 (created): the emails were not unique`,
      );
    }
  }
  return problems;
}

/** Problems with payments and cold starts: not measured, or too many failed payments. */
function paymentAndStartProblems(payments: PaymentRow[], coldStarts: ColdStartRow[]): string[] {
  const problems: string[] = [];
  for (const row of payments) {
    if (row.status === 'failed') problems.push(`payments ${row.target}: ${row.reason}`);
    if (row.status !== 'ok' || !row.failed) continue;
    const share = row.failed / Math.max(1, row.failed + row.payments!);
    console.log(`\nbench: payments ${row.target}: ${row.failed} failed (${fmt(share * 100, 2)}%), e.g. ${row.sampleErrors?.[0] ?? '?'}`);
    if (share > MAX_ERROR_SHARE)
      problems.push(`payments ${row.target}: ${row.failed} payments failed (${fmt(share * 100, 2)}%, limit ${MAX_ERROR_SHARE * 100}%)`);
  }
  for (const row of coldStarts) if (row.status === 'failed') problems.push(`cold start ${row.database}: ${row.reason}`);
  return problems;
}

/** Problems with the webhook case: not measured, events lost or duplicated, writes failed. */
function webhookProblems(webhooks: WebhookResult): string[] {
  const problems: string[] = [];
  for (const row of webhooks.rows) {
    const name = `webhooks ${row.case}`;
    if (row.status === 'failed') problems.push(`${name}: ${row.reason}`);
    if (row.status !== 'ok') continue;
    if (row.missing)
      problems.push(`${name}: ${row.missing} of ${row.events} events had not reached the receiver ${WEBHOOK_DRAIN_S} s after the writes stopped`);
    if (row.duplicates) problems.push(`${name}: ${row.duplicates} events reached the receiver more than once`);
    const share = (row.failedWrites ?? 0) / Math.max(1, (row.failedWrites ?? 0) + (row.events ?? 0));
    if (share > MAX_ERROR_SHARE) problems.push(`${name}: ${row.failedWrites} writes failed (${fmt(share * 100, 2)}%), e.g. ${row.sampleErrors?.[0] ?? '?'}`);
    else if (row.failedWrites) console.log(`\nbench: ${name}: ${row.failedWrites} writes failed, e.g. ${row.sampleErrors?.[0] ?? '?'}`);
  }
  if (webhooks.unexpected) problems.push(`webhooks: ${webhooks.unexpected} events received that the database does not hold`);
  if (webhooks.badRequests) problems.push(`webhooks: ${webhooks.badRequests} requests to the receiver were not event envelopes`);
  return problems;
}

/** Prints the tables and the goals. */
function printReport({ rows, payments, coldStarts, webhooks, invoices, goals, baseline }: Report): void {
  console.log(`\n${consoleTable(tableCells(rows))}\n`);
  console.log('×node:http and ×prism: req/s of the row divided by req/s of that reference for the same operation.');
  if (baseline)
    console.log(
      `×baseline: req/s of the row divided by the same target's at ${baseline.revision} (${baseline.commit}) in the same round.${ROUNDS > 1 ? `\n${overallVsBaseline(rows).join('\n')}` : ''}`,
    );
  console.log(`\n${consoleTable(paymentCells(payments))}\n`);
  console.log(`Full card payment: create a checkout session, tokenize 4242424242424242, confirm; ${CONNECTIONS} loops; latency of the whole payment.`);
  console.log(`\n${consoleTable(coldStartCells(coldStarts))}\n`);
  console.log('Cold start: `npm start` (dist/ built) with a fresh data dir and database, to the first 200 of GET /v1/plans.');
  console.log(`\n${consoleTable(webhookCells(webhooks.rows))}\n`);
  console.log(
    `Webhooks: written/s and delivered/s (distinct events first received) in the measured window; latency from the event's created to its receipt; missing and dup over every event of the case after the drain. Goals: ≥ ${WEBHOOK_GOALS.eventsPerSec} events/s, p99 ≤ ${WEBHOOK_GOALS.p99Ms} ms; n/a: fewer events were written than the goal, so it cannot be judged.`,
  );
  console.log(`\n${consoleTable(invoiceCells(invoices))}\n`);
  for (const note of invoiceNotes(invoices)) console.log(note);
  console.log(
    `\nGoals (PostgreSQL ${baseline ? 'rows of this checkout, ' : ''}at ${CONNECTIONS} connections; ✓ met, ✗ missed, n/a not measured, · reported without a goal):\n`,
  );
  for (const line of goalLines(goals)) console.log(`  ${line}`);
}

/** The Markdown report's description of the targets and operations. */
function markdownIntro({ environment, baseline, rows }: Report, generatedAt: string): string[] {
  return [
    '# Till benchmark',
    '',
    `${generatedAt} · node ${environment.node} · ${environment.cpus} CPUs (${environment.cpuModel}) · ${environment.platform} · PostgreSQL ${environment.postgres ?? 'n/a'} · autocannon ${environment.autocannon}, ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s per row`,
    '',
    'Targets, each a separate process on this machine, loaded one at a time by autocannon from the bench process:',
    '',
    '- **till-pglite**: Till from the compiled build (`node dist/server/main.js`, `NODE_ENV=production`, so no response validation; rate limits scaled ×1000) on the embedded PGlite, fresh data directory.',
    '- **till-postgres**: the same, on the PostgreSQL server, in a fresh database dropped afterwards.',
    '- **till-postgres-2**: the same with `TILL_WORKERS=2` (two worker processes on one port).',
    "- **node-http**: a bare `node:http` server answering Till's plan JSON for GET and Till's 201 customer or checkout session JSON for the POSTs: what Node alone can do here.",
    "- **pg-floor**: bare `node:http` and node-postgres sending Till's own statements for each operation in the same round trips (pipelined, prepared; the session's claim, begin and insert, mark and commit, store), on a database Till migrated: what this machine can do with the same database work, with nothing of Till's own (no Express, validation, authentication, Kysely or views).",
    '- **prism**: the Prism mock of the Checkout & Billing contract (`scripts/mock.mjs`), validating each request and answering the documented example.',
    '',
    'Operations, with a bearer secret key: `GET /v1/plans/{id}` (one plan by id), `POST /v1/customers` (a new email every request, so Till inserts a row each time) and `POST /v1/checkout-sessions` (a one-time embedded session of 25 USD, with a new `Idempotency-Key` every request: a transaction, the key and an event).',
    '×node:http and ×prism are req/s ratios to that reference for the same operation. Latency is measured per response with sub-millisecond precision.',
    ...(baseline
      ? [
          `**baseline-pglite** and **baseline-postgres**: Till at \`${baseline.revision}\` (${baseline.commit}), checked out beside this checkout and run the same way, in turn with it (${ROUNDS} round${ROUNDS > 1 ? 's, odd ones this checkout first, even ones the baseline first' : ', this checkout first'}); ×baseline is this checkout's req/s over the baseline's in the same round.`,
          ...(ROUNDS > 1 ? ['', ...overallVsBaseline(rows).map((line) => `- ${line.trim()}`)] : []),
        ]
      : []),
  ];
}

/** The Markdown report: goals, req/s, payments, cold starts, webhooks, problems. */
function markdownReport(report: Report, problems: string[], generatedAt: string): string {
  const { rows, payments, coldStarts, webhooks, invoices, goals } = report;
  return [
    ...markdownIntro(report, generatedAt),
    '',
    markdownTable(tableCells(rows)),
    '',
    '## Goals',
    '',
    `Judged on the till-postgres rows (and, marked "2 processes", on till-postgres-2) of this run; ✓ met, ✗ missed, n/a not measured, · a figure reported without a goal. Missing a goal does not fail the run.`,
    '',
    markdownTable(goalCells(goals)),
    '',
    '## Full card payments (PostgreSQL)',
    '',
    `${CONNECTIONS} loops, each creating a checkout session (secret key, Idempotency-Key), tokenizing 4242424242424242 (publishable key and client secret, 201) and confirming it (200), for ${WARMUP_S} s warm-up + ${DURATION_S} s; payments/s and latency over the payments completed in the measured window, each from its first request to its last answer.`,
    '',
    markdownTable(paymentCells(payments)),
    '',
    '## Cold start',
    '',
    "`npm start` (literally; `dist/` already built) with a fresh `TILL_DATA_DIR` (and a fresh PostgreSQL database), until the first 200 of `GET /v1/plans` with the demo merchant's key (read from `demo-merchant.json` as soon as it exists; polled every 20 ms).",
    '',
    markdownTable(coldStartCells(coldStarts)),
    '',
    '## Webhook delivery (PostgreSQL)',
    '',
    `Till (\`NODE_ENV=development\`, \`TILL_ALLOW_LOOPBACK_WEBHOOKS=true\`) on a fresh PostgreSQL database delivers every event of the merchant to one HTTPS receiver on 127.0.0.1 in its own process (self-signed certificate, answers 200 at once). Each case writes for ${WARMUP_S} s warm-up + ${DURATION_S} s, then waits up to ${WEBHOOK_DRAIN_S} s for the last deliveries.`,
    '',
    `- **API state changes**: ${CONNECTIONS} loops of full card payments (\`payment.succeeded\` and \`checkout.session.completed\` per confirm), as fast as the API answers.`,
    `- **outbox writes**: the bench inserts ${WEBHOOK_RATE} events a second into the \`events\` table (the outbox), one per statement, as \`writeEvent\` writes them: many API processes' writes, more than the API of one process on this machine can make.`,
    '',
    `written/s: events whose \`created\` falls in the measured window; delivered/s: distinct events first received in it. Latency: from the event's \`created\` (its write, on the system clock) to its receipt, for the events written in the window. missing (not received by the end of the drain) and dup (received more than once): every event of the case. CPU: cores used in the window by Till, the receiver, the bench process (the writes), PostgreSQL (all its processes) and everything else on the machine. Goals: ≥ ${WEBHOOK_GOALS.eventsPerSec} events/s delivered, p99 ≤ ${WEBHOOK_GOALS.p99Ms} ms (n/a: fewer events were written than the goal). delivered/s can exceed written/s while a backlog from the warm-up drains.`,
    '',
    markdownTable(webhookCells(webhooks.rows)),
    '',
    ...invoiceMarkdown(invoices),
    ...(problems.length ? ['Problems:', '', ...problems.map((p) => `- ${p}`), ''] : []),
  ].join('\n');
}

/** Writes out/bench/results.json and out/bench/results.md. */
async function writeResults(report: Report, problems: string[]): Promise<void> {
  const { environment, rows, payments, coldStarts, webhooks, invoices, goals } = report;
  const settings = { durationSeconds: DURATION_S, warmupSeconds: WARMUP_S, connections: CONNECTIONS, pipelining: 1, coldStartRuns: COLD_START_RUNS };
  await mkdir(outDir, { recursive: true });
  const generatedAt = new Date().toISOString();
  const webhookJson = {
    goals: WEBHOOK_GOALS,
    settings: { outboxEventsPerSec: WEBHOOK_RATE, drainSeconds: WEBHOOK_DRAIN_S, apiLoops: CONNECTIONS },
    results: webhooks.rows,
    unexpectedEvents: webhooks.unexpected,
    badRequests: webhooks.badRequests,
  };
  await writeFile(
    path.join(outDir, 'results.json'),
    `${JSON.stringify({ generatedAt, environment, settings, goals, results: rows, payments, coldStarts, webhooks: webhookJson, invoices, problems }, null, 2)}\n`,
  );
  await writeFile(path.join(outDir, 'results.md'), markdownReport(report, problems, generatedAt));
  console.log(`\nbench: wrote ${path.relative(root, path.join(outDir, 'results.json'))} and ${path.relative(root, path.join(outDir, 'results.md'))}`);
}

/** Node, the machine, autocannon and (when a PostgreSQL part runs and it answers) the PostgreSQL server. */
async function describeEnvironment() {
  const postgres = ['till-postgres', 'till-postgres-2', 'payments', 'cold-start', 'webhooks', 'invoices'].some((part) => wanted(part as Part))
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

async function main(): Promise<number> {
  const environment = await describeEnvironment();
  const postgres = { unavailable: environment.unavailable };
  const baseline = BASELINE_REVISION ? await prepareBaseline(BASELINE_REVISION) : undefined;
  if (baseline) console.log(`bench: baseline ${baseline.revision} (${baseline.commit}) checked out in ${baseline.dir}`);
  const rows = await benchTargets(baseline, postgres);
  const payments = await benchPaymentsPart(postgres);
  const coldStarts = await benchColdStartPart(postgres);
  const webhooks = await benchWebhooksPart(baseline);
  await baseline?.remove();
  const invoices: InvoiceBenchResult = wanted('invoices') ? await benchInvoices() : { status: 'skipped', reason: 'not in BENCH_ONLY' };
  addRatios(rows);
  const goals = [...evaluateGoals({ rows, payments, coldStarts }), ...invoiceGoals(invoices)];
  const report: Report = { environment, baseline, rows, payments, coldStarts, webhooks, invoices, goals };
  printReport(report);
  const problems = [
    ...rowProblems(rows),
    ...paymentAndStartProblems(payments, coldStarts),
    ...webhookProblems(webhooks),
    ...(invoices.status === 'failed' ? [`invoices: ${invoices.reason ?? 'failed'}`] : []),
  ];
  await writeResults(report, problems);
  if (problems.length) {
    console.log('\nbench: FAILED');
    for (const problem of problems) console.log(`  - ${problem}`);
    return 1;
  }
  return 0;
}

void main()
  .then(
    (code) => code,
    (error: unknown) => {
      if (!isInterrupted()) console.error(`\nbench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return 1;
    },
  )
  .then(async (code) => {
    await cleanupAll();
    process.exit(isInterrupted() ? 130 : code);
  });
