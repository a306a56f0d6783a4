// Starts Till: configuration, database and migrations, the demo merchant on first start, the job
// queue, the HTTP server and the notification hub on it. `npm start` runs this file.
import cluster from 'node:cluster';
import { access, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Logger } from 'pino';
import { closeRequestLog, createApp } from './app.js';
import { type Clock, systemClock } from './shared/clock.js';
import { type Config, loadConfig } from './config.js';
import { openDatabase, type TillDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { pgliteTemplate } from './db/pglite-template.js';
import { countMerchants, createMerchant, type MerchantCredentials } from './domain/merchants/merchant.service.js';
import { attachHub, type Hub } from './hub/index.js';
import { DOCS_PATH } from './pages/docs.js';
import { type Jobs, startJobs } from './jobs/index.js';
import { createLogger } from './log.js';
import { listenApp } from './http/listen.js';
import { answerWorkersWithClusterMetrics, joinClusterMetrics } from './metrics/cluster.js';
import { startTracing } from './tracing.js';
import { makeDirectory } from './shared/make-directory.js';

export interface RunningServer {
  url: string;
  server: Server;
  database: TillDatabase;
  jobs: Jobs | undefined;
  /** The notification hub on this server's WebSocket upgrades. */
  hub: Hub;
  config: Config;
  /** The demo merchant's keys, when this start created it. */
  demo: MerchantCredentials | undefined;
  close(): Promise<void>;
}

export interface StartOptions {
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  logger?: Logger;
  /** Start the job queue (default true). */
  jobs?: boolean;
  /** Print the demo keys to stdout when it is a terminal, or where they are when it is not (default true). */
  announce?: boolean;
  /**
   * Called once the server listens, with its `close`: from then on it answers requests, so a stop
   * asked for while the job queue still starts must close it cleanly too.
   */
  onListening?: (close: () => Promise<void>) => void;
}

/**
 * Where the demo merchant's keys go: `demo-merchant.json` in the data dir. That file belongs to
 * the embedded database of the same dir; so a PostgreSQL database whose demo merchant is new
 * writes there only when the file is not there yet, and otherwise beside it as
 * `demo-merchant-<database>.json`, never over the embedded database's keys.
 */
async function demoMerchantFile(config: Config): Promise<string> {
  const plain = path.join(config.dataDir, 'demo-merchant.json');
  if (!config.databaseUrl || !(await exists(plain))) return plain;
  const name = decodeURIComponent(new URL(config.databaseUrl).pathname.slice(1)).replace(/[^A-Za-z0-9_-]/g, '_') || 'postgres';
  return path.join(config.dataDir, `demo-merchant-${name}.json`);
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

/** Creates "Demo Merchant" on an empty database, writes its keys to the data dir and prints them. */
async function bootstrapDemoMerchant(database: TillDatabase, clock: Clock, config: Config, announce: boolean): Promise<MerchantCredentials | undefined> {
  if ((await countMerchants(database.db)) > 0) return undefined;
  const { credentials } = await createMerchant(database.db, clock, { name: 'Demo Merchant' });
  const file = await demoMerchantFile(config);
  await writeFile(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  if (announce && !process.stdout.isTTY) {
    // Not a terminal: stdout is likely a log that others read or ship. Keys never go there.
    console.log(`Created "Demo Merchant" (merchant id ${credentials.merchantId}). Its keys are in ${file} (not printed: stdout is not a terminal).`);
  } else if (announce) {
    const { test, live } = credentials.keys;
    console.log(
      [
        '',
        'Created "Demo Merchant" (merchant id ' + credentials.merchantId + '). Its keys are shown once; they are also in',
        `  ${file}`,
        '',
        `  test secret       ${test.secret}`,
        `  test publishable  ${test.publishable}`,
        `  live secret       ${live.secret}`,
        `  live publishable  ${live.publishable}`,
        '',
        `Try: curl -H "Authorization: Bearer ${test.secret}" ${config.publicBaseUrl}/v1/plans`,
        '',
      ].join('\n'),
    );
  }
  return credentials;
}

/** Starts everything and listens. Resolves once the server accepts connections. */
export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  const config = loadConfig(options.env ?? process.env);
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  if (config.rateLimitScale !== 1)
    logger.warn({ scale: config.rateLimitScale }, 'TILL_RATE_LIMIT_SCALE multiplies every rate limit: for benchmarks only, never in a real deployment');
  // Before the database and the app: their statements and requests are traced from the first.
  const tracing = await startTracing(options.env ?? process.env, logger);
  await makeDirectory(config.dataDir);
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: path.join(config.dataDir, 'pglite'),
    owner: 'the server',
    template: () => pgliteTemplate(), // a new data dir starts from the build's migrated template
  });
  await migrateToLatest(database.db);
  const demo = await bootstrapDemoMerchant(database, clock, config, options.announce ?? true);
  const app = createApp({ database, clock, config, logger });
  const server = await listenApp(app, config.port);
  const hub = await attachHub(server, { database, logger });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://127.0.0.1:${port}`;
  logger.info({ url, database: database.kind }, 'Till is listening');

  let jobsStarting: Promise<Jobs | undefined> = Promise.resolve(undefined);
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      // Stop accepting, then close the hub's sockets: an upgraded socket would keep server.close() waiting.
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      await hub.close();
      await stopped;
      server.closeAllConnections?.();
      await closeRequestLog(app);
      // A stop asked for while the job queue starts waits for its start, then stops it.
      await (await jobsStarting.catch(() => undefined))?.stop();
      await database.close();
      await tracing?.shutdown();
    })());
  options.onListening?.(close);
  // The job queue starts once the server answers: no request waits for it (requests write the rows
  // the jobs read; the jobs look for what was written before they started), and pg-boss's start
  // (its schema check, then a queue, a worker and a schedule for each queue) is most of a second.
  jobsStarting = options.jobs === false ? Promise.resolve(undefined) : startJobs(database, clock, logger, config);
  let jobs: Jobs | undefined;
  try {
    jobs = await jobsStarting;
  } catch (err) {
    await close();
    throw err;
  }
  return { url, server, database, jobs, hub, config, demo, close };
}

