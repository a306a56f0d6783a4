// The req/s rows of `npm run bench`: autocannon (typed here, it ships no declarations), the three
// operations, and measuring one operation against one running target.
import { createRequire } from 'node:module';
import { checkInterrupted, CONNECTIONS, DURATION_S, setCurrentLoad, WARMUP_S } from './bench-lib.js';
import { fmt, type LatencySummary, latencySummary } from './bench-format.js';
import { SESSION_BODY } from './bench-payments.js';
import { type RunningTarget, runTag } from './bench-targets.js';

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
export const autocannonVersion = (createRequire(import.meta.url)('autocannon/package.json') as { version: string }).version;

// ---------------------------------------------------------------------------------------------
// The operations and the load runner
// ---------------------------------------------------------------------------------------------

export type OperationName = 'GET /v1/plans/{id}' | 'POST /v1/customers' | 'POST /v1/checkout-sessions';
export const OPERATIONS: OperationName[] = ['GET /v1/plans/{id}', 'POST /v1/customers', 'POST /v1/checkout-sessions'];

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
export interface Row {
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
  /** Concurrent connections, when not BENCH_CONNECTIONS (an extra row, e.g. PGlite's sessions at 10). */
  connections?: number;
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
  connections = CONNECTIONS,
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
    const instance = autocannon({ url, connections, duration: durationS, timeout: 10, requests: [request(onResponse)] }, (error, result) => {
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

/** Warms up for 1 s, then measures one operation against one target (at `connections`, when given, not BENCH_CONNECTIONS). */
export async function measure(name: TargetName, operation: OperationName, target: RunningTarget, connections?: number): Promise<Row> {
  const label = `${operation}${connections ? ` c${connections}` : ''}`;
  process.stdout.write(`bench: ${name.padEnd(15)} ${label.padEnd(26)} ... ${WARMUP_S} s warm-up + ${DURATION_S} s`);
  const request = (onResponse: (status: number, body: string) => void) => loadRequest(operation, target, onResponse);
  checkInterrupted();
  await runLoad(target.url, request, WARMUP_S, connections);
  checkInterrupted();
  const { result, times, samples } = await runLoad(target.url, request, DURATION_S, connections);
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
    ...(connections ? { connections } : {}),
  };
  const bad = row.non2xx! + row.errors!;
  console.log(
    `  → ${fmt(row.reqPerSec!, 0)} req/s, p50 ${fmt(row.latencyMs!.p50, 2)} ms, p99 ${fmt(row.latencyMs!.p99, 2)} ms${bad ? `, ${row.non2xx} non-2xx, ${row.errors} errors` : ''}`,
  );
  return row;
}
export type TargetName =
  | 'till-pglite'
  | 'baseline-pglite'
  | 'till-postgres'
  | 'baseline-postgres'
  | 'till-postgres-2'
  | 'till-postgres-metrics'
  | 'till-postgres-bare'
  | 'node-http'
  | 'pg-floor'
  | 'pg-floor-logged'
  | 'express-floor'
  | 'pglite-floor'
  | 'prism';
/** The baseline row each Till row is compared with (BENCH_BASELINE). */
export const BASELINE_OF: Partial<Record<TargetName, TargetName>> = { 'till-pglite': 'baseline-pglite', 'till-postgres': 'baseline-postgres' };
