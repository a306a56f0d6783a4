#!/usr/bin/env tsx
/**
 * `npm run bench`: Till's throughput and latency, beside two reference points.
 *
 * One run measures two operations of the Checkout & Billing interface (bearer secret key):
 *
 *   read   GET  /v1/plans/{id}   one plan, by id
 *   write  POST /v1/customers    a new customer; every request sends a new email, so each one
 *                                really inserts a row (201) instead of matching an existing one (200)
 *
 * against four targets, one after the other, each in its own child process so that it never
 * shares an event loop with autocannon (the load generator, which runs in this process):
 *
 *   till-pglite     Till (`server/main.ts`, NODE_ENV=production) on the embedded PGlite, fresh data dir
 *   till-postgres   Till on the PostgreSQL server, in a fresh database `till_bench_<timestamp>`
 *                   (skipped, and said so, when PostgreSQL is unreachable)
 *   node-http       a bare `node:http` server answering Till's own plan JSON for GET and a 201
 *                   customer JSON for POST: the ceiling of Node itself on this machine
 *   prism           the Prism mock of the contract (`scripts/mock.mjs`), validating every request
 *
 * It prints req/s, p50 and p99 latency and non-2xx counts per target and operation, with req/s
 * ratios to node-http and to Prism.
 *
 * Then the webhook case, on PostgreSQL only (skipped, and said so, when it is unreachable): Till
 * on a fresh database with NODE_ENV=development and TILL_ALLOW_LOOPBACK_WEBHOOKS=true (loopback
 * targets are refused in production), one endpoint subscribed to every event, and a healthy
 * receiver: an HTTPS server on 127.0.0.1 in its own process, with a self-signed certificate made
 * by openssl, answering 200 at once and reporting each receipt. Two cases, each writing events for
 * 1 s warm-up + BENCH_DURATION s and then waiting (at most BENCH_WEBHOOK_DRAIN s) until every
 * event it wrote has arrived:
 *
 *   API state changes   BENCH_CONNECTIONS loops create a checkout session, tokenize test card
 *                       4242424242424242 and confirm it (payment.succeeded and
 *                       checkout.session.completed per confirm), as fast as the API answers
 *   outbox writes       BENCH_WEBHOOK_RATE events a second inserted into the events table (the
 *                       outbox) one per statement, as writeEvent writes them: the writes of many
 *                       API processes, more than one process's API makes on a small machine
 *
 * and measures delivered events/s (distinct event ids first received in the measured window, per
 * second), the latency from each event's `created` (its write; Till runs on the system clock) to
 * its receipt (p50, p99, max), and, over every event of the case, the ones that never arrived
 * (missing) or arrived more than once (duplicates), with the CPU used by Till, the receiver, this
 * process, PostgreSQL and everything else. The goals: >= 500 events/s, p99 <= 1 s. Progress is
 * printed every second.
 *
 * It writes out/bench/results.json and out/bench/results.md. It exits non-zero when a target or a
 * webhook case could not be measured, when more than 1% of the responses of any Till row are
 * non-2xx (or connection errors), or when a webhook case lost or duplicated an event; sample error
 * answers are printed. Missing the webhook goals is reported, not a failure.
 *
 * Settings (environment):
 *   BENCH_DURATION        seconds measured per target and operation, and per webhook case
 *                         (default 5); plus 1 s warm-up
 *   BENCH_CONNECTIONS     concurrent connections, and API loops of the webhook case (default 10)
 *   BENCH_PG_URL          PostgreSQL admin URL (default postgres://postgres@127.0.0.1:5432/postgres)
 *   BENCH_WEBHOOK_RATE    events a second written by the outbox case (default 600)
 *   BENCH_WEBHOOK_DRAIN   seconds to wait for the last deliveries of a webhook case (default 60)
 *   BENCH_ONLY            the parts to run, comma-separated: till-pglite, till-postgres,
 *                         node-http, prism, webhooks (default all)
 *   BENCH_BASELINE        a git revision (e.g. main, HEAD~3): Till at that revision is measured
 *                         too, in turn with this checkout's Till on each database (rows
 *                         baseline-pglite, baseline-postgres, and a ×baseline ratio)
 *   BENCH_ROUNDS          rounds of each Till target (default 1); with BENCH_BASELINE the order
 *                         alternates (odd rounds this checkout first), and the totals over all
 *                         rounds are compared, so neither side always runs on a warmer machine
 *
 * Every child process, temp dir and database this script creates is removed at the end, on an
 * error, and on Ctrl+C.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { checkoutBaseline } from './bench-baseline.js';
import { freePort, startPrism } from './mock.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, 'out', 'bench');

// ---------------------------------------------------------------------------------------------
// Settings
// ---------------------------------------------------------------------------------------------

/** Reads a positive integer setting from the environment. */
function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer; got "${raw}".`);
  return n;
}

const DURATION_S = positiveInt('BENCH_DURATION', 5);
/** Rounds of each Till target (`BENCH_ROUNDS`); with BENCH_BASELINE they alternate which goes first. */
const ROUNDS = positiveInt('BENCH_ROUNDS', 1);
const CONNECTIONS = positiveInt('BENCH_CONNECTIONS', 10);
const WARMUP_S = 1;
const PG_ADMIN_URL = process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
/** The parts a run measures (`BENCH_ONLY`, comma-separated); all by default. */
const PARTS = ['till-pglite', 'till-postgres', 'node-http', 'prism', 'webhooks'] as const;
const ONLY = (() => {
  const raw = process.env.BENCH_ONLY;
  if (!raw) return undefined;
  const names = raw.split(',').map((n) => n.trim()).filter(Boolean);
  const unknown = names.filter((n) => !(PARTS as readonly string[]).includes(n));
  if (unknown.length) throw new Error(`BENCH_ONLY names ${unknown.join(', ')}; the parts are ${PARTS.join(', ')}.`);
  return new Set(names);
})();
/** A git revision to measure beside this checkout, in the same run (`BENCH_BASELINE`; see bench-baseline.ts). */
const BASELINE_REVISION = process.env.BENCH_BASELINE || undefined;
/** The BENCH_ONLY part a target belongs to (a baseline row goes with this checkout's row). */
const partOf = (target: TargetName): (typeof PARTS)[number] => (target === 'baseline-pglite' ? 'till-pglite' : target === 'baseline-postgres' ? 'till-postgres' : target);
/** Whether this run measures a part. */
const wanted = (part: (typeof PARTS)[number]) => !ONLY || ONLY.has(part);
/** A Till row fails the run when more than this share of its responses are non-2xx or errors. */
const MAX_ERROR_SHARE = 0.01;
/** Prism answers any plan id with the contract's example; this is the example's id. */
const PRISM_PLAN_ID = 301;

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
// Cleanup: everything started registers how to undo it; undone in reverse order at the end, on
// an error, and on Ctrl+C. Child processes still alive when this process exits get SIGKILL.
// ---------------------------------------------------------------------------------------------

const cleanups: Array<{ label: string; run: () => Promise<void> }> = [];
const children = new Set<ChildProcess>();
let currentLoad: LoadInstance | undefined;

/** Registers an undo step; returns a function that runs it now (once) and unregisters it. */
function onCleanup(label: string, run: () => Promise<void>): () => Promise<void> {
  if (cleaning) throw new Error('interrupted'); // cleanup already ran: this one would be missed
  const entry = { label, run };
  cleanups.push(entry);
  return async () => {
    const i = cleanups.indexOf(entry);
    if (i === -1) return;
    cleanups.splice(i, 1);
    await run();
  };
}

let cleaning: Promise<void> | undefined;

/**
 * Runs every pending undo step, newest first, reporting (not throwing) failures. Called at the
 * end and on a signal; both callers wait for the same run.
 */
function cleanupAll(): Promise<void> {
  return (cleaning ??= (async () => {
    for (let entry = cleanups.pop(); entry; entry = cleanups.pop()) {
      try {
        await entry.run();
      } catch (error) {
        console.error(`bench: cleanup "${entry.label}" failed: ${message(error)}`);
      }
    }
  })());
}

/** Throws once Ctrl+C was pressed, so that nothing new starts while cleaning up. */
function checkInterrupted(): void {
  if (interrupted) throw new Error('interrupted');
}

process.on('exit', () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) process.exit(130); // second Ctrl+C: the exit handler kills the children
    interrupted = true;
    console.error(`\nbench: ${signal}, stopping and cleaning up (Ctrl+C again to force)...`);
    currentLoad?.stop();
    void cleanupAll().finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Spawns a child process, tracked for cleanup, keeping the tail of its output for error messages. */
function spawnTracked(command: string, args: string[], env: NodeJS.ProcessEnv, cwd = root): { child: ChildProcess; output: () => string; exited: Promise<void> } {
  checkInterrupted();
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      children.delete(child);
      resolve();
    });
  });
  return { child, output: () => output, exited };
}

/** SIGTERM, then SIGKILL if the process has not exited after `graceMs`. */
async function stopChild(child: ChildProcess, exited: Promise<void>, graceMs = 20_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Polls `url` until it answers 200; fails early when the child exits. */
async function waitForHttp(url: string, child: ChildProcess, output: () => string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the process exited (${child.exitCode ?? child.signalCode}) before answering:\n${output()}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`no 200 from ${url} within ${timeoutMs / 1000} s:\n${output()}`);
    await sleep(200);
  }
}

/** Sends one JSON request and returns status and parsed body; throws on a non-2xx answer. */
async function callJson(method: string, url: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; text: string; json: unknown }> {
  const res = await fetch(url, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (res.status < 200 || res.status > 299) throw new Error(`${method} ${url} answered ${res.status}: ${text.slice(0, 500)}`);
  return { status: res.status, text, json: JSON.parse(text) as unknown };
}

/** The `id` of a resource answer, bare (`{id}`) or in the envelope (`{success, data: {id}}`). */
function idOf(json: unknown): string {
  const object = json as { id?: unknown; data?: { id?: unknown } } | null;
  const id = object?.data?.id ?? object?.id;
  if (typeof id !== 'string' && typeof id !== 'number') throw new Error(`no id in ${JSON.stringify(json).slice(0, 300)}`);
  return String(id);
}

// ---------------------------------------------------------------------------------------------
// The operations and the load runner
// ---------------------------------------------------------------------------------------------

type OperationName = 'GET /v1/plans/{id}' | 'POST /v1/customers';
const OPERATIONS: OperationName[] = ['GET /v1/plans/{id}', 'POST /v1/customers'];

/** What a target needs to be benchmarked: where it listens and how to call it. */
interface RunningTarget {
  url: string;
  /** Authorization etc. */
  headers: Record<string, string>;
  planId: string;
  stop: () => Promise<void>;
}

/** Makes every email of this run unique, across warm-ups, operations and targets. */
const runTag = Date.now().toString(36);
let emailSeq = 0;

/** The autocannon request of an operation against a target. */
function loadRequest(operation: OperationName, target: RunningTarget, onResponse: (status: number, body: string) => void): LoadRequest {
  if (operation === 'GET /v1/plans/{id}') {
    return { method: 'GET', path: `/v1/plans/${target.planId}`, headers: target.headers, onResponse };
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
  latencyMs?: { p50: number; p90: number; p99: number; average: number; max: number };
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

/** Latency percentiles (nearest rank) of response times in ms. */
function latencySummary(times: number[]): NonNullable<Row['latencyMs']> {
  const sorted = Float64Array.from(times).sort();
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
  const round = (ms: number) => Math.round(ms * 100) / 100;
  const sum = sorted.reduce((a, b) => a + b, 0);
  return { p50: round(at(50)), p90: round(at(90)), p99: round(at(99)), average: round(sum / Math.max(1, sorted.length)), max: round(at(100)) };
}

/**
 * Runs autocannon once; collects every response time (autocannon's own latency histogram has a
 * 1 ms resolution, too coarse for the bare node:http server) and the first few non-2xx answers
 * and connection errors.
 */
function runLoad(url: string, request: (onResponse: (status: number, body: string) => void) => LoadRequest, durationS: number): Promise<{ result: LoadResult; times: number[]; samples: string[] }> {
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
      currentLoad = undefined;
      if (error) reject(error);
      else resolve({ result, times, samples });
    });
    instance.on('response', (_client, _status, _bytes, responseTime) => {
      times.push(responseTime);
    });
    instance.on('reqError', (error) => sample(`connection error: ${error.message}`));
    currentLoad = instance;
  });
}

/** Warms up for 1 s, then measures one operation against one target. */
async function measure(name: TargetName, operation: OperationName, target: RunningTarget): Promise<Row> {
  process.stdout.write(`bench: ${name.padEnd(13)} ${operation.padEnd(20)} ... ${WARMUP_S} s warm-up + ${DURATION_S} s`);
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
  console.log(`  → ${fmt(row.reqPerSec!, 0)} req/s, p50 ${fmt(row.latencyMs!.p50, 2)} ms, p99 ${fmt(row.latencyMs!.p99, 2)} ms${bad ? `, ${row.non2xx} non-2xx, ${row.errors} errors` : ''}`);
  return row;
}

// ---------------------------------------------------------------------------------------------
// Targets
// ---------------------------------------------------------------------------------------------

type TargetName = 'till-pglite' | 'baseline-pglite' | 'till-postgres' | 'baseline-postgres' | 'node-http' | 'prism';
/** The baseline row each Till row is compared with (BENCH_BASELINE). */
const BASELINE_OF: Partial<Record<TargetName, TargetName>> = { 'till-pglite': 'baseline-pglite', 'till-postgres': 'baseline-postgres' };

/** Bodies the bare node:http server answers; replaced by Till's real answers once Till ran. */
const referenceBodies = {
  plan: JSON.stringify({
    success: true,
    errorCode: null,
    errorMessage: null,
    data: { id: 1, object: 'plan', productId: 1, name: 'Bench monthly', description: null, amount: 19.99, currency: 'USD', interval: 'month', intervalCount: 1, status: 'available', active: true, createdAt: '2026-01-01T00:00:00.000Z' },
  }),
  customer: JSON.stringify({
    success: true,
    errorCode: null,
    errorMessage: null,
    data: { id: 1, object: 'customer', email: 'bench@example.com', name: 'Bench', phone: null, externalId: null, metadata: {}, hasPaymentMethod: false, createdAt: '2026-01-01T00:00:00.000Z' },
  }),
};

/** A Till child process and its demo merchant's test keys. */
interface TillProcess {
  url: string;
  merchantId: number;
  secretKey: string;
  publishableKey: string;
  /** The child's process id (for its CPU time). */
  pid: number | undefined;
  stop: () => Promise<void>;
}

/**
 * Starts Till in a child process (`node --import tsx server/main.ts`) with a fresh data dir, waits
 * for /healthz and reads the demo merchant's test keys. `env` is laid over the defaults
 * (`NODE_ENV=production`, rate limits scaled ×1000). `cwd` is the checkout whose Till runs (this
 * one, or the BENCH_BASELINE worktree).
 */
async function spawnTill(databaseUrl: string | undefined, env: NodeJS.ProcessEnv = {}, cwd = root): Promise<TillProcess> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'till-bench-'));
  const removeDataDir = onCleanup(`remove ${dataDir}`, () => rm(dataDir, { recursive: true, force: true }));
  const port = (await freePort()) as number;
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    TILL_DATA_DIR: dataDir,
    NODE_ENV: 'production', // no response validation
    LOG_LEVEL: 'warn',
    TILL_RATE_LIMIT_SCALE: '1000', // the 100 req/s plan limit would answer 429s
    ...env,
  };
  delete childEnv.DATABASE_URL;
  if (databaseUrl) childEnv.DATABASE_URL = databaseUrl;
  const { child, output, exited } = spawnTracked(process.execPath, ['--import', 'tsx', 'server/main.ts'], childEnv, cwd);
  const stopServer = onCleanup(`stop Till (pid ${child.pid})`, () => stopChild(child, exited));
  const stop = async () => {
    await stopServer();
    await removeDataDir();
  };
  try {
    const url = `http://127.0.0.1:${port}`;
    await waitForHttp(`${url}/healthz`, child, output);
    const demo = JSON.parse(await readFile(path.join(dataDir, 'demo-merchant.json'), 'utf8')) as { merchantId: number; keys: { test: { secret: string; publishable: string } } };
    return { url, merchantId: demo.merchantId, secretKey: demo.keys.test.secret, publishableKey: demo.keys.test.publishable, pid: child.pid, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Starts Till (`NODE_ENV=production`) for the req/s rows: creates a product and a plan with the
 * demo merchant's test secret key, and checks both operations once.
 */
async function startTill(databaseUrl: string | undefined, cwd = root): Promise<RunningTarget> {
  const till = await spawnTill(databaseUrl, {}, cwd);
  try {
    const { url } = till;
    const headers = { Authorization: `Bearer ${till.secretKey}` };
    const product = await callJson('POST', `${url}/v1/products`, headers, { name: 'Bench product' });
    const plan = await callJson('POST', `${url}/v1/plans`, headers, { productId: Number(idOf(product.json)), name: 'Bench monthly', amount: 19.99, currency: 'USD', interval: 'month' });
    const planId = idOf(plan.json);
    // One of each, so a broken setup fails here with a readable answer, not as 100% errors.
    referenceBodies.plan = (await callJson('GET', `${url}/v1/plans/${planId}`, headers)).text;
    const created = await callJson('POST', `${url}/v1/customers`, headers, { email: `bench-${runTag}-check-${new URL(url).port}@example.com`, name: 'Bench' });
    if (created.status !== 201) throw new Error(`POST /v1/customers with a new email answered ${created.status}, expected 201`);
    referenceBodies.customer = created.text;
    return { url, headers, planId, stop: till.stop };
  } catch (error) {
    await till.stop();
    throw error;
  }
}

/** Creates `till_bench_<timestamp>` on the PostgreSQL server; returns its URL and how to drop it. */
async function createBenchDatabase(): Promise<{ url: string; drop: () => Promise<void>; serverVersion: string }> {
  const name = `till_bench_${Date.now()}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await admin.connect();
  } catch (error) {
    await admin.end().catch(() => undefined);
    throw new PgUnreachable(message(error));
  }
  let serverVersion: string;
  try {
    serverVersion = String((await admin.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version ?? '?');
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const drop = onCleanup(`drop database ${name}`, async () => {
    const client = new pg.Client({ connectionString: PG_ADMIN_URL, connectionTimeoutMillis: 3000 });
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    } finally {
      await client.end();
    }
  });
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop, serverVersion };
}

class PgUnreachable extends Error {}

/** The bare node:http server, in a child process: Till's plan JSON for GET, a 201 customer JSON for POST. */
async function startNodeHttp(): Promise<RunningTarget> {
  const code = `
    const http = require('node:http');
    const get = Buffer.from(process.env.BENCH_GET_BODY);
    const post = Buffer.from(process.env.BENCH_POST_BODY);
    const json = (res, status, body) => {
      res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
      res.end(body);
    };
    const server = http.createServer((req, res) => {
      if (req.method !== 'POST') return json(res, 200, get);
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        try { JSON.parse(Buffer.concat(chunks).toString()); } catch { return json(res, 400, Buffer.from('{"error":"bad json"}')); }
        json(res, 201, post);
      });
    });
    server.listen(0, '127.0.0.1', () => console.log('PORT=' + server.address().port));
    process.on('SIGTERM', () => { server.close(() => process.exit(0)); server.closeAllConnections(); });
  `;
  const { child, output, exited } = spawnTracked(process.execPath, ['-e', code], { ...process.env, BENCH_GET_BODY: referenceBodies.plan, BENCH_POST_BODY: referenceBodies.customer });
  const stop = onCleanup(`stop node:http (pid ${child.pid})`, () => stopChild(child, exited, 5000));
  try {
    const deadline = Date.now() + 10_000;
    let port: string | undefined;
    while (!(port = /PORT=(\d+)/.exec(output())?.[1])) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`node:http server did not start:\n${output()}`);
      await sleep(50);
    }
    return { url: `http://127.0.0.1:${port}`, headers: {}, planId: '1', stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Prism mocking the Checkout & Billing interface, with request validation (`--errors`). */
