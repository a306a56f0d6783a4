// Till in processes of its own, as `npm start` and `npm run merchant` run it: spawned servers and
// merchant commands, their output, temporary data directories (empty, or seeded with the run's
// migrated template so a start skips initdb and the migrations), free ports and dead pids.
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPglite } from '../../server/db/pglite-start.js';
import { afterAll } from 'vitest';
import { openDatabase, type TillDatabase } from '../../server/db/database.js';
import { openTestDatabase, pgliteTemplate, usingPostgres } from './database.js';

export const root = path.resolve(import.meta.dirname, '../..');

/** What a process's output is waited for: a piece of text, a pattern, or a test of the whole output so far. */
export type Wanted = string | RegExp | ((output: string) => boolean);

export interface Running {
  child: ChildProcess;
  /** Everything it wrote so far, stdout and stderr as they came. */
  output(): string;
  /** Its end, once its output is closed too (so `output()` is complete then). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * Resolves true once the output shows `wanted`, or false when the process ends without it;
   * fails after `timeout` ms with the output so far.
   */
  waitFor(wanted: Wanted, timeout?: number): Promise<boolean>;
}

export interface Till extends Running {
  /** Where it listens (from its "Till is listening on …" line); empty when it did not start. */
  url: string;
}

export interface Processes {
  /** A new empty directory, removed after the file's last test. */
  tempDir(): Promise<string>;
  /**
   * A new data directory (TILL_DATA_DIR) whose embedded database (`pglite/`) is a copy of the
   * run's migrated template: a start on it runs no initdb and no migration. The template has no
   * merchant, so a server started on it still creates its demo merchant.
   */
  seededDataDir(): Promise<string>;
  /** `server/main.ts` (or the build, `entry` 'built') in a process of its own, as `npm start` runs it (nothing waited for). */
  spawnTill(env: NodeJS.ProcessEnv, entry?: TillEntry): Running;
  /** Starts `server/main.ts` (or the build) on a port of its own and waits until it listens, or has exited. */
  startTill(env: NodeJS.ProcessEnv, entry?: TillEntry): Promise<Till>;
  /** `npm run merchant -- <args>`: its exit code and output. */
  merchant(args: string[], env?: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }>;
}

/** How long a spawned server may take to say it listens: it loads TypeScript through tsx first, slow on a busy machine. */
const START_TIMEOUT = 60_000;

/** Makes `dir` an embedded database (PGlite's data directory) holding a copy of the run's migrated template. */
export async function seedPglite(dir: string): Promise<void> {
  const pglite = await createPglite({ dataDir: dir, loadDataDir: await pgliteTemplate() });
  await pglite.close();
}

/**
 * What a spawned server runs: the sources through tsx, or the build `npm start` runs
 * (dist/server/main.js, which loads the server bundled with its dependencies; see buildIfStale).
 */
export type TillEntry = 'sources' | 'built';

/** Builds dist/ as `npm start` would, when a source is newer than it (scripts/build.mjs --if-stale). */
export function buildIfStale(): void {
  execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: root, stdio: 'pipe' });
}

/** `server/main.ts` (or the build) in a process of its own, as `npm start` runs it (nothing waited for, nobody kills it: see useProcesses). */
export function spawnTill(env: NodeJS.ProcessEnv, entry: TillEntry = 'sources'): Running {
  const args = entry === 'built' ? ['dist/server/main.js'] : ['--import', 'tsx', 'server/main.ts'];
  return watch(spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] }));
}

const LISTENING = /Till is listening on (http:\/\/\S+?:\d+)/;

/** Waits until a spawned Till says where it listens; its url is empty when it exited first. */
export async function listening(till: Running): Promise<Till> {
  await till.waitFor(LISTENING);
  return { ...till, url: LISTENING.exec(till.output())?.[1] ?? '' };
}

/** As `listening`, but a Till that exited at start fails the test with its output. */
export async function mustListen(till: Running): Promise<Till> {
  const started = await listening(till);
  if (!started.url) throw new Error(`Till exited at start:\n${till.output().slice(-2000)}`);
  return started;
}

