// The sandbox clock (issue #5, rule 7): `POST /v1/test-helpers/clock/advance` moves one merchant's
// test-mode clock and runs what falls due on the way, in time order, before it answers. The
// base clock is a ManualClock that no test here moves, so every time below is exact. How the
// background jobs follow each merchant's clock is in sandbox-clock-jobs.test.ts.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { holdClock, moveClock, releaseClock } from '../../server/domain/clocks/tenant-clock.js';
import { SETTLEMENT_DELAY_HOURS } from '../../server/domain/payments/settlement.js';
import { MAX_OFFSET_SECONDS } from '../../server/domain/clocks/clock-advance.js';
import { RETRY_DELAYS_SECONDS } from '../../server/domain/webhooks/retry-schedule.js';
import { call, createTestSession, useTestServer } from '../support/server.js';
import { receiverPool } from '../support/webhook-receiver.js';
import { SANDBOX_CLOCK_CONFIG, sandboxClock, secondsAfter } from '../support/billing.js';

const start = new Date(Math.floor(Date.now() / 1000) * 1000);
const clock = new ManualClock(start);
const t = useTestServer({ clock, config: SANDBOX_CLOCK_CONFIG });
const receivers = receiverPool();
afterAll(() => receivers.closeAll());

const receiver = receivers.start;
const { advance, configure, deliveries } = sandboxClock(t);
const card = { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 2, cvc: '123' };

/** Puts the merchant's test clock `seconds` ahead directly, as the advances that add up to it would leave it (the database tells every app). */
async function putClockAhead(merchant: MerchantCredentials, seconds: number) {
  const db = t.database.db;
  const until = new Date(clock.now().getTime() + 60_000);
  expect(await holdClock(db, merchant.merchantId, clock.now(), until)).toBe(0);
  await moveClock(db, merchant.merchantId, seconds, clock.now(), until);
  await releaseClock(db, merchant.merchantId);
}

/** A session of the merchant paid with a test card: a hold with `captureMethod: manual`. */
async function paid(merchant: MerchantCredentials, captureMethod: 'manual' | 'automatic') {
  const s = await createTestSession(t, merchant, false, { amount: 100, captureMethod });
  const pk = merchant.keys.test.publishable;
  const pm = await t.call('POST', `/v1/checkout-sessions/${s.id}/tokenize`, { key: pk, clientSecret: s.clientSecret, body: card });
  const res = await t.call('POST', `/v1/checkout-sessions/${s.id}/confirm`, { key: pk, clientSecret: s.clientSecret, body: { paymentMethodId: pm.json.id } });
  expect(res.status).toBe(200);
  return res.json.paymentResult.id as number;
}
const payment = (id: number) => t.database.db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const eventsOf = (paymentId: number) =>
  t.database.db.selectFrom('events').select(['type', 'created_at']).where('payment_id', '=', paymentId).orderBy('seq').execute();