async function startPrismTarget(): Promise<RunningTarget> {
  const prism = await startPrism({ api: 'checkout' });
  const stop = onCleanup(`stop Prism (${prism.url})`, () => prism.stop());
  return { url: prism.url, headers: { Authorization: 'Bearer sk_test_bench' }, planId: String(PRISM_PLAN_ID), stop };
}

// ---------------------------------------------------------------------------------------------
// The webhook case: events delivered per second and latency from the state change to receipt
// ---------------------------------------------------------------------------------------------

/** The issue's goals for webhook delivery on PostgreSQL. */
const WEBHOOK_GOALS = { eventsPerSec: 500, p99Ms: 1000 };
/** Events written per second by the outbox case. */
const WEBHOOK_RATE = positiveInt('BENCH_WEBHOOK_RATE', 600);
/** Connections (and inserts in flight) of the outbox case's writer. */
const OUTBOX_WRITERS = 16;
/** How long to wait, after the writes stop, for every event to be received. */
const WEBHOOK_DRAIN_S = positiveInt('BENCH_WEBHOOK_DRAIN', 60);

type WebhookCase = 'API state changes' | 'outbox writes';

/** One measured webhook row of the report. */
interface WebhookRow {
  target: 'till-postgres' | 'baseline-postgres';
  case: WebhookCase;
  status: 'ok' | 'skipped' | 'failed';
  /** Why it was skipped or failed. */
  reason?: string;
  /** Events written per second in the measured window. */
  writtenPerSec?: number;
  /** Distinct events received per second in the measured window (first receipt of each). */
  deliveredPerSec?: number;
  /** From the event's `created` to its first receipt, over the events written in the window. */
  latencyMs?: NonNullable<Row['latencyMs']>;
  /** Every event of the case, warm-up and drain included. */
  events?: number;
  /** Events of the case not received by the end of the drain: lost, as far as the run can tell. */
  missing?: number;
  /** Receipts beyond the first of an event. */
  duplicates?: number;
  /** State changes (API case) or outbox inserts that failed. */
  failedWrites?: number;
  sampleErrors?: string[];
  /**
   * CPU used in the measured window, in cores (1 = one core busy the whole time): Till, the
   * receiver, this bench process (the writes), every PostgreSQL process, and everything else on
   * the machine (`other`: what is left of `machine`).
   */
  cpuCores?: { till?: number; receiver?: number; bench: number; postgres?: number; other?: number; machine: number; of: number };
  /** Whether each goal was met; `eventsPerSec` is null when fewer events than the goal were written (it cannot be judged). */
  goalsMet?: { eventsPerSec: boolean | null; p99: boolean };
}

