// The delivery job: the fan-out woken by this process's event writes (no waiting for the poll) or
// by a commit's announcement, the poll for events written elsewhere, many events at once, retries
// queued on pg-boss, and a stop that lets the attempts under way finish. Real receivers, real
// database (PGlite, or PostgreSQL with DATABASE_URL). The batches it works in: batched-attempts.test.ts.
import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverySettings } from '../../server/api/kit.js';
import { writeEvent } from '../../server/domain/events/event.service.js';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { startWebhookJobs, WEBHOOK_DELIVERY_QUEUE, type WebhookJobs } from '../../server/jobs/webhooks.js';
import { createLogger } from '../../server/log.js';
import { systemClock } from '../../server/shared/clock.js';
import { randomToken } from '../../server/shared/crypto.js';
import { createTestSession } from '../support/server.js';
import type { Receiver } from '../support/webhook-receiver.js';
import { attemptsOf as attemptsIn, deliveriesOf as deliveriesIn, paymentEvent as writePaymentEvent, useWebhookServer } from '../support/webhooks.js';

const { t, clock, receiver, configure: configureOver } = useWebhookServer();
const configure = async (m: MerchantCredentials, body: Record<string, unknown>) => (await configureOver(m, body)).json;
/** An event of the merchant, written as a state change writes it (this process is told). */
const paymentEvent = (m: MerchantCredentials, n: number) => writePaymentEvent(t.database.db, clock, m.merchantId, n);
const deliveriesOf = (configurationId: number) => deliveriesIn(t.database.db, configurationId);
const attemptsOf = (deliveryId: string) => attemptsIn(t.database.db, deliveryId);
/**
 * The job's attempts may take the contract's 30 s, the default. The file's 1.5 s (for a hanging
 * receiver elsewhere) made "many events at once" fail on a loaded machine: 64 attempts under way in
 * this one thread with the receivers, PGlite and the test took up to 9 s each there (at a load of
 * 15 on 2 cores), and an attempt past its timeout is retried only a minute later.
 */
const settings = deliverySettings({ config: { allowLoopbackWebhooks: true, webhookTimeoutMs: 30_000 } });