describe('advancing the sandbox clock', () => {
  it('every app reads the advanced clock at once: the one that advanced it, and another one told by the database', async () => {
    const m = await t.newMerchant();
    const sibling = await t.startSibling();
    try {
      const expiresAt = async (url: string) => {
        const res = await call(url, 'POST', '/v1/checkout-sessions', {
          key: m.keys.test.secret,
          body: { amount: 5, currency: 'USD', mode: 'embedded', paymentType: 'oneTime' },
        });
        return new Date(res.json.expiresAt).getTime() - 30 * 60_000;
      };
      // Both apps have read (and remembered) the merchant's clock before the advance.
      expect(await expiresAt(t.url)).toBe(start.getTime());
      expect(await expiresAt(sibling.url)).toBe(start.getTime());
      expect((await advance(m, 86_400)).status).toBe(200);
      expect(await expiresAt(t.url)).toBe(start.getTime() + 86_400_000);
      // The other app hears of it from the database's notice, within moments.
      await expect.poll(() => expiresAt(sibling.url), { timeout: 5_000, interval: 50 }).toBe(start.getTime() + 86_400_000);
    } finally {
      await sibling.close();
    }
  });

  it('answers the new test-mode time, the seconds advanced and the jobs run; advances add up', async () => {
    const m = await t.newMerchant();
    const first = await advance(m, 3600);
    expect(first.status).toBe(200);
    expect(first.json).toEqual({
      object: 'test_clock',
      now: new Date(start.getTime() + 3600_000).toISOString(),
      advancedBySeconds: 3600,
      jobsRun: 0,
      livemode: false,
    });
    const second = await advance(m, 86_400);
    expect(second.json.now).toBe(new Date(start.getTime() + (3600 + 86_400) * 1000).toISOString());
  });

  it('a receiver that fails five times then answers 200 sees the exact retry schedule within one advance, with the same event id', async () => {
    const m = await t.newMerchant();
    const r = await receiver((n) => (n < 5 ? 503 : 200));
    const c = await configure(m, { sandboxUrl: r.url });
    const s = await createTestSession(t, m);
    await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: m.keys.test.secret });

    const res = await advance(m, 11 * 3600);
    expect(res.status).toBe(200);
    expect(res.json.jobsRun).toBe(6);
    expect(r.received).toHaveLength(6);
    expect(new Set(r.received.map((h) => h.json.id)).size).toBe(1);
    const [d] = await deliveries(m, c.json.id);
    expect(d).toMatchObject({ status: 'succeeded', attemptCount: 6, nextAttemptAt: null });
    // The log is on the merchant's test clock: the first attempt at once, then 1 min, 5 min, 30 min, 2 h, 8 h apart.
    expect(d.attempts.map((a: any) => secondsAfter(start, a.attemptedAt))).toEqual([0, 60, 360, 2160, 9360, 38160]);
    expect(d.attempts.map((a: any) => a.httpStatus)).toEqual([503, 503, 503, 503, 503, 200]);
    // The transport timestamps are wall time (the base clock), so receivers' replay windows still hold.
    expect(new Set(r.received.map((h) => h.headers['webhook-timestamp']))).toEqual(new Set([String(Math.floor(start.getTime() / 1000))]));
  });

  it('a receiver that always fails gets all 7 attempts in a 2-day advance, then the delivery is dead-lettered', async () => {
    const m = await t.newMerchant();
    const r = await receiver(() => 500);
    const c = await configure(m, { sandboxUrl: r.url });
    const s = await createTestSession(t, m);
    await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: m.keys.test.secret });
    const res = await advance(m, 2 * 86_400);
    expect(res.json.jobsRun).toBe(7);
    expect(r.received).toHaveLength(7);
    const [d] = await deliveries(m, c.json.id);
    expect(d).toMatchObject({ status: 'dead_lettered', attemptCount: 7, nextAttemptAt: null });
    let at = 0;
    expect(d.attempts.map((a: any) => secondsAfter(start, a.attemptedAt))).toEqual([0, ...RETRY_DELAYS_SECONDS.map((delay) => (at += delay))]);
  });

  it('stops short of what is not yet due: a retry 1 min out waits for the next advance', async () => {
    const m = await t.newMerchant();
    const r = await receiver((n) => (n === 0 ? 503 : 200));
    await configure(m, { sandboxUrl: r.url });
    const s = await createTestSession(t, m);
    await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: m.keys.test.secret });
    expect((await advance(m, 59)).json.jobsRun).toBe(1);
    expect(r.received).toHaveLength(1);
    expect((await advance(m, 1)).json.jobsRun).toBe(1);
    expect(r.received).toHaveLength(2);
  });

  it('a 7-day hold lapses at its exact time in a 7-day advance, with its event on the test clock; another merchant keeps its hold', async () => {
    const m = await t.newMerchant();
    const other = await t.newMerchant();
    // Both on sandbox clocks of their own: the advance of one must not touch the other.
    await advance(m, 1);
    await advance(other, 1);
    const hold = await paid(m, 'manual');
    const otherHold = await paid(other, 'manual');
    const lapseAt = (await payment(hold)).authorization_expires_at!;
    const res = await advance(m, 8 * 86_400);
    expect(res.json.jobsRun).toBeGreaterThanOrEqual(1);
    expect((await payment(hold)).status).toBe('expired');
    const lapsed = (await eventsOf(hold)).find((e) => e.type === 'payment.authorization_expired')!;
    expect(new Date(lapsed.created_at).toISOString()).toBe(new Date(lapseAt).toISOString());
    expect((await payment(otherHold)).status).toBe('authorized');
    expect((await t.call('POST', `/v1/payments/${hold}/capture`, { key: m.keys.test.secret, body: {} })).status).toBe(409);
  });

  it('expires open sessions and settles captured payments when their time comes', async () => {
    const m = await t.newMerchant();
    await advance(m, 1);
    const s = await createTestSession(t, m);
    const charged = await paid(m, 'automatic');
    expect((await payment(charged)).settled_at).toBeNull();
    const res = await advance(m, SETTLEMENT_DELAY_HOURS * 3600 + 60);
    expect(res.status).toBe(200);
    const session = await t.call('GET', `/v1/checkout-sessions/${s.id}`, { key: m.keys.test.secret });
    expect(session.json.status).toBe('expired');
    const expired = await t.database.db
      .selectFrom('events')
      .select('created_at')
      .where('session_id', '=', s.id)
      .where('type', '=', 'checkout.session.expired')
      .executeTakeFirstOrThrow();
    expect(new Date(expired.created_at).toISOString()).toBe(new Date(session.json.expiresAt).toISOString());
    const settled = await payment(charged);
    expect(settled.settled_at).not.toBeNull();
    expect(secondsAfter(start, new Date(settled.settled_at!).toISOString())).toBe(1 + SETTLEMENT_DELAY_HOURS * 3600);
  });

  it("moves only that merchant's test mode: its new test objects are on the advanced clock, its live objects and other merchants are not", async () => {
    const m = await t.newMerchant();
    const other = await t.newMerchant();
    const liveBefore = await createTestSession(t, m, true);
    await advance(m, 30 * 86_400);
    const test = await createTestSession(t, m);
    expect(secondsAfter(start, test.created.createdAt)).toBe(30 * 86_400);
    const live = await createTestSession(t, m, true);
    expect(secondsAfter(start, live.created.createdAt)).toBe(0);
    const otherTest = await createTestSession(t, other);
    expect(secondsAfter(start, otherTest.created.createdAt)).toBe(0);
    // The advance ran m's test-mode work only: its live session, due 30 min in, got no expiry from it.
    const expiredByAdvance = await t.database.db
      .selectFrom('events')
      .select('id')
      .where('session_id', '=', liveBefore.id)
      .where('created_at', '>', new Date(start.getTime() + 86_400_000))
      .execute();
    expect(expiredByAdvance).toEqual([]);
  });
});