/** CPU seconds (user + system) a process has used so far; undefined where /proc is not there. */
async function processCpuSeconds(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the file, 12 and 13 after the command name; ticks of 1/100 s.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/** CPU seconds used so far by every PostgreSQL server process on this machine; undefined without /proc. */
async function postgresCpuSeconds(): Promise<number | undefined> {
  try {
    const { readdir } = await import('node:fs/promises');
    let total = 0;
    for (const pid of await readdir('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
      if (!stat.includes('(postgres)')) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12])) / 100;
    }
    return total;
  } catch {
    return undefined;
  }
}

/** Busy CPU seconds of the whole machine so far, all cores together. */
function machineCpuSeconds(): number {
  return os.cpus().reduce((sum, cpu) => sum + (cpu.times.user + cpu.times.nice + cpu.times.sys + cpu.times.irq) / 1000, 0);
}

/** The webhook receiver: an HTTPS server on 127.0.0.1 in its own process, reporting every receipt. */
interface WebhookReceiver {
  url: string;
  pid: number | undefined;
  /** By event id: how many times it arrived, its `created` and its first arrival (epoch ms). */
  receipts: Map<string, { count: number; created: number; firstAt: number }>;
  /** Requests whose body was not an event envelope (answered 400). */
  badRequests: number;
  stop: () => Promise<void>;
}

