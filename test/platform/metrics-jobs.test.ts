// The metrics of the work behind the requests, scraped from /metrics while the job queue runs:
// webhook deliveries and their lag, pg-boss jobs by queue (one that fails too), the database pool.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJobs, type Jobs } from '../../server/jobs/index.js';
import { createLogger } from '../../server/log.js';
import { systemClock } from '../../server/shared/clock.js';
import { METRICS_TOKEN, scrape } from '../support/metrics.js';
import { createTestSession, useTestServer } from '../support/server.js';
import { receiverPool } from '../support/webhook-receiver.js';

const config = { metricsToken: METRICS_TOKEN, allowLoopbackWebhooks: true, webhookTimeoutMs: 30_000 };
const t = useTestServer({ config });
const receivers = receiverPool();
let jobs: Jobs;

beforeAll(async () => {
  jobs = await startJobs(t.database, systemClock, createLogger('silent'), { ...config, smtpUrl: undefined, smtpFrom: 'Till <no-reply@till.localhost>' });
});
afterAll(async () => {
  await jobs?.stop();
  await receivers.closeAll();
});

describe('metrics of the work behind the requests', () => {
  it('counts a webhook delivery that succeeded, and its lag from the event', async () => {
    const m = await t.newMerchant();
    const receiver = await receivers.start();
    const configured = await t.call('POST', '/v1/WebhookConfiguration', { key: m.keys.test.secret, body: { sandboxUrl: receiver.url } });
    expect(configured.status).toBe(201);
    const before = await scrape(t.url);
    const session = await createTestSession(t, m);
    expect((await t.call('POST', `/v1/checkout-sessions/${session.id}/cancel`, { key: m.keys.test.secret })).status).toBe(204);
    await expect.poll(() => receiver.received.length, { timeout: 20_000, interval: 50 }).toBe(1);
    const succeeded = { outcome: 'succeeded' };
    await expect
      .poll(async () => (await scrape(t.url)).value('till_webhook_deliveries_total', succeeded) - before.value('till_webhook_deliveries_total', succeeded), {
        timeout: 20_000,
        interval: 100,
      })
      .toBe(1);
    const after = await scrape(t.url);
    expect(after.count('till_webhook_delivery_lag_seconds') - before.count('till_webhook_delivery_lag_seconds')).toBe(1);
  }, 90_000); // two waits of 20 s at most on a loaded machine

  it('measures a job run by its queue, and shows what waits in each queue', async () => {
    const labels = { queue: 'session-expiry', outcome: 'completed' };
    const before = await scrape(t.url);
    await jobs.boss.send('session-expiry', {});
    await expect
      .poll(async () => (await scrape(t.url)).count('till_job_duration_seconds', labels) - before.count('till_job_duration_seconds', labels), {
        timeout: 30_000,
        interval: 200,
      })
      .toBeGreaterThanOrEqual(1);
    const after = await scrape(t.url);
    const queues = after.families.get('till_jobs_queued')!.metrics.map((s) => s.labels?.queue);
    expect(queues).toEqual(expect.arrayContaining(['session-expiry', 'webhook-delivery', 'webhook-sweep']));
    expect(after.value('till_jobs_running', { queue: 'session-expiry' })).toBe(0);
  }, 60_000);

  it('counts a job run that fails, by its queue', async () => {
    // The retention sweep really fails: the table it deletes from is not there while it runs.
    const failed = { queue: 'request-log-retention' };
    const before = await scrape(t.url);
    await sql`ALTER TABLE request_logs RENAME TO request_logs_away`.execute(t.database.db);
    try {
      await jobs.boss.send('request-log-retention', {});
      await expect
        .poll(async () => (await scrape(t.url)).value('till_jobs_failed_total', failed) - before.value('till_jobs_failed_total', failed), {
          timeout: 30_000,
          interval: 200,
        })
        .toBeGreaterThanOrEqual(1);
    } finally {
      await sql`ALTER TABLE request_logs_away RENAME TO request_logs`.execute(t.database.db);
    }
    const after = await scrape(t.url);
    const outcome = { ...failed, outcome: 'failed' };
    expect(after.count('till_job_duration_seconds', outcome) - before.count('till_job_duration_seconds', outcome)).toBeGreaterThanOrEqual(1);
    expect(after.value('till_jobs_failed_total', { queue: 'session-expiry' })).toBe(before.value('till_jobs_failed_total', { queue: 'session-expiry' }));
  }, 60_000);

  it('reports the database pool: its size, and the connections in use and idle', async () => {
    const metrics = await scrape(t.url);
    expect(metrics.value('till_db_pool_max_connections')).toBeGreaterThanOrEqual(1);
    const states = metrics.families.get('till_db_pool_connections')!.metrics.map((s) => s.labels?.state);
    expect(states).toEqual(expect.arrayContaining(['idle', 'in_use']));
  });
});
