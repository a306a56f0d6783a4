// TILL_WORKERS=N: N processes on one port (node:cluster), PostgreSQL only. Started as
// `npm start` starts it: migrations and the demo merchant once, then the workers.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { call, emptyPostgres, usingPostgres } from '../support/server.js';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

describe('TILL_WORKERS', () => {
  it('more than one worker without DATABASE_URL is refused at start, saying why', () => {
    expect(() => loadConfig({ TILL_WORKERS: '2' })).toThrow(/TILL_WORKERS=2 needs DATABASE_URL/);
    expect(() => loadConfig({ TILL_WORKERS: '0' })).toThrow(/TILL_WORKERS/);
    expect(loadConfig({}).workers).toBe(1);
  });
});

describe.runIf(usingPostgres)('TILL_WORKERS=2 on PostgreSQL', () => {
  let child: ChildProcess | undefined;
  let dataDir: string | undefined;
  let database: Awaited<ReturnType<typeof emptyPostgres>>;
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    await database?.drop();
  });

  it('starts two workers on one port that both answer, and stops them all on SIGTERM', async () => {
    database = await emptyPostgres('workers');
    dataDir = await mkdtemp(path.join(tmpdir(), 'till-workers-'));
    const port = await freePort();
    child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
      env: {
        ...process.env,
        DATABASE_URL: database!.url,
        PORT: String(port),
        TILL_DATA_DIR: dataDir,
        TILL_WORKERS: '2',
        LOG_LEVEL: 'silent',
        NODE_ENV: 'test',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (c) => (out += c));
    child.stderr!.on('data', (c) => (out += c));
    for (let i = 0; i < 120 && !(out.includes('(worker 1)') && out.includes('(worker 2)')); i++) await new Promise((r) => setTimeout(r, 250));
    expect(out).toContain('(worker 1)');
    expect(out).toContain('(worker 2)');

    const demo = JSON.parse(await readFile(path.join(dataDir, 'demo-merchant.json'), 'utf8'));
    const answers = await Promise.all(Array.from({ length: 20 }, () => call(`http://127.0.0.1:${port}`, 'GET', '/v1/plans', { key: demo.keys.test.secret })));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));

    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).toMatch(/stopping 2 workers/);
  }, 90_000);
});
