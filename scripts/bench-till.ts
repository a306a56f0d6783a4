// Till in a child process for the bench: how to run it in a checkout, its environment, and starting it
// with a fresh data dir until it (and every worker) answers, with its demo merchant's test keys.
import { type ChildProcess, execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './mock.mjs';
import { onCleanup, root, sleep, spawnTracked, stopChild, waitForHttp } from './bench-lib.js';

/** A Till child process and its demo merchant's test keys. */
export interface TillProcess {
  url: string;
  merchantId: number;
  secretKey: string;
  publishableKey: string;
  /** The child's process id (for its CPU time); with TILL_WORKERS, the primary's. */
  pid: number | undefined;
  /** Its data directory (removed by `stop`). */
  dataDir: string;
  /** Stops the process and keeps its data directory (for the PGlite floor). */
  stopProcess: () => Promise<void>;
  stop: () => Promise<void>;
}

const builds = new Map<string, Promise<string[]>>();

/**
 * How to run Till in a checkout: `node dist/server/main.js` after `node scripts/build.mjs` (run
 * once per checkout and bench run), or `node --import tsx server/main.ts` in a revision older than
 * the build (a BENCH_BASELINE worktree).
 */
export function tillCommand(cwd: string): Promise<string[]> {
  let pending = builds.get(cwd);
  if (!pending) {
    pending = (async () => {
      if (!existsSync(path.join(cwd, 'scripts', 'build.mjs'))) return ['--import', 'tsx', 'server/main.ts'];
      await promisify(execFile)(process.execPath, ['scripts/build.mjs'], { cwd });
      return ['dist/server/main.js'];
    })();
    builds.set(cwd, pending);
  }
  return pending;
}

/** The environment Till runs with in the bench: production, quiet logs, rate limits scaled ×1000. */
export function tillEnv(port: number, dataDir: string, databaseUrl: string | undefined, env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
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
  delete childEnv.TILL_WORKERS;
  if (databaseUrl) childEnv.DATABASE_URL = databaseUrl;
  if (env.TILL_WORKERS) childEnv.TILL_WORKERS = env.TILL_WORKERS;
  return childEnv;
}

/** Resolves once `workers` lines "Till is listening on …" (" (worker K)" with TILL_WORKERS) were printed: each once its process, job queue included, has started. */
async function waitForStarted(workers: number, child: ChildProcess, output: () => string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (new Set(output().match(/Till is listening on [^\n]*/g) ?? []).size < workers) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`Till exited (${child.exitCode ?? child.signalCode}) before it had started:\n${output()}`);
    if (Date.now() > deadline) throw new Error(`Till's ${workers} process(es) did not all start within ${timeoutMs / 1000} s:\n${output()}`);
    await sleep(100);
  }
}

/** BENCH_TILL_NODE_ARGS: Node's flags for every Till the bench starts (`--cpu-prof` is refused in NODE_OPTIONS). */
const tillNodeArgs = (): string[] => (process.env.BENCH_TILL_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);

/**
 * Starts Till in a child process (see tillCommand) with a fresh data dir, waits until it (every
 * worker with `TILL_WORKERS` in `env`) says it is listening, then for /healthz, and reads the demo merchant's test keys. `env` is
 * laid over tillEnv's. `cwd` is the checkout whose Till runs (this one, or the BENCH_BASELINE
 * worktree).
 */
export async function spawnTill(databaseUrl: string | undefined, env: NodeJS.ProcessEnv = {}, cwd = root): Promise<TillProcess> {
  const command = await tillCommand(cwd);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'till-bench-'));
  const removeDataDir = onCleanup(`remove ${dataDir}`, () => rm(dataDir, { recursive: true, force: true }));
  const port = (await freePort()) as number;
  const { child, output, exited } = spawnTracked(process.execPath, [...tillNodeArgs(), ...command], tillEnv(port, dataDir, databaseUrl, env), cwd);
  const stopServer = onCleanup(`stop Till (pid ${child.pid})`, () => stopChild(child, exited));
  const stop = async () => {
    await stopServer();
    await removeDataDir();
  };
  try {
    const url = `http://127.0.0.1:${port}`;
    // Every process has started, its job queue included (a server answers before its job queue has
    // started; the rates measure a started Till, the cold-start part its start).
    await waitForStarted(Number(env.TILL_WORKERS ?? 1), child, output);
    await waitForHttp(`${url}/healthz`, child, output);
    const demo = JSON.parse(await readFile(path.join(dataDir, 'demo-merchant.json'), 'utf8')) as DemoMerchant;
    return {
      url,
      merchantId: demo.merchantId,
      secretKey: demo.keys.test.secret,
      publishableKey: demo.keys.test.publishable,
      pid: child.pid,
      dataDir,
      stopProcess: stopServer,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** demo-merchant.json, as Till writes it in its data dir on first start. */
export interface DemoMerchant {
  merchantId: number;
  keys: { test: { secret: string; publishable: string } };
}