/**
 * Starts the receiver with a self-signed certificate made by openssl (as the tests' receivers
 * are). It answers 200 to every event envelope and reports `R <eventId> <createdMs> <receivedMs>`
 * per request on stdout, in batches every 50 ms, so that reporting costs little and never delays
 * the answer; the receipt time is taken when the body has arrived.
 */
async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'till-bench-tls-'));
  const removeDir = onCleanup(`remove ${dir}`, () => rm(dir, { recursive: true, force: true }));
  const key = path.join(dir, 'key.pem');
  const cert = path.join(dir, 'cert.pem');
  try {
    await promisify(execFile)('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '2', '-subj', '/CN=127.0.0.1']);
  } catch (error) {
    await removeDir();
    throw new Error(`openssl could not make the receiver's certificate: ${message(error)}`);
  }
  const code = `
    const https = require('node:https');
    const fs = require('node:fs');
    let lines = [];
    setInterval(() => {
      if (lines.length === 0) return;
      process.stdout.write(lines.join('\\n') + '\\n');
      lines = [];
    }, 50);
    const server = https.createServer({ key: fs.readFileSync(process.env.BENCH_TLS_KEY), cert: fs.readFileSync(process.env.BENCH_TLS_CERT), keepAliveTimeout: 30000 }, (req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const at = Date.now();
        let event;
        try { event = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch {}
        if (!event || typeof event.id !== 'string' || typeof event.created !== 'string') {
          lines.push('B');
          res.writeHead(400, { 'Content-Type': 'application/json', 'Content-Length': 2 });
          return res.end('{}');
        }
        lines.push('R ' + event.id + ' ' + Date.parse(event.created) + ' ' + at);
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': 17 });
        res.end('{"received":true}');
      });
    });
    server.listen(0, '127.0.0.1', () => console.log('PORT=' + server.address().port));
    process.on('SIGTERM', () => { server.close(() => process.exit(0)); server.closeAllConnections(); });
  `;
  const { child, output, exited } = spawnTracked(process.execPath, ['-e', code], { ...process.env, BENCH_TLS_KEY: key, BENCH_TLS_CERT: cert });
  const stopChildProcess = onCleanup(`stop the webhook receiver (pid ${child.pid})`, () => stopChild(child, exited, 5000));
  const receiver: WebhookReceiver = {
    url: '',
    pid: child.pid,
    receipts: new Map(),
    badRequests: 0,
    stop: async () => {
      await stopChildProcess();
      await removeDir();
    },
  };
  let pending = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const text = pending + chunk.toString();
    const lines = text.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (line === 'B') receiver.badRequests += 1;
      if (!line.startsWith('R ')) continue;
      const [, id, created, at] = line.split(' ');
      const seen = receiver.receipts.get(id!);
      if (seen) seen.count += 1;
      else receiver.receipts.set(id!, { count: 1, created: Number(created), firstAt: Number(at) });
    }
  });
  try {
    const deadline = Date.now() + 10_000;
    let port: string | undefined;
    while (!(port = /PORT=(\d+)/.exec(output())?.[1])) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the webhook receiver did not start:\n${output()}`);
      await sleep(50);
    }
    receiver.url = `https://127.0.0.1:${port}/hooks`;
    return receiver;
  } catch (error) {
    await receiver.stop();
    throw error;
  }
}

/** What the writes of a case came to, so far. */
interface WriteTally {
  /** Events written (known to the writer: two per confirmed session, one per outbox insert). */
  written: number;
  failed: number;
  samples: string[];
}

function recordFailure(tally: WriteTally, error: unknown): void {
  tally.failed += 1;
  const text = message(error).slice(0, 300);
  if (tally.samples.length < 3 && !tally.samples.includes(text)) tally.samples.push(text);
}

/**
 * The API case's writes: CONNECTIONS loops, each creating a checkout session with the secret key,
 * tokenizing test card 4242424242424242 and confirming it with the publishable key and the client
 * secret, until `deadline`. Each confirm writes `payment.succeeded` and `checkout.session.completed`.
 */
async function writeThroughApi(till: TillProcess, deadline: number, tally: WriteTally): Promise<void> {
  const secret = { Authorization: `Bearer ${till.secretKey}` };
  const card = { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 2, cvc: '123' };
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < deadline && !interrupted) {
        try {
          const session = (await callJson('POST', `${till.url}/v1/checkout-sessions`, secret, { amount: 25, currency: 'USD', mode: 'embedded', paymentType: 'oneTime' })).json as { id: string; clientSecret: string };
          const payer = { Authorization: `Bearer ${till.publishableKey}`, 'X-Client-Secret': session.clientSecret };
          const method = await callJson('POST', `${till.url}/v1/checkout-sessions/${session.id}/tokenize`, payer, card);
          await callJson('POST', `${till.url}/v1/checkout-sessions/${session.id}/confirm`, payer, { paymentMethodId: idOf(method.json) });
          tally.written += 2;
        } catch (error) {
          recordFailure(tally, error);
          await sleep(50);
        }
      }
    }),
  );
}

/** Makes an id in the shape of Till's (`evt_` and 24 letters and digits). */
function eventId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return `evt_${Array.from(randomBytes(24), (b) => alphabet[b % alphabet.length]).join('')}`;
}

/**
 * The outbox case's writes: WEBHOOK_RATE events a second, each inserted on its own into the
 * `events` table (the outbox) exactly as Till's `writeEvent` writes them, with `created` set just
 * before the insert, until `deadline`. It stands for many API processes writing at once: the API
 * of one process on this machine cannot write that many. At most OUTBOX_WRITERS inserts are in flight,
 * one per pooled connection, so that none waits for a connection after its `created` is set.
 */
