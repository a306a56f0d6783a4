// One process at a time on the embedded database: the server and the merchant command take a lock
// in the PGlite directory, a second opener is refused saying who holds it (and writes nothing),
// and a dead holder's lock is taken over. Driven as `npm start` and `npm run merchant` drive them:
// real processes on a temporary data directory (a copy of the migrated template, where the test
// is not about what a first start does).
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/db/database.js';
import { DatabaseLockedError, lockPgliteDirectory } from '../../server/db/pglite-lock.js';
import { pgliteTemplate } from '../support/database.js';
import { deadPid, embeddedEnv, useProcesses } from '../support/processes.js';
import { call } from '../support/server.js';

const { tempDir, seededDataDir, startTill, merchant } = useProcesses();

const lockFile = (dataDir: string) => path.join(dataDir, 'pglite', 'till.lock');

describe('the merchant command beside a running server on the embedded database', () => {
  it('is refused with who holds the database and what to do (exit 75, nothing written); once the server stops it works, and the next start serves the merchant', async () => {
    const dataDir = await seededDataDir();
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
    const dataDir = await seededDataDir();
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

  // An empty directory: what is proven is that nothing gets initialized in it.
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

describe('the embedded database lock, in one process', () => {
  it('a second open of the same directory is refused while the first is open, and admitted after it closes', async () => {
    const dir = path.join(await tempDir(), 'pglite');
    // The first opener loads the migrated template into the directory (no initdb); the second finds it there.
    const first = await openDatabase({ dataDir: dir, owner: 'the first', loadDataDir: await pgliteTemplate() });
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
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'till.lock'), JSON.stringify({ role: 'the server', pid: 1, hostname: 'elsewhere', startedAt: '2026-01-01T00:00:00.000Z' }));
    const refused = await lockPgliteDirectory(dir, 'the merchant command').catch((e) => e);
    expect(refused).toBeInstanceOf(DatabaseLockedError);
    expect(refused.message).toContain('the server (pid 1 on host elsewhere, started 2026-01-01T00:00:00.000Z) holds the embedded database');
    expect(refused.message).toContain(`if no Till process runs there any more, delete ${path.join(dir, 'till.lock')}`);
  });
});