describe('leaving others alone', () => {
  it("an advance fans out only its merchant's test-mode events: another merchant's are left to the delivery job", async () => {
    const m = await t.newMerchant();
    const other = await t.newMerchant();
    const s = await createTestSession(t, other);
    await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: other.keys.test.secret });
    await advance(m, 3600);
    const events = await t.database.db.selectFrom('events').select(['type', 'dispatched_at']).where('session_id', '=', s.id).execute();
    expect(events).toEqual([{ type: 'checkout.session.cancelled', dispatched_at: null }]);
  });
});

describe('refusals', () => {
  it('a live key gets 403 livemode_not_allowed and the live clock never moves', async () => {
    const m = await t.newMerchant();
    const res = await advance(m, 60, m.keys.live.secret);
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe('livemode_not_allowed');
    const live = await createTestSession(t, m, true);
    expect(secondsAfter(start, live.created.createdAt)).toBe(0);
  });

  it('seconds must be a whole number from 1 to 31536000', async () => {
    const m = await t.newMerchant();
    for (const seconds of [0, -5, 31_536_001, 1.5, '60', null]) {
      const res = await advance(m, seconds);
      expect(res.status, JSON.stringify(seconds)).toBe(400);
      expect(res.json.error.param ?? res.json.error.message).toContain('seconds');
    }
    expect((await t.call('POST', '/v1/test-helpers/clock/advance', { key: m.keys.test.secret, body: {} })).status).toBe(400);
  });

  it('a test clock runs at most 100 years ahead: past that, 400 naming seconds, and the clock stays where it was', async () => {
    const m = await t.newMerchant();
    const year = 31_536_000;
    // 99 years ahead, set as 99 one-year advances would leave it (that advances add up is proved above): each of them
    // would only look through every kind of due work for nothing, and they took most of this test's time.
    await putClockAhead(m, MAX_OFFSET_SECONDS - year);
    expect((await advance(m, year - 10)).status).toBe(200);
    const refused = await advance(m, 11);
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({ code: 'parameter_invalid', param: 'seconds' });
    expect(refused.json.error.message).toContain('at most 10 more seconds');
    const ok = await advance(m, 10);
    expect(ok.status).toBe(200);
    expect(secondsAfter(start, ok.json.now)).toBe(MAX_OFFSET_SECONDS);
  });

  it('a second advance while one is running answers 409 invalid_state; the first one finishes', async () => {
    const m = await t.newMerchant();
    const r = await receiver(() => 'hang');
    await configure(m, { sandboxUrl: r.url });
    const s = await createTestSession(t, m);
    await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: m.keys.test.secret });
    const first = advance(m, 30);
    // The first advance is under way once its delivery attempt reaches the receiver (which never answers: the attempt times out after 1.5 s).
    await vi.waitFor(() => expect(r.received).toHaveLength(1), { timeout: 10_000, interval: 10 });
    const second = await advance(m, 30);
    expect(second.status).toBe(409);
    expect(second.json.error).toMatchObject({ code: 'invalid_state', message: 'The test clock is already being advanced. Retry when that call has answered.' });
    expect((await first).status).toBe(200);
    expect((await advance(m, 30)).status).toBe(200);
  });
});