async function writeToOutbox(pool: pg.Pool, template: { merchantId: number; type: string; apiVersion: string; data: unknown }, deadline: number, tally: WriteTally): Promise<void> {
  const started = Date.now();
  const data = JSON.stringify(template.data);
  const inFlight = new Set<Promise<void>>();
  let issued = 0;
  while (Date.now() < deadline && !interrupted) {
    const due = Math.floor(((Date.now() - started) / 1000) * WEBHOOK_RATE);
    while (issued < due && inFlight.size < OUTBOX_WRITERS) {
      issued += 1;
      const insert = pool
        .query('INSERT INTO events (id, merchant_id, livemode, type, api_version, data, session_id, payment_id, created_at) VALUES ($1, $2, false, $3, $4, $5, NULL, NULL, $6)', [eventId(), template.merchantId, template.type, template.apiVersion, data, new Date()])
        .then(
          () => {
            tally.written += 1;
          },
          (error: unknown) => recordFailure(tally, error),
        )
        .finally(() => inFlight.delete(insert));
      inFlight.add(insert);
    }
    await (inFlight.size >= OUTBOX_WRITERS ? Promise.race(inFlight) : sleep(2));
  }
  await Promise.all(inFlight);
}

/** Events of the merchant in the database (`webhook.test` aside): id → `created` in epoch ms. */
async function storedEvents(pool: pg.Pool, merchantId: number): Promise<Map<string, number>> {
  const { rows } = await pool.query<{ id: string; created_at: Date }>(`SELECT id, created_at FROM events WHERE merchant_id = $1 AND type <> 'webhook.test'`, [merchantId]);
  return new Map(rows.map((r) => [r.id, r.created_at.getTime()]));
}

/**
 * Runs one webhook case: writes for WARMUP_S + DURATION_S seconds, then waits (at most
 * WEBHOOK_DRAIN_S) until every event the case wrote has been received. Events of earlier cases
 * (`previous`) are left out. Prints progress every second.
 */
async function measureWebhookCase(
  name: WebhookCase,
  context: { till: TillProcess; receiver: WebhookReceiver; pool: pg.Pool; previous: Set<string> },
  write: (deadline: number, tally: WriteTally) => Promise<void>,
): Promise<WebhookRow> {
  const { till, receiver, pool, previous } = context;
  const label = `bench: ${'webhooks'.padEnd(13)} ${name.padEnd(20)}`;
  console.log(`${label} ... ${WARMUP_S} s warm-up + ${DURATION_S} s of writes, then up to ${WEBHOOK_DRAIN_S} s for the last deliveries`);
  checkInterrupted();
  const tally: WriteTally = { written: 0, failed: 0, samples: [] };
  const start = Date.now();
  const t0 = start + WARMUP_S * 1000;
  const t1 = t0 + DURATION_S * 1000;
  const receivedBefore = receiver.receipts.size;
  const cpu: Array<{ till?: number; receiver?: number; bench: number; postgres?: number; machine: number }> = [];
  const sampleCpu = async () => {
    const own = process.cpuUsage();
    cpu.push({ till: await processCpuSeconds(till.pid), receiver: await processCpuSeconds(receiver.pid), bench: (own.user + own.system) / 1e6, postgres: await postgresCpuSeconds(), machine: machineCpuSeconds() });
  };
  const cpuTimers = [setTimeout(() => void sampleCpu(), t0 - start), setTimeout(() => void sampleCpu(), t1 - start)];
  let lastReceived = receivedBefore;
  let phase = 'writing';
  const progress = setInterval(() => {
    const received = receiver.receipts.size;
    const second = Math.round((Date.now() - start) / 1000);
    console.log(`${label} ${String(second).padStart(3)} s ${phase.padEnd(8)} written ${String(tally.written).padStart(6)}  received ${String(received - receivedBefore).padStart(6)} (${fmt(received - lastReceived, 0)}/s)${tally.failed ? `  failed writes ${tally.failed}` : ''}`);
    lastReceived = received;
  }, 1000);
  try {
    await write(t1, tally);
    checkInterrupted();
    phase = 'draining';
    // The case's events, as stored: every one must arrive.
    const all = await storedEvents(pool, till.merchantId);
    const events = new Map([...all].filter(([id]) => !previous.has(id)));
    for (const id of events.keys()) previous.add(id);
    const drainDeadline = Date.now() + WEBHOOK_DRAIN_S * 1000;
    const missing = () => [...events.keys()].filter((id) => !receiver.receipts.has(id));
    while (missing().length > 0 && Date.now() < drainDeadline) {
      checkInterrupted();
      await sleep(100);
    }
    await sleep(300); // a duplicate would arrive right after the first copy
    clearInterval(progress);
    if (cpu.length < 2) await sampleCpu();

    const inWindow = [...events].filter(([, created]) => created >= t0 && created < t1);
    const latencies = inWindow.flatMap(([id]) => {
      const r = receiver.receipts.get(id);
      return r ? [r.firstAt - r.created] : [];
    });
    const delivered = [...events.keys()].filter((id) => {
      const at = receiver.receipts.get(id)?.firstAt;
      return at !== undefined && at >= t0 && at < t1;
    }).length;
    const notReceived = missing().length;
    const duplicates = [...events.keys()].reduce((n, id) => n + Math.max(0, (receiver.receipts.get(id)?.count ?? 0) - 1), 0);
    const [a, b] = cpu;
    const cores = (x: number | undefined, y: number | undefined) => (x === undefined || y === undefined ? undefined : Math.round(((y - x) / DURATION_S) * 100) / 100);
    const cpuCores = (a: (typeof cpu)[number], b: (typeof cpu)[number]): NonNullable<WebhookRow['cpuCores']> => {
      const used = { till: cores(a.till, b.till), receiver: cores(a.receiver, b.receiver), bench: cores(a.bench, b.bench)!, postgres: cores(a.postgres, b.postgres), machine: cores(a.machine, b.machine)! };
      const known = [used.till, used.receiver, used.postgres];
      const other = known.every((x) => x !== undefined) ? Math.max(0, Math.round((used.machine - used.bench - known.reduce((x, y) => x! + y!, 0)!) * 100) / 100) : undefined;
      return { ...used, other, of: os.cpus().length };
    };
    const row: WebhookRow = {
      target: 'till-postgres',
      case: name,
      status: 'ok',
      writtenPerSec: inWindow.length / DURATION_S,
      deliveredPerSec: delivered / DURATION_S,
      latencyMs: latencySummary(latencies),
      events: events.size,
      missing: notReceived,
      duplicates,
      failedWrites: tally.failed,
      sampleErrors: tally.samples,
      ...(a && b ? { cpuCores: cpuCores(a, b) } : {}),
    };
    const judged = row.writtenPerSec! >= WEBHOOK_GOALS.eventsPerSec || row.deliveredPerSec! >= WEBHOOK_GOALS.eventsPerSec;
    row.goalsMet = { eventsPerSec: judged ? row.deliveredPerSec! >= WEBHOOK_GOALS.eventsPerSec : null, p99: latencies.length > 0 && row.latencyMs!.p99 <= WEBHOOK_GOALS.p99Ms };
    if (inWindow.length === 0) {
      row.status = 'failed';
      row.reason = `no event was written in the measured window${tally.samples[0] ? ` (${tally.samples[0]})` : ''}`;
    }
    const l = row.latencyMs!;
    console.log(
      `${label} → ${fmt(row.deliveredPerSec!, 0)} events/s delivered (${fmt(row.writtenPerSec!, 0)}/s written), p50 ${fmt(l.p50, 0)} ms, p99 ${fmt(l.p99, 0)} ms, max ${fmt(l.max, 0)} ms; ${events.size} events, ${notReceived} missing, ${duplicates} duplicates${tally.failed ? `, ${tally.failed} failed writes` : ''}`,
    );
    return row;
  } finally {
    clearInterval(progress);
    for (const timer of cpuTimers) clearTimeout(timer);
  }
}

