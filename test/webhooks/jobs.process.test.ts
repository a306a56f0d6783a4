// The webhook jobs as `npm start` runs them: the fan-out (woken by the event write, or its poll)
// and the delivery pipeline deliver to a real receiver, with no test code driving the work.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../server/main.js';
import { processDatabase } from '../support/processes.js';
import { call } from '../support/server.js';
import { type Receiver, startReceiver } from '../support/webhook-receiver.js';

let running: RunningServer;
let r: Receiver;
let database: Awaited<ReturnType<typeof processDatabase>>;
beforeAll(async () => {
  r = await startReceiver();
  // Its own database: this server's jobs deliver every merchant's events, not only this test's.
  database = await processDatabase('jobs');
  await database.release();
  const env: NodeJS.ProcessEnv = { ...database.env, PORT: '0', TILL_ALLOW_LOOPBACK_WEBHOOKS: 'true', TILL_WEBHOOK_TIMEOUT_MS: '2000' };
  running = await startServer({ env, announce: false });
});
afterAll(async () => {
  await running?.close();
  await r?.close();
  await database?.drop();
});

it('the running server fans out and delivers a new event within seconds, on pg-boss', async () => {
  const { createMerchant } = await import('../../server/domain/merchants/merchant.service.js');
  const { systemClock } = await import('../../server/shared/clock.js');
  const m = (await createMerchant(running.database.db, systemClock, { name: `Jobs ${Date.now()}` })).credentials;
  const sk = m.keys.test.secret;
  const c = await call(running.url, 'POST', '/v1/WebhookConfiguration', { key: sk, body: { sandboxUrl: r.url, subscribedEvents: ['checkout.session.*'] } });
  expect(c.status).toBe(201);
  const s = await call(running.url, 'POST', '/v1/checkout-sessions', {
    key: sk,
    body: { amount: 25, currency: 'USD', mode: 'embedded', paymentType: 'oneTime' },
  });
  const cancelledAt = Date.now();
  await call(running.url, 'POST', `/v1/checkout-sessions/${s.json.id}/cancel`, { key: sk });
  await expect.poll(() => r.received.length, { timeout: 20_000 }).toBeGreaterThan(0);
  expect(r.received.map((h) => h.json.type)).toEqual(['checkout.session.cancelled']);
  expect(Date.now() - cancelledAt).toBeLessThan(20_000);
  const log = await call(running.url, 'GET', `/v1/WebhookConfiguration/${c.json.id}/deliveries`, { key: sk });
  expect(log.json.data[0]).toMatchObject({ status: 'succeeded', attemptCount: 1 });
});
