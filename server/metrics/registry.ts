// Till's Prometheus metrics: every one is defined here, once per process, on prom-client's global
// registry (the one a cluster worker answers its primary with: see cluster.ts). docs/observability.md
// lists them. The parts that measure (http.ts, jobs.ts, webhooks.ts, database.ts) only observe.
import { collectDefaultMetrics, Counter, Gauge, Histogram, register } from 'prom-client';

export { register };

/** Request latencies, in seconds: from a fast read (a few ms) to a slow webhook test send. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const httpRequests = new Counter({
  name: 'till_http_requests_total',
  help: 'HTTP requests answered, by operation (operationId; "page" outside the API, "unmatched" for an API path of no operation), method and status ("aborted" when the client left first).',
  labelNames: ['operation_id', 'method', 'status'] as const,
});

export const httpDuration = new Histogram({
  name: 'till_http_request_duration_seconds',
  help: 'Time from the request to the end of its answer, by operation, method and status.',
  labelNames: ['operation_id', 'method', 'status'] as const,
  buckets: LATENCY_BUCKETS,
});

export const httpInFlight = new Gauge({
  name: 'till_http_requests_in_flight',
  help: 'HTTP requests being answered now (Server-Sent Events and long polls included).',
});

export const webhookDeliveries = new Counter({
  name: 'till_webhook_deliveries_total',
  help: 'Automatic webhook delivery attempts recorded, by what the delivery became: succeeded, failed (retried later unless none is left), dead_lettered.',
  labelNames: ['outcome'] as const,
});

export const webhookLag = new Histogram({
  name: 'till_webhook_delivery_lag_seconds',
  help: 'From an event being written to its delivery succeeding (by the merchant clock of the mode), retries included.',
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 86_400],
});

/** Where a scrape reads the jobs waiting in each queue (the job queue of this process, when it runs one). */
export const queuedJobSources = new Set<() => Promise<ReadonlyArray<readonly [string, number]>>>();

export const jobsQueued = new Gauge({
  name: 'till_jobs_queued',
  help: 'Jobs waiting in each pg-boss queue (created, or failed and waiting for a retry), read at scrape time by the process that runs the job queue.',
  labelNames: ['queue'] as const,
  // Every worker that runs a job queue reads the same table: the largest, not the sum.
  aggregator: 'max',
  async collect() {
    this.reset();
    for (const source of queuedJobSources) {
      // A scrape answers without the counts rather than fail when the database does not answer.
      const counts = await source().catch(() => []);
      for (const [queue, n] of counts) this.set({ queue }, n);
    }
  },
});

export const jobsRunning = new Gauge({
  name: 'till_jobs_running',
  help: 'Jobs of each queue running now in this process.',
  labelNames: ['queue'] as const,
});

export const jobsFailed = new Counter({
  name: 'till_jobs_failed_total',
  help: 'Job runs that threw, by queue (pg-boss retries them by its policy).',
  labelNames: ['queue'] as const,
});

export const jobDuration = new Histogram({
  name: 'till_job_duration_seconds',
  help: 'How long one job run (one fetched batch) took, by queue and outcome (completed or failed).',
  labelNames: ['queue', 'outcome'] as const,
  buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300],
});

/** Reads the pools into the gauges below at scrape time (database.ts sets it). */
export const poolReader = { read: (): void => undefined };

export const dbPoolConnections = new Gauge({
  name: 'till_db_pool_connections',
  help: 'PostgreSQL pool connections open, by state (idle, in_use). The embedded PGlite has one connection and no pool: 0.',
  labelNames: ['state'] as const,
  collect: () => poolReader.read(),
});

export const dbPoolMax = new Gauge({
  name: 'till_db_pool_max_connections',
  help: 'The most connections the pool opens (1 for the embedded PGlite).',
});

export const dbPoolWaiting = new Gauge({
  name: 'till_db_pool_waiting_requests',
  help: 'Callers waiting now for a pool connection (PostgreSQL).',
});

export const dbPoolWait = new Histogram({
  name: 'till_db_pool_wait_seconds',
  help: 'How long a caller waited for a pool connection (PostgreSQL).',
  buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
});

let defaultsStarted = false;
/** Process and Node.js metrics (CPU, memory, event-loop lag, GC, handles): prom-client's defaults, once per process. */
export function collectProcessMetrics(): void {
  if (defaultsStarted) return;
  defaultsStarted = true;
  collectDefaultMetrics({ eventLoopMonitoringPrecision: 20 });
}