/**
 * The webhook case, on PostgreSQL only: a fresh database, a receiver, Till with
 * `NODE_ENV=development` (loopback webhooks are refused in production) and
 * `TILL_ALLOW_LOOPBACK_WEBHOOKS=true`, one endpoint subscribed to every event; then the two cases.
 */
async function benchWebhooks(target: WebhookRow['target'] = 'till-postgres', cwd = root): Promise<{ rows: WebhookRow[]; unexpected: number; badRequests: number; postgres?: string }> {
  const cases: WebhookCase[] = ['API state changes', 'outbox writes'];
  const allAre = (status: 'skipped' | 'failed', reason: string) => ({ rows: cases.map((c) => ({ target, case: c, status, reason })), unexpected: 0, badRequests: 0 });
  let database: Awaited<ReturnType<typeof createBenchDatabase>>;
  try {
    database = await createBenchDatabase();
  } catch (error) {
    checkInterrupted();
    if (error instanceof PgUnreachable) {
      console.log(`bench: PostgreSQL unreachable at ${PG_ADMIN_URL} (${error.message}): skipping the webhook case`);
      return allAre('skipped', 'PostgreSQL unreachable');
    }
    console.log(`bench: could not create the webhook bench database: ${message(error)}`);
    return allAre('failed', `could not create the bench database: ${message(error)}`);
  }
  const rows: WebhookRow[] = [];
  let receiver: WebhookReceiver | undefined;
  let till: TillProcess | undefined;
  const pool = new pg.Pool({ connectionString: database.url, max: OUTBOX_WRITERS });
  const endPool = onCleanup('close the webhook bench pool', () => pool.end());
  try {
    console.log(`bench: starting the webhook receiver and ${target} (NODE_ENV=development, TILL_ALLOW_LOOPBACK_WEBHOOKS=true)...`);
    receiver = await startWebhookReceiver();
    till = await spawnTill(database.url, { NODE_ENV: 'development', TILL_ALLOW_LOOPBACK_WEBHOOKS: 'true' }, cwd);
    await callJson('POST', `${till.url}/v1/WebhookConfiguration`, { Authorization: `Bearer ${till.secretKey}` }, { sandboxUrl: receiver.url, subscribedEvents: ['*'], description: 'bench receiver' });
    const context = { till, receiver, pool, previous: new Set<string>() };
    const t = till;

    rows.push({ ...(await measureWebhookCase('API state changes', context, (deadline, tally) => writeThroughApi(t, deadline, tally))), target });

    // The outbox case writes events shaped like the API case's payment.succeeded.
    const { rows: sample } = await pool.query<{ type: string; api_version: string; data: unknown }>(`SELECT type, api_version, data FROM events WHERE merchant_id = $1 AND type = 'payment.succeeded' ORDER BY seq DESC LIMIT 1`, [t.merchantId]);
    const template = { merchantId: t.merchantId, type: 'payment.succeeded', apiVersion: sample[0]?.api_version ?? '2026-11-01', data: sample[0]?.data ?? { object: 'payment', id: 0 } };
    rows.push({ ...(await measureWebhookCase('outbox writes', context, (deadline, tally) => writeToOutbox(pool, template, deadline, tally))), target });

    // Anything received that the database does not hold?
    const stored = await storedEvents(pool, t.merchantId);
    const unexpected = [...receiver.receipts.keys()].filter((id) => !stored.has(id)).length;
    return { rows, unexpected, badRequests: receiver.badRequests, postgres: database.serverVersion };
  } catch (error) {
    if (interrupted) throw error;
    console.log(`\nbench: the webhook case failed: ${message(error)}`);
    const done = new Set(rows.map((r) => r.case));
    for (const c of cases) if (!done.has(c)) rows.push({ target, case: c, status: 'failed', reason: message(error).split('\n')[0] ?? '' });
    return { rows, unexpected: 0, badRequests: receiver?.badRequests ?? 0 };
  } finally {
    await till?.stop();
    await receiver?.stop();
    await endPool();
    await database.drop();
  }
}

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

function fmt(n: number, digits: number): string {
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

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
    const cells = [`${r.target}${r.round ? ` #${r.round}` : ''}`, r.operation, fmt(r.reqPerSec ?? 0, 0), fmt(r.latencyMs.p50, 2), fmt(r.latencyMs.p99, 2), non2xx, ratio(r.vsNodeHttp), ratio(r.vsPrism)];
    return withBaseline ? [...cells, BASELINE_OF[r.target] ? ratio(r.vsBaseline) : ''] : cells;
  });
  return [header, ...body];
}

