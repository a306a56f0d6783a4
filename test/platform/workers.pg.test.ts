// TILL_WORKERS=N: N processes on one port (node:cluster), PostgreSQL only. Started as
// `npm start` starts it: migrations and the demo merchant once, then the workers. A scrape of
// /metrics reaches one worker and answers for both (the primary sums every worker's registry).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyPostgres } from '../support/database.js';
import { METRICS_TOKEN, scrape } from '../support/metrics.js';
import { freePort, useProcesses } from '../support/processes.js';
import { call } from '../support/server.js';

const { tempDir, spawnTill } = useProcesses();

describe('TILL_WORKERS=2 on PostgreSQL', () => {
  let database: Awaited<ReturnType<typeof emptyPostgres>>;
  afterAll(async () => {
    await database?.drop();
  });

  it('starts two workers on one port (a data directory made on the way) that both answer, counts both in every scrape, and stops them all on SIGTERM', async () => {
    database = await emptyPostgres('workers');
    // A data directory that does not exist yet, as on a first start: the primary makes it.
    const dataDir = path.join(await tempDir(), 'data');
    // The port both workers share (node:cluster hands them its connections in turn).
    const port = await freePort();
    const till = spawnTill({
      ...process.env,
      DATABASE_URL: database!.url,
      PORT: String(port),
      TILL_DATA_DIR: dataDir,
      TILL_WORKERS: '2',
      TILL_METRICS_TOKEN: METRICS_TOKEN,
      LOG_LEVEL: 'silent',
      NODE_ENV: 'test',
    });
    await till.waitFor((out) => out.includes('(worker 1)') && out.includes('(worker 2)'));
    const url = `http://127.0.0.1:${port}`;
    const demo = JSON.parse(await readFile(path.join(dataDir, 'demo-merchant.json'), 'utf8'));
    const answers = await Promise.all(Array.from({ length: 20 }, () => call(url, 'GET', '/v1/plans', { key: demo.keys.test.secret })));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));

    // Connections go to the workers in turn: each of these scrapes is answered by one of them, for both.
    const labels = { operation_id: 'listPlans', method: 'GET', status: '200' };
    for (let i = 0; i < 4; i++) {
      const metrics = await scrape(url);
      expect(metrics.value('till_http_requests_total', labels)).toBe(20);
      expect(metrics.count('till_http_request_duration_seconds', labels)).toBe(20);
      // Each worker has a pool of 10 connections: summed, 20.
      expect(metrics.value('till_db_pool_max_connections')).toBe(20);
    }
    expect((await call(url, 'GET', '/metrics')).status).toBe(401);

    till.child.kill('SIGTERM');
    expect((await till.exited).code).toBe(0);
    expect(till.output()).toMatch(/stopping 2 workers/);
  }, 90_000);
});
