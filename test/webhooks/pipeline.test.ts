// The delivery job's pipeline: deliveries claimed and recorded in batches by the same rules as
// `attemptDelivery`, the fan-out woken by this process's event writes (no waiting for the poll),
// the poll for events written elsewhere, retries queued on pg-boss, and a stop that lets the
// attempts under way finish. Real receivers, real database (PGlite, or PostgreSQL with DATABASE_URL).
import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, systemClock } from '../../server/shared/clock.js';
import { writeEvent } from '../../server/domain/events/event.service.js';
import { randomToken } from '../../server/shared/crypto.js';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { deliverySettings } from '../../server/api/kit.js';
import {
  type AttemptResult,
  attemptDelivery,
  claimDeliveries as claimDueDeliveries,
  recordAttempts,
  sendClaimed,
} from '../../server/domain/webhooks/delivery.js';
import { dispatchPendingEvents } from '../../server/domain/webhooks/fan-out.js';
import { sendWebhook } from '../../server/domain/webhooks/sender.js';
import { startWebhookJobs, WEBHOOK_DELIVERY_QUEUE, type WebhookJobs } from '../../server/jobs/webhooks.js';
import { createLogger } from '../../server/log.js';
import { createTestSession, startTestServer, type TestServer } from '../support/server.js';
import { type Receiver, receiverPool } from '../support/webhook-receiver.js';

const clock = new ManualClock(new Date());
const config = { allowLoopbackWebhooks: true, webhookTimeoutMs: 1500 };
const settings = deliverySettings({ config });
let t: TestServer;
const receivers = receiverPool();
beforeAll(async () => {
  t = await startTestServer({ clock, config });
});
afterAll(async () => {
  await receivers.closeAll();
  await t?.close();
});

const receiver = receivers.start;
const configure = async (m: MerchantCredentials, body: Record<string, unknown>) =>
  (await t.call('POST', '/v1/WebhookConfiguration', { key: m.keys.test.secret, body })).json;
/** An event of the merchant, written as a state change writes it (this process is told). */
const paymentEvent = (m: MerchantCredentials, n: number) =>
  writeEvent(t.database.db, clock, {
    tenant: { merchantId: m.merchantId, livemode: false },
    type: 'payment.succeeded',
    subject: { kind: 'test', id: `test_${n}`, eventType: 'payment.succeeded', live: false, created_at: clock.now() },
  });
/** The configuration's deliveries, oldest first. */
const deliveriesOf = (configurationId: number) =>
  t.database.db.selectFrom('webhook_deliveries').selectAll().where('configuration_id', '=', configurationId).orderBy('seq').execute();