/** A plain-text table: text columns left-aligned, numbers right-aligned. */
function consoleTable(cells: string[][]): string {
  const header = cells[0] ?? [];
  const full = cells.filter((row) => row.length === header.length);
  const widths = header.map((_, i) => Math.max(...(i < 2 ? cells : full).map((row) => (row[i] ?? '').length)));
  const line = (row: string[]) =>
    row
      .map((cell, i) => (row.length < header.length && i === row.length - 1 ? cell : i < 2 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

/** A GitHub Markdown table. */
function markdownTable(cells: string[][]): string {
  const header = cells[0] ?? [];
  const line = (row: string[]) => `| ${header.map((_, i) => (row[i] ?? '').replace(/\|/g, '\\|')).join(' | ')} |`;
  return [line(header), `| ${header.map((_, i) => (i < 2 ? '---' : '---:')).join(' | ')} |`, ...cells.slice(1).map(line)].join('\n');
}

/** The webhook rows as cells, for the console and the Markdown table alike. */
function webhookCells(rows: WebhookRow[]): string[][] {
  const header = ['target', 'case', 'written/s', 'delivered/s', 'p50 ms', 'p99 ms', 'max ms', 'missing', 'dup', 'CPU till·recv·bench·pg·other', 'goals'];
  const n = (x: number | undefined) => (x === undefined ? '?' : fmt(x, 2));
  const cpu = (c: WebhookRow['cpuCores']) => (c ? `${n(c.till)}·${n(c.receiver)}·${n(c.bench)}·${n(c.postgres)}·${n(c.other)} of ${c.of}` : 'n/a');
  const body = rows.map((r) => {
    if (r.status !== 'ok' || !r.latencyMs) return [r.target, r.case, `${r.status}: ${r.reason ?? ''}`];
    const mark = (met: boolean | null | undefined) => (met === null ? 'n/a' : met ? '✓' : '✗');
    const goals = `≥${WEBHOOK_GOALS.eventsPerSec}/s ${mark(r.goalsMet?.eventsPerSec)} p99≤${WEBHOOK_GOALS.p99Ms / 1000} s ${mark(r.goalsMet?.p99)}`;
    const l = r.latencyMs;
    return [r.target, r.case, fmt(r.writtenPerSec ?? 0, 0), fmt(r.deliveredPerSec ?? 0, 0), fmt(l.p50, 0), fmt(l.p99, 0), fmt(l.max, 0), String(r.missing ?? 0), String(r.duplicates ?? 0), cpu(r.cpuCores), goals];
  });
  return [header, ...body];
}

// ---------------------------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------------------------

/** Till on a fresh PostgreSQL database of its own, dropped when it stops. */
async function startTillOnPostgres(cwd: string): Promise<RunningTarget> {
  const database = await createBenchDatabase();
  try {
    const till = await startTill(database.url, cwd);
    return { ...till, stop: async () => (await till.stop(), await database.drop()) };
  } catch (error) {
    await database.drop();
    throw error;
  }
}

/** Over every round: each Till target's total req/s over its baseline's, per operation. */
function overallVsBaseline(rows: Row[]): string[] {
  const total = (target: TargetName, operation: OperationName) => rows.filter((r) => r.target === target && r.operation === operation && r.status === 'ok').reduce((sum, r) => sum + (r.reqPerSec ?? 0), 0);
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

async function main(): Promise<number> {
  const environment = {
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    autocannon: autocannonVersion,
    postgres: undefined as string | undefined,
  };
  const settings = { durationSeconds: DURATION_S, warmupSeconds: WARMUP_S, connections: CONNECTIONS, pipelining: 1 };
  console.log(`bench: node ${environment.node}, ${environment.cpus} CPUs (${environment.cpuModel}), ${environment.platform}, autocannon ${environment.autocannon}`);
  console.log(`bench: ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s per target and operation`);

  const rows: Row[] = [];
  const skip = (target: TargetName, status: 'skipped' | 'failed', reason: string) => {
    for (const operation of OPERATIONS) rows.push({ target, operation, status, reason });
  };

  /** Starts a target, measures both operations, stops it. A target that fails is reported, not fatal. */
  const bench = async (name: TargetName, start: () => Promise<RunningTarget>, round?: number) => {
    if (!wanted(partOf(name))) return skip(name, 'skipped', 'not in BENCH_ONLY');
    let target: RunningTarget | undefined;
    try {
      checkInterrupted();
      console.log(`bench: starting ${name}${round ? ` (round ${round} of ${ROUNDS})` : ''}...`);
      target = await start();
      for (const operation of OPERATIONS) rows.push({ ...(await measure(name, operation, target)), ...(round ? { round } : {}) });
    } catch (error) {
      if (interrupted) throw error;
      console.log(`\nbench: ${name} failed: ${message(error)}`);
      const done = new Set(rows.filter((r) => r.target === name && r.round === round).map((r) => r.operation));
      for (const operation of OPERATIONS) if (!done.has(operation)) rows.push({ target: name, operation, status: 'failed', reason: message(error).split('\n')[0] ?? '', ...(round ? { round } : {}) });
    } finally {
      await target?.stop();
    }
  };

  const baseline = BASELINE_REVISION ? await prepareBaseline(BASELINE_REVISION) : undefined;
  if (baseline) console.log(`bench: baseline ${baseline.revision} (${baseline.commit}) checked out in ${baseline.dir}`);
  /** Each round of a Till target on one database, beside the baseline's; odd rounds this checkout first, even rounds the baseline first. */
  const benchRounds = async (ours: TargetName, theirs: TargetName, start: (cwd: string) => Promise<RunningTarget>) => {
    for (let round = 1; round <= ROUNDS; round++) {
      const pair: Array<[TargetName, string]> = [[ours, root], ...(baseline ? [[theirs, baseline.dir] as [TargetName, string]] : [])];
      for (const [name, cwd] of round % 2 === 1 ? pair : pair.reverse()) await bench(name, () => start(cwd), ROUNDS > 1 ? round : undefined);
    }
  };
  await benchRounds('till-pglite', 'baseline-pglite', (cwd) => startTill(undefined, cwd));

  let database: Awaited<ReturnType<typeof createBenchDatabase>> | undefined;
  try {
    if (wanted('till-postgres')) database = await createBenchDatabase();
    else skip('till-postgres', 'skipped', 'not in BENCH_ONLY');
    environment.postgres = database?.serverVersion;
  } catch (error) {
    checkInterrupted();
    if (error instanceof PgUnreachable) {
      console.log(`bench: PostgreSQL unreachable at ${PG_ADMIN_URL} (${error.message}): skipping till-postgres`);
      skip('till-postgres', 'skipped', 'PostgreSQL unreachable');
    } else {
      console.log(`bench: could not create the bench database: ${message(error)}`);
      skip('till-postgres', 'failed', `could not create the bench database: ${message(error)}`);
    }
  }
  if (database) {
    await database.drop(); // PostgreSQL answers: each start below gets a fresh database of its own
    await benchRounds('till-postgres', 'baseline-postgres', startTillOnPostgres);
  }

  await bench('node-http', startNodeHttp);
  await bench('prism', startPrismTarget);

  checkInterrupted();
  const webhooks: Awaited<ReturnType<typeof benchWebhooks>> = wanted('webhooks')
    ? await benchWebhooks()
    : { rows: (['API state changes', 'outbox writes'] as const).map((c) => ({ target: 'till-postgres' as const, case: c, status: 'skipped' as const, reason: 'not in BENCH_ONLY' })), unexpected: 0, badRequests: 0, postgres: undefined };
  environment.postgres ??= webhooks.postgres;
  if (baseline && wanted('webhooks')) {
    const before = await benchWebhooks('baseline-postgres', baseline.dir);
    webhooks.rows.push(...before.rows);
    webhooks.unexpected += before.unexpected;
    webhooks.badRequests += before.badRequests;
  }
  await baseline?.remove();

  // Ratios of req/s to the two references, per operation.
  for (const row of rows) {
    if (row.status !== 'ok') continue;
    const ref = (target: TargetName) => rows.find((r) => r.target === target && r.operation === row.operation && r.status === 'ok')?.reqPerSec;
    const nodeHttp = ref('node-http');
    const prism = ref('prism');
    const before = BASELINE_OF[row.target] && rows.find((r) => r.target === BASELINE_OF[row.target] && r.operation === row.operation && r.round === row.round && r.status === 'ok')?.reqPerSec;
    if (nodeHttp) row.vsNodeHttp = row.reqPerSec! / nodeHttp;
    if (prism) row.vsPrism = row.reqPerSec! / prism;
    if (before) row.vsBaseline = row.reqPerSec! / before;
  }

  const cells = tableCells(rows);
  console.log(`\n${consoleTable(cells)}\n`);
  console.log('×node:http and ×prism: req/s of the row divided by req/s of that reference for the same operation.');
  if (baseline) console.log(`×baseline: req/s of the row divided by the same target's at ${baseline.revision} (${baseline.commit}) in the same round.${ROUNDS > 1 ? `\n${overallVsBaseline(rows).join('\n')}` : ''}`);
  const hookCells = webhookCells(webhooks.rows);
  console.log(`\n${consoleTable(hookCells)}\n`);
  console.log(
    `Webhooks: written/s and delivered/s (distinct events first received) in the measured window; latency from the event's created to its receipt; missing and dup over every event of the case after the drain. Goals: ≥ ${WEBHOOK_GOALS.eventsPerSec} events/s, p99 ≤ ${WEBHOOK_GOALS.p99Ms} ms; n/a: fewer events were written than the goal, so it cannot be judged.`,
  );

  // Verdict: every target measured, and no Till row over the error threshold.
  const problems: string[] = [];
  for (const row of rows) {
    if (row.status === 'failed') problems.push(`${row.target} ${row.operation}: ${row.reason}`);
    if (row.status !== 'ok') continue;
    const bad = row.non2xx! + row.errors!;
    const share = bad / Math.max(1, row.responses! + row.errors!);
    if (bad > 0) {
      console.log(`\nbench: ${row.target} ${row.operation}: ${row.non2xx} non-2xx, ${row.errors} connection errors (${fmt(share * 100, 2)}%); status codes ${JSON.stringify(row.statusCodes)}; samples:`);
      for (const sample of row.sampleErrors ?? []) console.log(`  ${sample}`);
    }
    if (!['node-http', 'prism'].includes(row.target) && share > MAX_ERROR_SHARE) problems.push(`${row.target} ${row.operation}: ${fmt(share * 100, 2)}% of responses non-2xx or errors (limit ${MAX_ERROR_SHARE * 100}%)`);
    if (row.target.startsWith('till-') && row.operation === 'POST /v1/customers' && (row.statusCodes?.['200'] ?? 0) > 0) {
      problems.push(`${row.target} POST /v1/customers: ${row.statusCodes?.['200']} answers were 200 (existing customer) instead of 201 (created): the emails were not unique`);
    }
  }

  for (const row of webhooks.rows) {
    const name = `webhooks ${row.case}`;
    if (row.status === 'failed') problems.push(`${name}: ${row.reason}`);
    if (row.status !== 'ok') continue;
    if (row.missing) problems.push(`${name}: ${row.missing} of ${row.events} events had not reached the receiver ${WEBHOOK_DRAIN_S} s after the writes stopped`);
    if (row.duplicates) problems.push(`${name}: ${row.duplicates} events reached the receiver more than once`);
    const share = (row.failedWrites ?? 0) / Math.max(1, (row.failedWrites ?? 0) + (row.events ?? 0));
    if (share > MAX_ERROR_SHARE) problems.push(`${name}: ${row.failedWrites} writes failed (${fmt(share * 100, 2)}%), e.g. ${row.sampleErrors?.[0] ?? '?'}`);
    else if (row.failedWrites) console.log(`\nbench: ${name}: ${row.failedWrites} writes failed, e.g. ${row.sampleErrors?.[0] ?? '?'}`);
  }
  if (webhooks.unexpected) problems.push(`webhooks: ${webhooks.unexpected} events received that the database does not hold`);
  if (webhooks.badRequests) problems.push(`webhooks: ${webhooks.badRequests} requests to the receiver were not event envelopes`);

  await mkdir(outDir, { recursive: true });
  const generatedAt = new Date().toISOString();
  await writeFile(path.join(outDir, 'results.json'), `${JSON.stringify({ generatedAt, environment, settings, results: rows, webhooks: { goals: WEBHOOK_GOALS, settings: { outboxEventsPerSec: WEBHOOK_RATE, drainSeconds: WEBHOOK_DRAIN_S, apiLoops: CONNECTIONS }, results: webhooks.rows, unexpectedEvents: webhooks.unexpected, badRequests: webhooks.badRequests } }, null, 2)}\n`);
  const markdown = [
    '# Till benchmark',
    '',
    `${generatedAt} · node ${environment.node} · ${environment.cpus} CPUs (${environment.cpuModel}) · ${environment.platform} · PostgreSQL ${environment.postgres ?? 'n/a'} · autocannon ${environment.autocannon}, ${CONNECTIONS} connections, ${WARMUP_S} s warm-up + ${DURATION_S} s per row`,
    '',
    'Targets, each a separate process on this machine, loaded one at a time by autocannon from the bench process:',
    '',
    '- **till-pglite**: Till (`server/main.ts`, `NODE_ENV=production`, so no response validation; rate limits scaled ×1000) on the embedded PGlite, fresh data directory.',
    '- **till-postgres**: the same, on the PostgreSQL server, in a fresh database dropped afterwards.',
    "- **node-http**: a bare `node:http` server answering Till's plan JSON for GET and a 201 customer JSON for POST: what Node alone can do here.",
    '- **prism**: the Prism mock of the Checkout & Billing contract (`scripts/mock.mjs`), validating each request and answering the documented example.',
    '',
    'Operations: `GET /v1/plans/{id}` (one plan by id) and `POST /v1/customers` (a new email every request, so Till inserts a row each time), both with a bearer secret key.',
    '×node:http and ×prism are req/s ratios to that reference for the same operation. Latency is measured per response with sub-millisecond precision.',
    ...(baseline
      ? [
          `**baseline-pglite** and **baseline-postgres**: Till at \`${baseline.revision}\` (${baseline.commit}), checked out beside this checkout and run the same way, in turn with it (${ROUNDS} round${ROUNDS > 1 ? 's, odd ones this checkout first, even ones the baseline first' : ', this checkout first'}); ×baseline is this checkout's req/s over the baseline's in the same round.`,
          ...(ROUNDS > 1 ? ['', ...overallVsBaseline(rows).map((line) => `- ${line.trim()}`)] : []),
        ]
      : []),
    '',
    markdownTable(cells),
    '',
    '## Webhook delivery (PostgreSQL)',
    '',
    `Till (\`NODE_ENV=development\`, \`TILL_ALLOW_LOOPBACK_WEBHOOKS=true\`) on a fresh PostgreSQL database delivers every event of the merchant to one HTTPS receiver on 127.0.0.1 in its own process (self-signed certificate, answers 200 at once). Each case writes for ${WARMUP_S} s warm-up + ${DURATION_S} s, then waits up to ${WEBHOOK_DRAIN_S} s for the last deliveries.`,
    '',
    `- **API state changes**: ${CONNECTIONS} loops create a checkout session, tokenize test card 4242424242424242 and confirm it (\`payment.succeeded\` and \`checkout.session.completed\` per confirm), as fast as the API answers.`,
    `- **outbox writes**: the bench inserts ${WEBHOOK_RATE} events a second into the \`events\` table (the outbox), one per statement, as \`writeEvent\` writes them: many API processes' writes, more than the API of one process on this machine can make.`,
    '',
    `written/s: events whose \`created\` falls in the measured window; delivered/s: distinct events first received in it. Latency: from the event's \`created\` (its write, on the system clock) to its receipt, for the events written in the window. missing (not received by the end of the drain) and dup (received more than once): every event of the case. CPU: cores used in the window by Till, the receiver, the bench process (the writes), PostgreSQL (all its processes) and everything else on the machine. Goals: ≥ ${WEBHOOK_GOALS.eventsPerSec} events/s delivered, p99 ≤ ${WEBHOOK_GOALS.p99Ms} ms (n/a: fewer events were written than the goal). delivered/s can exceed written/s while a backlog from the warm-up drains.`,
    '',
    markdownTable(hookCells),
    '',
    ...(problems.length ? ['Problems:', '', ...problems.map((p) => `- ${p}`), ''] : []),
  ].join('\n');
  await writeFile(path.join(outDir, 'results.md'), markdown);
  console.log(`\nbench: wrote ${path.relative(root, path.join(outDir, 'results.json'))} and ${path.relative(root, path.join(outDir, 'results.md'))}`);

  if (problems.length) {
    console.log('\nbench: FAILED');
    for (const problem of problems) console.log(`  - ${problem}`);
    return 1;
  }
  return 0;
}

main()
  .then(
    (code) => code,
    (error: unknown) => {
      if (!interrupted) console.error(`\nbench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return 1;
    },
  )
  .then(async (code) => {
    await cleanupAll();
    process.exit(interrupted ? 130 : code);
  });
