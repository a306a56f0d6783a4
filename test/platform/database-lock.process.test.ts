// One process at a time on the embedded database: the server and the merchant command take a lock
// in the PGlite directory, a second opener is refused saying who holds it (and writes nothing),
// and a dead holder's lock is taken over. Driven as `npm start` and `npm run merchant` drive them:
// real processes on a temporary data directory.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/db/database.js';
import { DatabaseLockedError, lockPgliteDirectory } from '../../server/db/pglite-lock.js';
import { createLogger } from '../../server/log.js';
import { startServer } from '../../server/main.js';
import { call, emptyPostgres, usingPostgres } from '../support/server.js';

const root = path.resolve(import.meta.dirname, '../..');
const dirs: string[] = [];
const children = new Set<ChildProcess>();
const tempDir = async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'till-lock-'));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

/** The environment of an embedded-database process on `dataDir` (never the suite's DATABASE_URL). */
function embeddedEnv(dataDir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TILL_DATA_DIR: dataDir, NODE_ENV: 'test', LOG_LEVEL: 'silent', ...extra };
  delete env.DATABASE_URL;
  return env;
}

interface Till {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `server/main.ts` in its own process, as `npm start` does, and waits until it listens (or exits). */
async function startTill(env: NodeJS.ProcessEnv): Promise<Till> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: root,
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  for (let i = 0; i < 240 && !out.includes('Till is listening') && child.exitCode === null; i++) await new Promise((r) => setTimeout(r, 250));
  return { child, url: `http://127.0.0.1:${port}`, output: () => out, exited };
}

/** `npm run merchant -- <args>`: its exit code and output. */
function merchant(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'scripts/merchant.ts', ...args], { cwd: root, env }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const lockFile = (dataDir: string) => path.join(dataDir, 'pglite', 'till.lock');

