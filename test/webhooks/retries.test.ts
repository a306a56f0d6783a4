// Retries on the Clock: the exact schedule (1 min, 5 min, 30 min, 2 h, 8 h, 24 h) with the same
// event id, a retry verified by a receiver hours after the event, dead-letter after the last
// retry, re-send to the current URL under the current secret, a disabled configuration's retries
// waiting, and a dead worker's hold. The outbox raced by several dispatchers: retries.pg.test.ts.
import { describe, expect, it } from 'vitest';
import { TillWebhookVerificationError, verifyWebhook } from '../../sdk/src/webhooks.js';
import { attemptDelivery } from '../../server/domain/webhooks/delivery.js';
import { RETRY_DELAYS_SECONDS } from '../../server/domain/webhooks/retry-schedule.js';
import { dispatchPendingEvents } from '../../server/domain/webhooks/fan-out.js';
import { createTestSession } from '../support/server.js';
import type { ReceivedWebhook } from '../support/webhook-receiver.js';
import { hexSig, useWebhookServer } from '../support/webhooks.js';

const { t, clock, settings, receiver, deliver, configure, deliveries } = useWebhookServer();

describe('retries, dead-letter and re-send', () => {
  it('a receiver that fails five times then answers 200 sees the exact schedule (1 min, 5 min, 30 min, 2 h, 8 h) with the same event id', async () => {
    const m = await t.newMerchant();
    const r = await receiver((n) => (n < 5 ? 503 : 200));
    const c = await configure(m, { sandboxUrl: r.url });
    const s = await createTestSession(t, m);
    await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: m.keys.test.secret });
    const start = clock.now().getTime();
    await deliver();
    for (const delay of RETRY_DELAYS_SECONDS.slice(0, 5)) {
      clock.advance(delay - 1);
      const before = r.received.length;
      await deliver();
      expect(r.received.length, `not yet due ${delay - 1} s in`).toBe(before);
      clock.advance(1);
      await deliver();
      expect(r.received.length, `due after ${delay} s`).toBe(before + 1);
    }
    expect(r.received).toHaveLength(6);
    expect(new Set(r.received.map((h) => h.json.id)).size).toBe(1);
    expect(new Set(r.received.map((h) => h.raw)).size).toBe(1);
    const sent = r.received.map((h) => Number(h.headers['x-webhook-timestamp']) * 1000 - Math.floor(start / 1000) * 1000);
    expect(sent).toEqual([0, 60, 360, 2160, 9360, 38160].map((s) => s * 1000));
    const [d] = await deliveries(m, c.json.id);
    expect(d).toMatchObject({ status: 'succeeded', attemptCount: 6, nextAttemptAt: null });
    expect(d.attempts.map((a: any) => a.httpStatus)).toEqual([503, 503, 503, 503, 503, 200]);
    expect(d.attempts[0]).toMatchObject({ error: 'http_status', responseSnippet: '{"received":true,"n":0}' });
  });

  it('a receiver verifying with req.headers accepts a retry 2 hours after the event; the signature string alone refuses it as event_stale, and a replayed first attempt is timestamp_stale', async () => {
    const m = await t.newMerchant();
    let secret = '';
    const verdicts: string[] = [];
    // A merchant's receiver: the first attempt fails (503), later ones are verified as the README shows.
    const r = await receiver((n, hook) => {
      if (n === 0) return 503;
      try {
        verdicts.push(`ok ${verifyWebhook(hook.raw, hook.headers, secret, { now: clock.now() }).id}`);
        return 200;
      } catch (err) {
        verdicts.push(err instanceof TillWebhookVerificationError ? err.code : String(err));
        return 400;
      }
    });
    const c = await configure(m, { sandboxUrl: r.url });
    secret = c.json.sandboxSecret;
    const s = await createTestSession(t, m);
    await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: m.keys.test.secret });
    await deliver();
    clock.advance(2 * 3600);
    await deliver();
    expect(r.received).toHaveLength(2);
    const [first, retry] = r.received as [ReceivedWebhook, ReceivedWebhook];
    expect(verdicts).toEqual([`ok ${first.json.id}`]);
    expect(retry.raw).toBe(first.raw);
    // The retry is signed at the time of its attempt; the event keeps its created.
    expect(Number(retry.headers['webhook-timestamp']) - Date.parse(retry.json.created) / 1000).toBeGreaterThan(7199);
    expect(retry.headers['x-webhook-timestamp']).toBe(retry.headers['webhook-timestamp']);
    const refusalOf = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        return (err as TillWebhookVerificationError).code;
      }
      return 'accepted';
    };
    expect(refusalOf(() => verifyWebhook(retry.raw, retry.headers['x-webhook-signature'] as string, secret, { now: clock.now() }))).toBe('event_stale');
    expect(refusalOf(() => verifyWebhook(first.raw, first.headers, secret, { now: clock.now() }))).toBe('timestamp_stale');
    expect((await deliveries(m, c.json.id))[0]).toMatchObject({ status: 'succeeded', attemptCount: 2 });
  });

  it('a receiver that always fails gets 7 attempts, then the delivery is dead-lettered; re-send then delivers to the current URL under the current secret', async () => {
    const m = await t.newMerchant();
    const r = await receiver(() => 500);
    const c = await configure(m, { sandboxUrl: r.url });
    const s = await createTestSession(t, m);
    await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: m.keys.test.secret });
    await deliver();
    for (const delay of RETRY_DELAYS_SECONDS) {
      clock.advance(delay);
      await deliver();
    }
    clock.advance(7 * 24 * 3600);
    await deliver();
    expect(r.received).toHaveLength(7);
    const [dead] = await deliveries(m, c.json.id, '?status=dead_lettered');
    expect(dead).toMatchObject({ status: 'dead_lettered', attemptCount: 7, nextAttemptAt: null });
    // A new URL and a rotated secret: the re-send uses them.
    const fixed = await receiver(() => 200);
    const upd = await t.call('PATCH', `/v1/WebhookConfiguration/${c.json.id}`, {
      key: m.keys.test.secret,
      body: { sandboxUrl: fixed.url, rotateSandboxSecret: true },
    });
    const resent = await t.call('POST', `/v1/WebhookConfiguration/${c.json.id}/deliveries/${dead.id}/resend`, { key: m.keys.test.secret });
    expect(resent.status).toBe(200);
    expect(resent.json).toMatchObject({ id: dead.id, status: 'succeeded', attemptCount: 8, url: fixed.url, nextAttemptAt: null });
    expect(fixed.received).toHaveLength(1);
    expect(fixed.received[0]!.json.id).toBe(r.received[0]!.json.id);
    expect(fixed.received[0]!.headers['x-webhook-signature']).toBe(hexSig(fixed.received[0]!.raw, upd.json.sandboxSecret));
    // A succeeded delivery cannot be re-sent.
    const again = await t.call('POST', `/v1/WebhookConfiguration/${c.json.id}/deliveries/${dead.id}/resend`, { key: m.keys.test.secret });
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('invalid_state');
  });

  it('a failed re-send leaves a failed delivery failed with its scheduled retry', async () => {
    const m = await t.newMerchant();
    const r = await receiver(() => 500);
    const c = await configure(m, { sandboxUrl: r.url });
    const first = await t.call('POST', `/v1/WebhookConfiguration/${c.json.id}/SendTestEvent`, { key: m.keys.test.secret, body: {} });
    expect(first.json.status).toBe('failed');
    const [before] = await deliveries(m, c.json.id);
    const resent = await t.call('POST', `/v1/WebhookConfiguration/${c.json.id}/deliveries/${first.json.deliveryId}/resend`, { key: m.keys.test.secret });
    expect(resent.json).toMatchObject({ status: 'failed', attemptCount: 2, nextAttemptAt: before.nextAttemptAt });
    expect(r.received).toHaveLength(2);
    const foreign = await t.call('POST', `/v1/WebhookConfiguration/${c.json.id}/deliveries/whd_AAAAAAAAAAAAAAAA/resend`, { key: m.keys.test.secret });
    expect(foreign.status).toBe(404);
    await t.call('DELETE', `/v1/WebhookConfiguration/${c.json.id}`, { key: m.keys.test.secret });
  });

  it('disabling stops deliveries; pending retries wait and run once it is enabled again', async () => {
    const m = await t.newMerchant();
    const r = await receiver((n) => (n === 0 ? 500 : 200));
    const c = await configure(m, { sandboxUrl: r.url });
    const s = await createTestSession(t, m);
    await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: m.keys.test.secret });
    await deliver();
    await t.call('PATCH', `/v1/WebhookConfiguration/${c.json.id}`, { key: m.keys.test.secret, body: { enabled: false } });
    clock.advance(3600);
    await deliver();
    expect(r.received).toHaveLength(1);
    await t.call('PATCH', `/v1/WebhookConfiguration/${c.json.id}`, { key: m.keys.test.secret, body: { enabled: true } });
    await deliver();
    expect(r.received).toHaveLength(2);
    expect((await deliveries(m, c.json.id))[0]).toMatchObject({ status: 'succeeded', attemptCount: 2 });
  });

  it('a worker killed mid-delivery loses nothing: once its hold passes, the delivery is attempted again with the same event id', async () => {
    const m = await t.newMerchant();
    const r = await receiver();
    const c = await configure(m, { sandboxUrl: r.url });
    const s = await createTestSession(t, m);
    await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: m.keys.test.secret });
    const [id] = await dispatchPendingEvents(t.database.db, clock);
    // A worker claimed it and died before recording anything.
    await t.database.db
      .updateTable('webhook_deliveries')
      .set({ locked_until: new Date(clock.now().getTime() + 90_000) })
      .where('id', '=', id!)
      .execute();
    await deliver();
    expect(r.received).toHaveLength(0);
    expect(await attemptDelivery(t.database.db, clock, settings, id!)).toBeUndefined();
    clock.advance(91);
    await deliver();
    expect(r.received).toHaveLength(1);
    expect((await deliveries(m, c.json.id))[0]).toMatchObject({ id, status: 'succeeded', attemptCount: 1 });
  });
});