/** Runs one server in this process until SIGTERM or SIGINT. */
async function serve(options: StartOptions = {}) {
  const worker = cluster.isWorker ? ` (worker ${cluster.worker!.id})` : '';
  let stopping = false;
  // Installed once the server listens (it answers from then on, while the job queue still starts).
  const onListening = (close: () => Promise<void>) => {
    const shutdown = (signal: string) => {
      stopping = true;
      console.log(`${signal}: shutting down${worker}...`);
      const force = setTimeout(() => process.exit(1), 15_000);
      force.unref();
      close().then(
        () => process.exit(0),
        (err) => {
          console.error(err);
          process.exit(1);
        },
      );
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
  };
  const running = await startServer({ ...options, onListening });
  if (stopping) return;
  if (cluster.isWorker) joinClusterMetrics();
  console.log(
    `Till is listening on ${running.url}${worker} (database: ${running.database.kind}${running.database.kind === 'pglite' ? `, data in ${running.config.dataDir}` : ''}).`,
  );
  if (!cluster.isWorker || cluster.worker?.id === 1) console.log(`API reference: ${running.config.publicBaseUrl}${DOCS_PATH}`);
}

/**
 * `TILL_WORKERS=N` (PostgreSQL only): this process migrates and creates the demo merchant once,
 * then forks N workers that share the port (node:cluster hands them connections in turn). Only the
 * first runs the job queue (and so does its replacement, if it dies). A worker that dies is
 * replaced; SIGTERM or SIGINT stops them all.
 */
async function primary(workers: number) {
  const config = loadConfig(process.env);
  // The demo merchant's keys are written there (a fresh TILL_DATA_DIR made this start fail).
  await makeDirectory(config.dataDir);
  const database = await openDatabase({ databaseUrl: config.databaseUrl });
  try {
    await migrateToLatest(database.db);
    await bootstrapDemoMerchant(database, systemClock, config, true);
  } finally {
    await database.close();
  }
  answerWorkersWithClusterMetrics();
  let stopping = false;
  let jobsWorker = -1;
  const fork = (jobs: boolean) => {
    const worker = cluster.fork({ TILL_WORKER_JOBS: jobs ? 'true' : 'false' });
    if (jobs) jobsWorker = worker.id;
  };
  for (let i = 0; i < workers; i++) fork(i === 0);
  cluster.on('exit', (worker, code) => {
    if (stopping) return;
    console.error(`worker ${worker.id} exited (${code}); starting another`);
    // The one that ran the job queue is replaced by one that runs it.
    fork(worker.id === jobsWorker);
  });
  const stop = (signal: string) => {
    stopping = true;
    console.log(`${signal}: stopping ${workers} workers...`);
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    const force = setTimeout(() => process.exit(1), 20_000);
    force.unref();
    cluster.on('exit', () => Object.keys(cluster.workers ?? {}).length === 0 && process.exit(0));
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

async function main() {
  const workers = loadConfig(process.env).workers;
  if (cluster.isWorker) return serve({ announce: false, jobs: process.env.TILL_WORKER_JOBS !== 'false' });
  if (workers > 1) return primary(workers);
  return serve();
}

/** Runs Till as `npm start` does (scripts/start.mjs calls this once dist/ is current): one server, or the workers; a failed start exits 1 with its reason. */
export function run(): void {
  main().catch((err) => {
    console.error(`Till could not start: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) run();