/** A pid that no process has now: one that has just exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

describe.runIf(!usingPostgres)('the merchant command beside a running server on the embedded database', () => {
  it('is refused with who holds the database and what to do (exit 75, nothing written); once the server stops it works, and the next start serves the merchant', async () => {
    const dataDir = await tempDir();
    const env = embeddedEnv(dataDir);
    const first = await startTill(env);
    expect(first.output()).toContain('Till is listening');
    const demo = JSON.parse(await readFile(path.join(dataDir, 'demo-merchant.json'), 'utf8'));
    const held = JSON.parse(await readFile(lockFile(dataDir), 'utf8'));
    expect(held).toMatchObject({ role: 'the server', pid: first.child.pid, hostname: hostname() });

    const refused = await merchant(['create', '--name', 'Acme', '--json'], env);
    expect(refused.code).toBe(75);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(
      `the server (pid ${first.child.pid}, started ${held.startedAt}) holds the embedded database ${path.join(dataDir, 'pglite')}`,
    );
    expect(refused.stderr).toContain('Nothing was written.');
    expect(refused.stderr).toContain(`stop the server (Ctrl-C in its terminal, or kill ${first.child.pid}), run this command again, then start the server`);
    expect(refused.stderr).toContain('DATABASE_URL');
    // The server still holds its lock, and still answers.
    expect(JSON.parse(await readFile(lockFile(dataDir), 'utf8')).pid).toBe(first.child.pid);
    expect((await call(first.url, 'GET', '/v1/plans', { key: demo.keys.test.secret })).status).toBe(200);

    first.child.kill('SIGTERM');
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(existsSync(lockFile(dataDir))).toBe(false);

    const created = await merchant(['create', '--name', 'Acme', '--plan', 'enterprise', '--json'], env);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const keys = JSON.parse(created.stdout);
    expect(existsSync(lockFile(dataDir))).toBe(false);

    const second = await startTill(env);
    try {
      const products = await call(second.url, 'GET', '/v1/products', { key: keys.keys.test.secret });
      expect(products.status).toBe(200);
      expect(products.headers.get('x-ratelimit-limit')).toBe('500');
      expect((await call(second.url, 'GET', '/v1/plans', { key: demo.keys.test.secret })).status).toBe(200);
    } finally {
      second.child.kill('SIGINT');
      expect(await second.exited).toEqual({ code: 0, signal: null });
    }
    // SIGINT releases it too.
    expect(existsSync(lockFile(dataDir))).toBe(false);
  }, 120_000);

  it('a server killed outright leaves its lock behind, and the next opener takes it over', async () => {
    const dataDir = await tempDir();
    const env = embeddedEnv(dataDir);
    const till = await startTill(env);
    expect(till.output()).toContain('Till is listening');
    till.child.kill('SIGKILL');
    await till.exited;
    expect(JSON.parse(await readFile(lockFile(dataDir), 'utf8')).pid).toBe(till.child.pid);

    const created = await merchant(['create', '--name', 'After a crash', '--json'], env);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(existsSync(lockFile(dataDir))).toBe(false);
  }, 90_000);

  it('a server does not start while another process holds the database, and says which', async () => {
    const dataDir = await tempDir();
    const lock = await lockPgliteDirectory(path.join(dataDir, 'pglite'), 'the merchant command');
    try {
      const till = await startTill(embeddedEnv(dataDir));
      expect((await till.exited).code).toBe(1);
      expect(till.output()).toContain(`Till could not start: the merchant command (pid ${process.pid}, started `);
      expect(till.output()).toContain('PGlite admits one process at a time');
      // Nothing was initialized under the lock.
      expect(await readdir(path.join(dataDir, 'pglite'))).toEqual(['till.lock']);
    } finally {
      await lock.release();
    }
    expect(existsSync(lockFile(dataDir))).toBe(false);
  }, 60_000);
});

describe.runIf(!usingPostgres)('the embedded database lock, in one process', () => {
  it('a second open of the same directory is refused while the first is open, and admitted after it closes', async () => {
    const dir = path.join(await tempDir(), 'pglite');
    const first = await openDatabase({ dataDir: dir, owner: 'the first' });
    try {
      const second = await openDatabase({ dataDir: dir, owner: 'the second' }).catch((e) => e);
      expect(second).toBeInstanceOf(DatabaseLockedError);
      expect(second.message).toContain(`this process (pid ${process.pid}) holds the embedded database`);
      expect(second.holder.role).toBe('the first');
    } finally {
      await first.close();
    }
    const again = await openDatabase({ dataDir: dir, owner: 'the second' });
    expect(JSON.parse(await readFile(path.join(dir, 'till.lock'), 'utf8')).role).toBe('the second');
    await again.close();
    expect(existsSync(path.join(dir, 'till.lock'))).toBe(false);
  }, 60_000);

  it('takes over the lock of a dead process, of a reused pid, of its own pid from before, and an unreadable one', async () => {
    const dir = path.join(await tempDir(), 'pglite');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(dir, { recursive: true });
    const stale = [
      { role: 'the server', pid: await deadPid(), hostname: hostname(), startedAt: '2026-01-01T00:00:00.000Z' },
      // A live process (our parent), but not the one that took the lock: its start time differs.
      { role: 'the server', pid: process.ppid, hostname: hostname(), startedAt: '2026-01-01T00:00:00.000Z', processStart: '1' },
      // Our own pid, from an earlier process (a container's pid 1 after a restart).
      { role: 'the server', pid: process.pid, hostname: hostname(), startedAt: '2026-01-01T00:00:00.000Z' },
      'half a lock',
    ];
    for (const holder of stale) {
      await writeFile(path.join(dir, 'till.lock'), typeof holder === 'string' ? holder : JSON.stringify(holder));
      const lock = await lockPgliteDirectory(dir, 'the merchant command');
      expect(JSON.parse(await readFile(lock.file, 'utf8'))).toMatchObject({ pid: process.pid, role: 'the merchant command' });
      await lock.release();
    }
    expect(await readdir(dir)).toEqual([]);
  });

  it("refuses another host's lock, which it cannot check, and says how to clear it", async () => {
    const dir = path.join(await tempDir(), 'pglite');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'till.lock'), JSON.stringify({ role: 'the server', pid: 1, hostname: 'elsewhere', startedAt: '2026-01-01T00:00:00.000Z' }));
    const refused = await lockPgliteDirectory(dir, 'the merchant command').catch((e) => e);
    expect(refused).toBeInstanceOf(DatabaseLockedError);
    expect(refused.message).toContain('the server (pid 1 on host elsewhere, started 2026-01-01T00:00:00.000Z) holds the embedded database');
    expect(refused.message).toContain(`if no Till process runs there any more, delete ${path.join(dir, 'till.lock')}`);
  });
});

describe.runIf(usingPostgres)('on PostgreSQL (DATABASE_URL)', () => {
  it('neither the server nor the merchant command touch the embedded database, even one that another process holds', async () => {
    const dataDir = await tempDir();
    const database = await emptyPostgres('no_pglite');
    const env = { ...process.env, TILL_DATA_DIR: dataDir, DATABASE_URL: database!.url, NODE_ENV: 'test', LOG_LEVEL: 'silent' };
    try {
      const server = await startServer({ env: { ...env, PORT: '0' }, announce: false, jobs: false, logger: createLogger('silent') });
      try {
        const created = await merchant(['create', '--name', 'On PostgreSQL', '--json'], env);
        expect(created.code).toBe(0);
        expect((await call(server.url, 'GET', '/v1/plans', { key: JSON.parse(created.stdout).keys.test.secret })).status).toBe(200);
      } finally {
        await server.close();
      }
      expect(await readdir(dataDir)).not.toContain('pglite');

      // A PGlite lock held in the same data dir does not stand in a PostgreSQL start's way.
      const lock = await lockPgliteDirectory(path.join(dataDir, 'pglite'), 'the server');
      try {
        expect((await merchant(['create', '--name', 'Beside a PGlite server', '--json'], env)).code).toBe(0);
        expect(await readdir(path.join(dataDir, 'pglite'))).toEqual(['till.lock']);
      } finally {
        await lock.release();
      }
    } finally {
      await database?.drop();
    }
  }, 60_000);
});
