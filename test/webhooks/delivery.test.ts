// Webhook delivery from the events outbox to real HTTPS receivers on loopback: the envelope signed
// with X-Webhook-Signature and the Standard Webhooks headers, what the merchant wrote delivered as
// written, the contract's schema for each type, subscribedEvents, the mode's URL, a session's own
// notificationUrl, no redirects, and the attempt timeout.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../sdk/src/webhooks.js';
import { expireDueSessions } from '../../server/domain/checkout/session.service.js';
import { dispatchPendingEvents } from '../../server/domain/webhooks/fan-out.js';
import { expectEventMatchesContract as checkEnvelope } from '../support/event-contract.js';
import { createTestSession } from '../support/server.js';
import type { Receiver } from '../support/webhook-receiver.js';
import { hexSig, PUBLIC_URL, useWebhookServer } from '../support/webhooks.js';

const { t, clock, receiver, deliver, configure, deliveries, paidSession } = useWebhookServer();

describe('delivery', () => {
  it('POSTs the envelope signed with X-Webhook-Signature (hex HMAC of the raw body) and the Standard Webhooks headers; node:crypto and the SDK both verify it', async () => {
    const m = await t.newMerchant();
    const r = await receiver();
    const c = await configure(m, { sandboxUrl: r.url });
    const secret = c.json.sandboxSecret as string;
    const s = await createTestSession(t, m);
    expect((await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: m.keys.test.secret })).status).toBe(204);
    await deliver();
    expect(r.received).toHaveLength(1);
    const hook = r.received[0]!;
    expect(hook.headers['x-webhook-signature']).toBe(hexSig(hook.raw, secret));
    expect(hook.headers['x-webhook-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(hook.headers['x-webhook-id']).toBe(hook.json.id);
    expect(hook.headers['x-webhook-event']).toBe('checkout.session.cancelled');
    expect(hook.headers['x-webhook-timestamp']).toBe(String(Math.floor(clock.now().getTime() / 1000)));
    // Standard Webhooks: v1, base64 HMAC of id.timestamp.body under the decoded whsec_ key.
    const std = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
      .update(`${hook.headers['webhook-id']}.${hook.headers['webhook-timestamp']}.${hook.raw}`)
      .digest('base64');
    expect(hook.headers['webhook-signature']).toBe(`v1,${std}`);
    expect(hook.headers['webhook-id']).toBe(hook.json.id);
    const event = verifyWebhook(hook.raw, hook.headers['x-webhook-signature'] as string, secret, { now: clock.now() });
    expect(verifyWebhook(hook.raw, hook.headers, secret, { now: clock.now() })).toEqual(event);
    expect(event).toMatchObject({ object: 'event', type: 'checkout.session.cancelled', livemode: false, merchantId: m.merchantId });
    expect(event.created).toBe(event.createdAt);
    expect(event.apiVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(event.data.object as any).toMatchObject({ object: 'checkout_session', id: s.id });
    checkEnvelope(hook.json);
    const [d] = await deliveries(m, c.json.id);
    expect(d).toMatchObject({
      status: 'succeeded',
      attemptCount: 1,
      nextAttemptAt: null,
      eventId: event.id,
      url: r.url,
      livemode: false,
      configurationId: c.json.id,
    });
    expect(d.attempts[0]).toMatchObject({ httpStatus: 200, error: null, responseSnippet: '{"received":true,"n":0}' });
    expect(d.event.id).toBe(event.id);
  });

  it('the delivery log shows the headers each attempt sent, signature included, over the body its event serializes to; even when the request could not be sent', async () => {
    const m = await t.newMerchant();
    const r = await receiver();
    const c = await configure(m, { sandboxUrl: r.url });
    const secret = c.json.sandboxSecret as string;
    const s = await createTestSession(t, m);
    expect((await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: m.keys.test.secret })).status).toBe(204);
    await deliver();
    const [d] = await deliveries(m, c.json.id);
    const sent = d.attempts[0].requestHeaders;
    for (const name of ['x-webhook-signature', 'x-webhook-id', 'x-webhook-event', 'x-webhook-timestamp', 'webhook-signature', 'content-type'])
      expect(sent[name], name).toBe(r.received[0]!.headers[name]);
    expect(JSON.stringify(d.event)).toBe(r.received[0]!.raw);
    expect(sent['x-webhook-signature']).toBe(hexSig(JSON.stringify(d.event), secret));
    // A URL that never resolves: nothing reached anyone, yet the log shows the request that was made.
    const failing = await configure(m, { sandboxUrl: 'https://nowhere.till.invalid/hooks' });
    const test = await t.call('POST', `/v1/WebhookConfiguration/${failing.json.id}/SendTestEvent`, { key: m.keys.test.secret, body: {} });
    expect(test.json.status).toBe('failed');
    const [f] = await deliveries(m, failing.json.id);
    expect(f.attempts[0].requestHeaders['x-webhook-signature']).toBe(hexSig(JSON.stringify(f.event), failing.json.sandboxSecret));
    expect(f.attempts[0].requestHeaders['x-webhook-id']).toBe(f.eventId);
  });

  it('delivers what the merchant wrote exactly as written: metadata that looks like a time stays text, in the webhook and in the delivery log', async () => {
    // Events store records and are rendered when delivered; times are read back as Dates, but a
    // merchant's own values never are (the delivery log's answer is validated against the contract).
    const m = await t.newMerchant();
    const r = await receiver();
    const c = await configure(m, { sandboxUrl: r.url, subscribedEvents: ['payment.succeeded'] });
    const metadata = { shipBy: '2026-12-01T09:30:00.000Z', created_at: '2026-01-02T03:04:05.006Z', note: 'ISO 2026-12-01T09:30:00.000Z' };
    await paidSession(m, { metadata });
    await deliver();
    expect(r.received).toHaveLength(1);
    expect(r.received[0]!.json.data.object.metadata).toEqual(metadata);
    const log = await t.call('GET', `/v1/WebhookConfiguration/${c.json.id}/deliveries`, { key: m.keys.test.secret });
    expect(log.status).toBe(200);
    expect(log.json.data[0].event.data.object.metadata).toEqual(metadata);
    expect(log.json.data[0].event.data.object.createdAt).toBe(r.received[0]!.json.data.object.createdAt);
  });

  it('every delivered event validates against the contract for its type (payments, holds, sessions, test events)', async () => {
    const m = await t.newMerchant();
    const r = await receiver();
    const c = await configure(m, { sandboxUrl: r.url });
    const sk = m.keys.test.secret;
    await paidSession(m); // payment.succeeded, checkout.session.completed
    const hold = await paidSession(m, { captureMethod: 'manual' }); // payment.authorized, checkout.session.completed
    await t.call('POST', `/v1/payments/${hold.paymentId}/capture`, { key: sk, body: {} }); // payment.captured, payment.succeeded
    const hold2 = await paidSession(m, { captureMethod: 'manual' });
    await t.call('POST', `/v1/payments/${hold2.paymentId}/release`, { key: sk }); // payment.released
    const refundable = await paidSession(m);
    await t.call('POST', `/v1/checkout-sessions/${refundable.session.id}/refund`, { key: sk, body: {} }); // payment.refunded
    const s = await createTestSession(t, m);
    await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: sk });
    await createTestSession(t, m, false, { expiresAt: new Date(clock.now().getTime() + 11 * 60_000).toISOString() });
    clock.advance(12 * 60);
    await expireDueSessions(t.database.db, clock); // checkout.session.expired
    await t.call('POST', `/v1/WebhookConfiguration/${c.json.id}/SendTestEvent`, { key: sk, body: { eventType: 'payment.refunded' } });
    await deliver();
    const types = new Set(r.received.map((h) => h.json.type));
    for (const type of [
      'invoice.paid',
      'payment.succeeded',
      'payment.authorized',
      'payment.captured',
      'payment.released',
      'payment.refunded',
      'checkout.session.completed',
      'checkout.session.cancelled',
      'checkout.session.expired',
      'webhook.test',
    ]) {
      expect(types, type).toContain(type);
    }
    for (const hook of r.received) {
      checkEnvelope(hook.json);
      expect(hook.headers['x-webhook-signature']).toBe(hexSig(hook.raw, c.json.sandboxSecret));
    }
    // Payments made through a session carry its metadata.
    expect(r.received.find((h) => h.json.type === 'payment.succeeded')!.json.data.object.metadata).toMatchObject({ orderId: 'A-1' });
  });

  it('subscribedEvents filtering is exact for names, families and *', async () => {
    const m = await t.newMerchant();
    const [byName, byFamily, all, none, unset] = await Promise.all([receiver(), receiver(), receiver(), receiver(), receiver()]);
    await configure(m, { sandboxUrl: byName.url, subscribedEvents: ['payment.succeeded'] });
    await configure(m, { sandboxUrl: byFamily.url, subscribedEvents: ['checkout.session.*'] });
    await configure(m, { sandboxUrl: all.url, subscribedEvents: ['*'] });
    await configure(m, { sandboxUrl: none.url, subscribedEvents: ['invoice.*', 'payment.failed'] });
    await configure(m, { sandboxUrl: unset.url });
    await paidSession(m); // payment.succeeded, invoice.paid, checkout.session.completed
    const s = await createTestSession(t, m);
    await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: m.keys.test.secret });
    await deliver();
    const typesOf = (r: Receiver) => r.received.map((h) => h.json.type).sort();
    expect(typesOf(byName)).toEqual(['payment.succeeded']);
    expect(typesOf(byFamily)).toEqual(['checkout.session.cancelled', 'checkout.session.completed']);
    expect(typesOf(all)).toEqual(['checkout.session.cancelled', 'checkout.session.completed', 'invoice.paid', 'payment.succeeded']);
    expect(typesOf(unset)).toEqual(typesOf(all));
    expect(typesOf(none)).toEqual(['invoice.paid']);
  });

  it('test-mode events go to the sandbox URL only, live events to the live URL only; a disabled configuration gets nothing', async () => {
    const m = await t.newMerchant();
    const r = await receiver();
    const both = await configure(m, { sandboxUrl: r.url, liveUrl: PUBLIC_URL });
    const disabled = await configure(m, { sandboxUrl: r.url, liveUrl: PUBLIC_URL, enabled: false });
    const live = await createTestSession(t, m, true);
    await t.call('POST', `/v1/checkout-sessions/${live.id}/cancel`, { key: m.keys.live.secret });
    const test = await createTestSession(t, m, false);
    await t.call('POST', `/v1/checkout-sessions/${test.id}/cancel`, { key: m.keys.test.secret });
    await dispatchPendingEvents(t.database.db, clock);
    const rows = await t.database.db
      .selectFrom('webhook_deliveries')
      .select(['configuration_id', 'url', 'livemode'])
      .where('merchant_id', '=', m.merchantId)
      .orderBy('livemode')
      .execute();
    expect(rows).toEqual([
      { configuration_id: both.json.id, url: r.url, livemode: false },
      { configuration_id: both.json.id, url: PUBLIC_URL, livemode: true },
    ]);
    expect(disabled.status).toBe(201);
    // The live delivery is never sent from a test: remove the configuration before any attempt.
    await t.database.db.deleteFrom('webhook_deliveries').where('merchant_id', '=', m.merchantId).where('livemode', '=', true).execute();
    await deliver();
    expect(r.received.map((h) => h.json.livemode)).toEqual([false]);
    // The live key sees the live log, the test key the test log.
    expect((await deliveries(m, both.json.id)).map((d) => d.livemode)).toEqual([false]);
  });

  it("a session's notificationUrl gets its session and payment events signed with the session's own secret, besides the configured endpoints", async () => {
    const m = await t.newMerchant();
    const endpoint = await receiver();
    const sessionUrl = await receiver();
    const c = await configure(m, { sandboxUrl: endpoint.url });
    const sessionSecret = 'session-secret-0123456789';
    // TILL_ALLOW_LOOPBACK_WEBHOOKS lets a test-mode session name a loopback receiver.
    const { paymentId } = await paidSession(m, { notificationUrl: sessionUrl.url, notificationSecret: sessionSecret, captureMethod: 'manual' });
    await t.call('POST', `/v1/payments/${paymentId}/capture`, { key: m.keys.test.secret, body: {} });
    // A refund made on the payment route, not the session's, still goes to the session's URL.
    expect((await t.call('POST', `/v1/payments/${paymentId}/refund`, { key: m.keys.test.secret, body: { amount: 5 } })).status).toBe(200);
    const other = await createTestSession(t, m); // not this session: never at its URL
    await t.call('POST', `/v1/checkout-sessions/${other.id}/cancel`, { key: m.keys.test.secret });
    await deliver();
    // Deliveries run in parallel: arrival order is not guaranteed (receivers order by `created`).
    expect(sessionUrl.received.map((h) => h.json.type).sort()).toEqual([
      'checkout.session.completed',
      'payment.authorized',
      'payment.captured',
      'payment.refunded',
      'payment.succeeded',
    ]);
    for (const hook of sessionUrl.received) {
      expect(hook.headers['x-webhook-signature']).toBe(hexSig(hook.raw, sessionSecret));
      expect(verifyWebhook(hook.raw, hook.headers['x-webhook-signature'] as string, sessionSecret, { now: clock.now() }).id).toBe(hook.json.id);
      checkEnvelope(hook.json);
    }
    expect(
      endpoint.received
        .map((h) => h.json.type)
        .filter((x) => !x.startsWith('invoice.'))
        .sort(),
    ).toEqual(['checkout.session.cancelled', 'checkout.session.completed', 'payment.authorized', 'payment.captured', 'payment.refunded', 'payment.succeeded']);
    expect(endpoint.received[0]!.headers['x-webhook-signature']).toBe(hexSig(endpoint.received[0]!.raw, c.json.sandboxSecret));
  });

  it('TILL_ALLOW_LOOPBACK_WEBHOOKS lets a test-mode session name a loopback notificationUrl, never a live one', async () => {
    const m = await t.newMerchant();
    const local = await receiver();
    const body = { amount: 20, currency: 'USD', mode: 'embedded', paymentType: 'oneTime', notificationUrl: local.url };
    expect((await t.call('POST', '/v1/checkout-sessions', { key: m.keys.test.secret, body })).status).toBe(201);
    const live = await t.call('POST', '/v1/checkout-sessions', { key: m.keys.live.secret, body });
    expect(live.status).toBe(400);
    expect(live.json.error).toMatchObject({ code: 'parameter_invalid', param: 'notificationUrl' });
  });

  it('does not follow redirects: a 3xx is a failed attempt and the redirect target gets nothing', async () => {
    const m = await t.newMerchant();
    const target = await receiver();
    const redirecting = await receiver((_n, _req, res) => {
      res.writeHead(307, { location: target.url });
      res.end();
    });
    const c = await configure(m, { sandboxUrl: redirecting.url });
    const res = await t.call('POST', `/v1/WebhookConfiguration/${c.json.id}/SendTestEvent`, { key: m.keys.test.secret, body: {} });
    expect(res.json.status).toBe('failed');
    expect(target.received).toHaveLength(0);
    const [d] = await deliveries(m, c.json.id);
    expect(d.attempts[0]).toMatchObject({ httpStatus: 307, error: 'http_status' });
  });

  it('a hanging receiver counts as a failure after TILL_WEBHOOK_TIMEOUT_MS', async () => {
    const m = await t.newMerchant();
    const r = await receiver(() => 'hang');
    const c = await configure(m, { sandboxUrl: r.url });
    const started = Date.now();
    const res = await t.call('POST', `/v1/WebhookConfiguration/${c.json.id}/SendTestEvent`, { key: m.keys.test.secret, body: {} });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(res.json.status).toBe('failed');
    const [d] = await deliveries(m, c.json.id);
    expect(d.attempts[0]).toMatchObject({ httpStatus: null, error: 'timeout', responseSnippet: null });
    expect(d.attempts[0].durationMs).toBeGreaterThanOrEqual(1400);
    expect(d.nextAttemptAt).toBe(new Date(new Date(d.attempts[0].attemptedAt).getTime() + 60_000).toISOString());
    r.behave(() => 200);
  });
});
