// TILL_WORKERS=N: N processes on one port (node:cluster), PostgreSQL only. Started as
// `npm start` starts it: migrations and the demo merchant once, then the workers.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyPostgres } from '../support/database.js';
import { freePort, useProcesses } from '../support/processes.js';
import { call } from '../support/server.js';

const { tempDir, spawnTill } = useProcesses();

describe('TILL_WORKERS=2 on PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof emptyPostgres>>;
  afterAll(async () => {
    await database?.drop();
  });

  it('starts two workers on one port that both answer, and stops them all on SIGTERM', async () => {
    database = await emptyPostgres('workers');
    const dataDir = await tempDir();
    // The port both workers share (node:cluster hands them its connections in turn).
    const port = await freePort();
    const till = spawnTill({
      ...process.env,
      DATABASE_URL: database!.url,
      PORT: String(port),
      TILL_DATA_DIR: dataDir,
      TILL_WORKERS: '2',
      LOG_LEVEL: 'silent',
      NODE_ENV: 'test',
    });
    await till.waitFor((out) => out.includes('(worker 1)') && out.includes('(worker 2)'));
    expect(till.output()).toContain('(worker 1)');
    expect(till.output()).toContain('(worker 2)');

    const demo = JSON.parse(await readFile(path.join(dataDir, 'demo-merchant.json'), 'utf8'));
    const answers = await Promise.all(Array.from({ length: 20 }, () => call(`http://127.0.0.1:${port}`, 'GET', '/v1/plans', { key: demo.keys.test.secret })));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));

    till.child.kill('SIGTERM');
    expect((await till.exited).code).toBe(0);
    expect(till.output()).toMatch(/stopping 2 workers/);
  }, 90_000);
});