/**
 * A database for Till in processes of its own, already migrated (a copy of the run's template, so
 * a start runs no migration): on PostgreSQL a database of its own (DATABASE_URL), on PGlite a data
 * directory (TILL_DATA_DIR). This process holds it open until `release` (PGlite admits one process).
 */
export async function processDatabase(label: string) {
  const dataDir = await mkdtemp(path.join(tmpdir(), `till-${label}-`));
  const pgliteDir = path.join(dataDir, 'pglite');
  const copy = usingPostgres ? await openTestDatabase(label) : undefined;
  let handle: TillDatabase | undefined = copy?.database ?? (await openDatabase({ dataDir: pgliteDir, loadDataDir: await pgliteTemplate() }));
  const release = async () => {
    if (copy || !handle) return;
    await handle.close();
    handle = undefined;
  };
  return {
    env: { NODE_ENV: 'test', TILL_DATA_DIR: dataDir, ...(copy ? { DATABASE_URL: copy.url } : {}) } as NodeJS.ProcessEnv,
    /** This process's handle on it (opened again after a release). */
    open: async (): Promise<TillDatabase> => (handle ??= await openDatabase({ dataDir: pgliteDir })),
    release,
    async drop() {
      await release();
      await copy?.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** The environment of an embedded-database process on `dataDir` (never the suite's DATABASE_URL). */
export function embeddedEnv(dataDir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TILL_DATA_DIR: dataDir, NODE_ENV: 'test', LOG_LEVEL: 'silent', ...extra };
  delete env.DATABASE_URL;
  return env;
}

/** A port no one listens on now (for servers that cannot be told to take port 0, like a cluster's workers). */
export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

/** A pid that no process has now: one that has just exited. */
export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

/** Follows a child's output and its end. */
export function watch(child: ChildProcess): Running {
  let out = '';
  const wakers = new Set<() => void>();
  const take = (chunk: Buffer | string) => {
    out += String(chunk);
    for (const wake of wakers) wake();
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  let ended = false;
  void exited.then(() => {
    ended = true;
    for (const wake of wakers) wake();
  });
  return {
    child,
    output: () => out,
    exited,
    waitFor(wanted, timeout = START_TIMEOUT) {
      const seen = typeof wanted === 'function' ? wanted : typeof wanted === 'string' ? (o: string) => o.includes(wanted) : (o: string) => wanted.test(o);
      return new Promise<boolean>((resolve, reject) => {
        const done = (settle: () => void) => {
          clearTimeout(timer);
          wakers.delete(check);
          settle();
        };
        const check = () => {
          if (seen(out)) done(() => resolve(true));
          else if (ended) done(() => resolve(false));
        };
        const timer = setTimeout(
          () => done(() => reject(new Error(`Not in the output within ${timeout} ms: ${String(wanted)}\n--- output ---\n${out}`))),
          timeout,
        );
        wakers.add(check);
        check();
      });
    },
  };
}

/**
 * The file's processes and temporary directories: every child still running is killed, and
 * every directory removed, after the file's last test. Call it once, at the top of a test file.
 */
export function useProcesses(): Processes {
  const dirs: string[] = [];
  const children = new Set<ChildProcess>();
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  const tempDir = async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'till-process-'));
    dirs.push(dir);
    return dir;
  };

  const spawnTracked = (env: NodeJS.ProcessEnv, entry?: TillEntry) => {
    const till = spawnTill(env, entry);
    children.add(till.child);
    return till;
  };

  return {
    tempDir,
    async seededDataDir() {
      const dataDir = await tempDir();
      await seedPglite(path.join(dataDir, 'pglite'));
      return dataDir;
    },
    spawnTill: spawnTracked,
    // Port 0: the system picks a free one, and the process says which.
    startTill: (env, entry) => listening(spawnTracked({ ...env, PORT: '0' }, entry)),
    merchant(args, env = process.env) {
      return new Promise((resolve) => {
        const child = execFile(process.execPath, ['--import', 'tsx', 'scripts/merchant.ts', ...args], { cwd: root, env }, (err, stdout, stderr) => {
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
        });
        children.add(child);
      });
    },
  };
}