describe('the delivery job', () => {
  let boss: PgBoss;
  beforeAll(async () => {
    const { database } = t;
    boss = new PgBoss({
      db: { executeSql: (text: string, values?: unknown[]) => (values && values.length > 0 ? database.sql.query(text, values) : database.sql.execRows(text)) },
      schema: 'pgboss',
    } as PgBoss.ConstructorOptions);
    await boss.start();
  });
  afterAll(async () => {
    await boss?.stop({ graceful: true, wait: true, timeout: 10_000 });
  });
  const start = (options: Parameters<typeof startWebhookJobs>[5] = {}) =>
    startWebhookJobs(boss, t.database, systemClock, settings, createLogger('silent'), options);
  const received = (r: Receiver) => () => r.received.length;

  it('delivers an event written in this process without waiting for the outbox poll (polling is off here)', async () => {
    const jobs = await start({ pollIntervalMs: 3_600_000 });
    try {
      const m = await t.newMerchant();
      const r = await receiver();
      const c = await configure(m, { sandboxUrl: r.url });
      const s = await createTestSession(t, m);
      await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: m.keys.test.secret });
      await expect.poll(received(r), { timeout: 20_000, interval: 50 }).toBe(1);
      expect(r.received[0]!.json).toMatchObject({ type: 'checkout.session.cancelled', data: { object: { id: s.id } } });
      await expect
        .poll(async () => (await deliveriesOf(c.id)).map((d) => [d.status, d.attempt_count]), { timeout: 20_000, interval: 50 })
        .toEqual([['succeeded', 1]]);
    } finally {
      await jobs.stop();
    }
  });

  it('delivers an event whose transaction commits after the wake-up delay: the commit is announced (polling is off here)', async () => {
    const jobs = await start({ pollIntervalMs: 3_600_000 });
    try {
      const m = await t.newMerchant();
      const r = await receiver();
      await configure(m, { sandboxUrl: r.url });
      await t.database.db.transaction().execute(async (trx) => {
        await writeEvent(trx, clock, {
          tenant: { merchantId: m.merchantId, livemode: false },
          type: 'payment.succeeded',
          subject: { kind: 'test', id: 'test_slow', eventType: 'payment.succeeded', live: false, created_at: clock.now() },
        });
        // A transaction that commits late, simulated: it stays open well past the fan-out's look
        // after the write (DISPATCH_DELAY_MS, 25 ms), which finds nothing then (on PostgreSQL; PGlite's
        // one connection makes that look wait for the commit).
        await new Promise((resolve) => setTimeout(resolve, 300));
      });
      await expect.poll(received(r), { timeout: 20_000, interval: 50 }).toBe(1);
    } finally {
      await jobs.stop();
    }
  });

  it('finds events written by another process (no wake-up here) on its poll', async () => {
    const m = await t.newMerchant();
    const r = await receiver();
    await configure(m, { sandboxUrl: r.url });
    const jobs = await start({ pollIntervalMs: 100 });
    try {
      // Inserted as another Till process would: this one is not told.
      const id = `evt_${randomToken(24)}`;
      await t.database.db
        .insertInto('events')
        .values({
          id,
          merchant_id: m.merchantId,
          livemode: false,
          type: 'payment.succeeded',
          api_version: '2026-11-01',
          data: JSON.stringify({ object: 'payment', id: 7 }),
          session_id: null,
          payment_id: null,
          created_at: clock.now(),
        })
        .execute();
      await expect.poll(received(r), { timeout: 20_000, interval: 50 }).toBe(1);
      expect(r.received[0]!.json.id).toBe(id);
    } finally {
      await jobs.stop();
    }
  });

  it('many events at once: each delivered exactly once, with one attempt each', async () => {
    const jobs = await start();
    try {
      const m = await t.newMerchant();
      const r = await receiver();
      const c = await configure(m, { sandboxUrl: r.url });
      const written = await Promise.all(Array.from({ length: 120 }, (_, i) => paymentEvent(m, i)));
      await expect.poll(received(r), { timeout: 30_000, interval: 100 }).toBe(120);
      expect(new Set(r.received.map((h) => h.json.id))).toEqual(new Set(written));
      await expect
        .poll(async () => (await deliveriesOf(c.id)).filter((d) => d.status === 'succeeded' && d.attempt_count === 1).length, {
          timeout: 20_000,
          interval: 100,
        })
        .toBe(120);
      const attempts = await t.database.db
        .selectFrom('webhook_delivery_attempts as a')
        .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
        .select('a.delivery_id')
        .where('d.configuration_id', '=', c.id)
        .execute();
      expect(attempts).toHaveLength(120);
      expect(r.received).toHaveLength(120);
    } finally {
      await jobs.stop();
    }
  }, 60_000); // 120 webhooks through the whole pipeline: about 10 s at a load of 15 on 2 cores

  it('a failed attempt is recorded with its retry time and a pg-boss job due then', async () => {
    const jobs = await start();
    try {
      const m = await t.newMerchant();
      const r = await receiver(() => 503);
      const c = await configure(m, { sandboxUrl: r.url });
      await paymentEvent(m, 1);
      await expect.poll(async () => (await deliveriesOf(c.id)).map((d) => d.status), { timeout: 20_000, interval: 50 }).toEqual(['failed']);
      const [d] = await deliveriesOf(c.id);
      const [attempt] = await attemptsOf(d!.id);
      expect(d!.next_attempt_at!.getTime()).toBe(attempt!.attempted_at.getTime() + 60_000);
      // The retry's job is queued once the attempt is recorded, in a statement of its own: look until it is there.
      const retryJobs = async () =>
        (
          await t.database.sql.query(`SELECT start_after, singleton_key FROM pgboss.job WHERE name = $1 AND data->>'deliveryId' = $2`, [
            WEBHOOK_DELIVERY_QUEUE,
            d!.id,
          ])
        ).rows;
      await expect.poll(async () => (await retryJobs()).length, { timeout: 10_000, interval: 50 }).toBe(1);
      const rows = await retryJobs();
      expect(new Date(rows[0].start_after).getTime()).toBe(d!.next_attempt_at!.getTime());
      expect(rows[0].singleton_key).toBe(`${d!.id}:1`);
    } finally {
      await jobs.stop();
    }
  });

  it('stop lets the attempts under way finish and be recorded', async () => {
    let jobs: WebhookJobs | undefined = await start();
    const m = await t.newMerchant();
    let answer!: () => void;
    const r = await receiver((_n, _req, res) => {
      answer = () => {
        res.writeHead(200);
        res.end('late');
      };
      return 'hang';
    });
    const c = await configure(m, { sandboxUrl: r.url });
    try {
      await paymentEvent(m, 1);
      await expect.poll(received(r), { timeout: 20_000, interval: 20 }).toBe(1);
      // The receiver has the request and answers 300 ms into the stop (a slow receiver, simulated).
      let answered = false;
      const stopping = jobs.stop();
      setTimeout(() => {
        answered = true;
        answer();
      }, 300);
      await stopping;
      jobs = undefined;
      expect(answered, 'the stop waited for the answer').toBe(true);
      expect(await deliveriesOf(c.id)).toMatchObject([{ status: 'succeeded', attempt_count: 1, locked_until: null }]);
    } finally {
      await jobs?.stop();
    }
  });
});
