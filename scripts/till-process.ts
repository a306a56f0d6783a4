// Till as its own process, the way a deployment starts it, for the scripts that run the conformance
// suite against it (conformance-ci.ts, conformance-selftest.ts): merchants made by the merchant
// command before the server starts, the server started and waited for, and stopped.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from './mock.mjs';

const run = promisify(execFile);
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** A merchant as `scripts/merchant.ts create --json` prints it. */
export interface MadeMerchant {
  keys: { test: { secret: string; publishable: string }; live: { secret: string } };
}

/** Makes a merchant with the merchant command, `extra` its further flags (before the server starts: PGlite's data dir has one user at a time). */
export async function merchant(name: string, env: NodeJS.ProcessEnv, extra: string[] = []): Promise<MadeMerchant> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'scripts/merchant.ts', 'create', '--name', name, '--json', ...extra], { cwd: root, env });
  return JSON.parse(stdout);
}

let built: Promise<unknown> | undefined;
/** `npm run build` once per run of these scripts (`--if-stale`: nothing to do when dist/ is current). */
const build = () => (built ??= run(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: root }));

/**
 * Starts the server as a deployment does, from the build (`npm start`: dist/server/main.js, the
 * server bundled in one file); its log (JSON lines on stdout) goes to `logFile`, for the secrets scan.
 */
export async function startServer(env: NodeJS.ProcessEnv, logFile: string): Promise<{ url: string; child: ChildProcess }> {
  await build();
  const port = await freePort();
  await mkdir(path.dirname(logFile), { recursive: true });
  const log = createWriteStream(logFile);
  const child = spawn(process.execPath, ['dist/server/main.js'], {
    cwd: root,
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.pipe(log);
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr = (stderr + c).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  // Two minutes: a cold start migrates (PostgreSQL), and a busy CI machine is slow.
  for (const deadline = Date.now() + 120_000; Date.now() < deadline;) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}: ${stderr}`);
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { url, child };
    await new Promise((r) => setTimeout(r, 250));
  }
  child.kill('SIGKILL');
  throw new Error(`the server did not answer /healthz: ${stderr}`);
}

/** Stops a child: SIGTERM, then SIGKILL after ten seconds. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

/** The suite's flags for the two merchants: A's test keys and live secret key, and B as "another merchant". */
export const merchantArgs = (a: MadeMerchant, b: MadeMerchant): string[] => [
  '--secret-key',
  a.keys.test.secret,
  '--publishable-key',
  a.keys.test.publishable,
  '--other-secret-key',
  b.keys.test.secret,
  '--live-secret-key',
  a.keys.live.secret,
];

/** Runs the tasks, at most `limit` at a time; answers their results in the tasks' order. */
export async function inPool<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = [];
  const queue = tasks.map((task, i) => ({ task, i }));
  const worker = async () => {
    for (let next = queue.shift(); next; next = queue.shift()) results[next.i] = await next.task();
  };
  await Promise.all(Array.from({ length: Math.max(1, limit) }, worker));
  return results;
}