const attemptsOf = (deliveryId: string) =>
  t.database.db.selectFrom('webhook_delivery_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('id').execute();

/** Fans out (by the test clock) and returns the ids of this configuration's new deliveries. */
async function fanOut(configurationId: number): Promise<string[]> {
  await dispatchPendingEvents(t.database.db, clock);
  return (await deliveriesOf(configurationId)).filter((d) => d.status === 'pending').map((d) => d.id);
}

describe('batched attempts', () => {
  it('claims in one go exactly what attemptDelivery would: due, not held, configuration enabled; with the event and the current target', async () => {
    const m = await t.newMerchant();
    const r = await receiver();
    const c = await configure(m, { sandboxUrl: r.url });
    for (let i = 0; i < 4; i++) await paymentEvent(m, i);
    const [due, held, later, other] = await fanOut(c.id);
    await t.database.db
      .updateTable('webhook_deliveries')
      .set({ locked_until: new Date(clock.now().getTime() + 90_000) })
      .where('id', '=', held!)
      .execute();
    await t.database.db
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: new Date(clock.now().getTime() + 60_000) })
      .where('id', '=', later!)
      .execute();

    const claimed = await claimDueDeliveries(t.database.db, clock, settings, [due!, held!, later!, 'whd_nosuchdelivery']);
    expect(claimed.map((x) => x.delivery.id)).toEqual([due]);
    const [one] = claimed;
    expect(one!.event).toMatchObject({
      id: one!.delivery.event_id,
      type: 'payment.succeeded',
      merchant_id: m.merchantId,
      subject: { kind: 'test', id: 'test_0' },
    });
    expect(one!.target).toEqual({ url: r.url, secret: c.sandboxSecret });
    expect(one!.delivery.locked_until!.getTime()).toBe(clock.now().getTime() + (2 + 15) * 1000); // the timeout, rounded up, plus 15 s to record the attempt
    // Now held by this claim, for attemptDelivery as for another batch.
    expect(await claimDueDeliveries(t.database.db, clock, settings, [due!])).toEqual([]);
    expect(await attemptDelivery(t.database.db, clock, settings, due!)).toBeUndefined();

    // A disabled configuration's deliveries wait.
    await t.call('PATCH', `/v1/WebhookConfiguration/${c.id}`, { key: m.keys.test.secret, body: { enabled: false } });
    expect(await claimDueDeliveries(t.database.db, clock, settings, [other!])).toEqual([]);
    await t.call('PATCH', `/v1/WebhookConfiguration/${c.id}`, { key: m.keys.test.secret, body: { enabled: true } });
    expect((await claimDueDeliveries(t.database.db, clock, settings, [other!])).map((x) => x.delivery.id)).toEqual([other]);
  });

  it("reads a session delivery's target from the session: its notificationUrl under its own secret", async () => {
    const m = await t.newMerchant();
    const r = await receiver();
    const s = await createTestSession(t, m, false, { notificationUrl: r.url });
    await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: m.keys.test.secret });
    await dispatchPendingEvents(t.database.db, clock);
    const [d] = await t.database.db.selectFrom('webhook_deliveries').selectAll().where('session_id', '=', s.id).execute();
    const [claimed] = await claimDueDeliveries(t.database.db, clock, settings, [d!.id]);
    expect(claimed!.target).toEqual({ url: r.url, secret: s.created.notificationSecret });
    const outcome = await sendClaimed(claimed!, settings);
    expect(outcome).toMatchObject({ ok: true, httpStatus: 200 });
    expect(r.received[0]!.json).toMatchObject({ id: d!.event_id, type: 'checkout.session.cancelled' });
    expect(r.received[0]!.headers['x-webhook-timestamp']).toBe(String(Math.floor(clock.now().getTime() / 1000)));
  });

  it('records many attempts at once with the retry schedule of attemptDelivery: succeeded, failed with its next attempt, dead-lettered', async () => {
    const m = await t.newMerchant();
    const r = await receiver((n) => (n === 0 ? 200 : 503));
    const c = await configure(m, { sandboxUrl: r.url });
    for (let i = 0; i < 3; i++) await paymentEvent(m, i);
    const ids = await fanOut(c.id);
    // The third has had all its automatic attempts but the last.
    await t.database.db.updateTable('webhook_deliveries').set({ automatic_attempts: 6, attempt_count: 6 }).where('id', '=', ids[2]!).execute();
    const claimed = await claimDueDeliveries(t.database.db, clock, settings, ids);
    const byId = new Map(claimed.map((x) => [x.delivery.id, x]));
    const results: AttemptResult[] = [];
    for (const id of ids) {
      const one = byId.get(id)!;
      results.push({ claimed: one, outcome: await sendClaimed(one, settings) });
    }
    const errors: string[] = [];
    const rows = await recordAttempts(t.database.db, results, (_err, id) => errors.push(id));
    expect(errors).toEqual([]);
    expect(rows.map((x) => x.id).sort()).toEqual([...ids].sort());

    const [ok, failed, dead] = await deliveriesOf(c.id);
    expect(ok).toMatchObject({ status: 'succeeded', attempt_count: 1, automatic_attempts: 1, next_attempt_at: null, locked_until: null, url: r.url });
    expect(failed).toMatchObject({ status: 'failed', attempt_count: 1, automatic_attempts: 1, locked_until: null });
    expect(failed!.next_attempt_at!.getTime()).toBe(clock.now().getTime() + 60_000);
    expect(dead).toMatchObject({ status: 'dead_lettered', attempt_count: 7, automatic_attempts: 7, next_attempt_at: null, locked_until: null });
    const [okAttempt] = await attemptsOf(ok!.id);
    expect(okAttempt).toMatchObject({ http_status: 200, error: null, url: r.url, response_snippet: '{"received":true,"n":0}' });
    expect(okAttempt!.attempted_at.getTime()).toBe(clock.now().getTime());
    expect(await attemptsOf(failed!.id)).toMatchObject([{ http_status: 503, error: 'http_status' }]);
    expect(await attemptsOf(dead!.id)).toHaveLength(1);
  });

  it('an attempt whose delivery was deleted meanwhile (configuration deleted) is left out, the others are recorded', async () => {
    const m = await t.newMerchant();
    const r = await receiver();
    const gone = await configure(m, { sandboxUrl: r.url, subscribedEvents: ['payment.succeeded'] });
    const kept = await configure(m, { sandboxUrl: r.url, subscribedEvents: ['payment.succeeded'] });
    await paymentEvent(m, 1);
    await dispatchPendingEvents(t.database.db, clock);
    const ids = [...(await deliveriesOf(gone.id)), ...(await deliveriesOf(kept.id))].map((d) => d.id);
    const claimed = await claimDueDeliveries(t.database.db, clock, settings, ids);
    expect(claimed).toHaveLength(2);
    const results = await Promise.all(claimed.map(async (one) => ({ claimed: one, outcome: await sendClaimed(one, settings) })));
    await t.call('DELETE', `/v1/WebhookConfiguration/${gone.id}`, { key: m.keys.test.secret });
    const errors: string[] = [];
    const rows = await recordAttempts(t.database.db, results, (_err, id) => errors.push(id));
    expect(errors).toEqual([]);
    expect(rows.map((x) => x.configuration_id)).toEqual([kept.id]);
    expect(await deliveriesOf(kept.id)).toMatchObject([{ status: 'succeeded', attempt_count: 1 }]);
    expect(await attemptsOf(ids[0]!)).toEqual([]);
  });

  it('one attempt that cannot be recorded does not hold back the others: they are then recorded one by one', async () => {
    const m = await t.newMerchant();
    const r = await receiver();
    const c = await configure(m, { sandboxUrl: r.url });
    for (let i = 0; i < 3; i++) await paymentEvent(m, i);
    const ids = await fanOut(c.id);
    const claimed = await claimDueDeliveries(t.database.db, clock, settings, ids);
    // PostgreSQL text cannot hold U+0000: this one row makes the statement for all three fail.
    const results = claimed.map((one, i) => ({
      claimed: one,
      outcome: { ok: true, httpStatus: 200, durationMs: 3, responseSnippet: i === 1 ? 'bad\u0000' : 'fine', error: null },
    }));
    const errors: string[] = [];
    const rows = await recordAttempts(t.database.db, results, (_err, id) => errors.push(id));
    expect(errors).toEqual([claimed[1]!.delivery.id]);
    expect(rows.map((x) => x.id).sort()).toEqual([claimed[0]!.delivery.id, claimed[2]!.delivery.id].sort());
    // The one not recorded keeps its claim until it passes, and is then attempted again.
    const [stuck] = await t.database.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', claimed[1]!.delivery.id).execute();
    expect(stuck).toMatchObject({ status: 'pending', attempt_count: 0 });
    expect(stuck!.locked_until).not.toBeNull();
  });

  it('a receiver answering with a NUL byte: the attempt is recorded, the NUL shown as U+FFFD in the log', async () => {
    const r = await receiver((_n, _req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok\u0000done');
    });
    const outcome = await sendWebhook({
      url: r.url,
      secret: 'whsec_x',
      eventId: 'evt_AAAAAAAAAAAA',
      eventType: 'webhook.test',
      body: '{}',
      timestamp: 1,
      timeoutMs: 1500,
      allowLoopback: true,
    });
    expect(outcome).toMatchObject({ ok: true, responseSnippet: 'ok\uFFFDdone' });
    const m = await t.newMerchant();
    const c = await configure(m, { sandboxUrl: r.url });
    await paymentEvent(m, 1);
    const [id] = await fanOut(c.id);
    expect(await attemptDelivery(t.database.db, clock, settings, id!)).toMatchObject({ status: 'succeeded', attempt_count: 1, locked_until: null });
  });
});

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
        // Well past the fan-out's look after the write (DISPATCH_DELAY_MS): it finds nothing then.
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
  }, 60_000); // its two polls may take 30 s and 20 s on a loaded machine

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
      const { rows } = await t.database.sql.query(`SELECT start_after, singleton_key FROM pgboss.job WHERE name = $1 AND data->>'deliveryId' = $2`, [
        WEBHOOK_DELIVERY_QUEUE,
        d!.id,
      ]);
      expect(rows).toHaveLength(1);
      expect(new Date(rows[0].start_after).getTime()).toBe(d!.next_attempt_at!.getTime());
      expect(rows[0].singleton_key).toBe(`${d!.id}:1`);
    } finally {
      await jobs.stop();
    }
  });

  it('stop lets the attempts under way finish and be recorded', async () => {
    let jobs: WebhookJobs | undefined = await start();
    const m = await t.newMerchant();
    let release!: () => void;
    const answered = new Promise<void>((resolve) => (release = resolve));
    const r = await receiver((_n, _req, res) => {
      setTimeout(() => {
        res.writeHead(200);
        res.end('late');
        release();
      }, 300);
      return 'hang';
    });
    const c = await configure(m, { sandboxUrl: r.url });
    try {
      await paymentEvent(m, 1);
      await expect.poll(received(r), { timeout: 20_000, interval: 20 }).toBe(1);
      await jobs.stop(); // the receiver has the request and answers 300 ms later
      jobs = undefined;
      await answered;
      expect(await deliveriesOf(c.id)).toMatchObject([{ status: 'succeeded', attempt_count: 1, locked_until: null }]);
    } finally {
      await jobs?.stop();
    }
  });
});
