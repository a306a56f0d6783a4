/**
 * What every part of `npm run bench` (scripts/bench.ts) shares: its settings, the cleanup of
 * everything it starts (also on Ctrl+C), child processes, HTTP calls and fresh PostgreSQL databases.
 * Till in a child process is in bench-till.ts; numbers, percentiles and tables in bench-format.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const outDir = path.join(root, 'out', 'bench');

// ---------------------------------------------------------------------------------------------
// Settings
// ---------------------------------------------------------------------------------------------

/** Reads a positive integer setting from the environment. */
export function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive integer; got "${raw}".`);
  return n;
}

export const DURATION_S = positiveInt('BENCH_DURATION', 5);
/** Rounds of each Till target (`BENCH_ROUNDS`); with BENCH_BASELINE they alternate which goes first. */
export const ROUNDS = positiveInt('BENCH_ROUNDS', 1);
/** Concurrent connections (and payment loops); the goals are set at 50. */
export const CONNECTIONS = positiveInt('BENCH_CONNECTIONS', 50);
export const WARMUP_S = 1;
export const PG_ADMIN_URL = process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

// ---------------------------------------------------------------------------------------------
// Cleanup: everything started registers how to undo it; undone in reverse order at the end, on
// an error, and on Ctrl+C. Child processes still alive when this process exits get SIGKILL.
// ---------------------------------------------------------------------------------------------

const cleanups: Array<{ label: string; run: () => Promise<void> }> = [];
const children = new Set<ChildProcess>();
/** The load generator running now, stopped on Ctrl+C. */
let currentLoad: { stop(): void } | undefined;

/** Sets (or clears) the load generator that Ctrl+C stops. */
export function setCurrentLoad(load: { stop(): void } | undefined): void {
  currentLoad = load;
}

/** Registers an undo step; returns a function that runs it now (once) and unregisters it. */
export function onCleanup(label: string, run: () => Promise<void>): () => Promise<void> {
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
export function cleanupAll(): Promise<void> {
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
export function checkInterrupted(): void {
  if (interrupted) throw new Error('interrupted');
}

process.on('exit', () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) signalChild(child, 'SIGKILL');
});

let interrupted = false;

/** Whether Ctrl+C (or SIGTERM) was received. */
export function isInterrupted(): boolean {
  return interrupted;
}

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

export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Children started in a process group of their own (`detached`): signals go to the whole group. */
const groups = new WeakSet<ChildProcess>();

/** Sends `signal` to a child, or to its whole process group when it was started detached. */
function signalChild(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (groups.has(child) && child.pid !== undefined) process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    // already gone
  }
}

/**
 * Spawns a child process, tracked for cleanup, keeping the tail of its output for error messages.
 * `detached`: in a process group of its own (e.g. `npm start` and the server it starts), stopped as a group.
 */
export function spawnTracked(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd = root,
  options: { detached?: boolean } = {},
): { child: ChildProcess; output: () => string; exited: Promise<void> } {
  checkInterrupted();
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached ?? false });
  if (options.detached) groups.add(child);
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

/** SIGTERM, then SIGKILL if the process has not exited after `graceMs`; a detached group gets SIGKILL after its leader exited. */
export async function stopChild(child: ChildProcess, exited: Promise<void>, graceMs = 20_000): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    signalChild(child, 'SIGTERM');
    const timer = setTimeout(() => signalChild(child, 'SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }
  if (groups.has(child)) await groupEnded(child, graceMs);
}

/** Whether a process of the child's group is still alive. */
function groupAlive(child: ChildProcess): boolean {
  try {
    process.kill(-child.pid!, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Waits for what of the group outlived its leader (`npm start`'s server, still closing its
 * database when npm has exited) to end by itself, then kills what is left: a server killed
 * mid-shutdown would leave its database locked for the next start.
 */
async function groupEnded(child: ChildProcess, graceMs: number): Promise<void> {
  const deadline = Date.now() + graceMs;
  while (groupAlive(child) && Date.now() < deadline) await sleep(20);
  signalChild(child, 'SIGKILL');
  while (groupAlive(child) && Date.now() < deadline + 5000) await sleep(20);
}

/** Polls `url` until it answers 200; fails early when the child exits. */
export async function waitForHttp(url: string, child: ChildProcess, output: () => string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the process exited (${child.exitCode ?? child.signalCode}) before answering:\n${output()}`);
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
export async function callJson(
  method: string,
  url: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; text: string; json: unknown }> {
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
export function idOf(json: unknown): string {
  const object = json as { id?: unknown; data?: { id?: unknown } } | null;
  const id = object?.data?.id ?? object?.id;
  if (typeof id !== 'string' && typeof id !== 'number') throw new Error(`no id in ${JSON.stringify(json).slice(0, 300)}`);
  return String(id);
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL
// ---------------------------------------------------------------------------------------------

/** Creates `till_bench_<timestamp>` on the PostgreSQL server; returns its URL and how to drop it. */
export async function createBenchDatabase(): Promise<{ url: string; drop: () => Promise<void>; serverVersion: string }> {
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

export class PgUnreachable extends Error {}
