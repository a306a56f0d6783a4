// Per-session webhooks (creation rules 4 and 5): a session's `notificationUrl` receives its
// `checkout.session.*` events and the `payment.*` and `dispute.*` events of payments made through it,
// in the normal envelope, retried as usual and signed with its `notificationSecret`. Only a receiver
// sees them: the `notificationUrl` is a receiver of the suite (fixtures/receiver.ts), so these checks
// need --receiver-url or a target that delivers test-mode webhooks to loopback, and are pending otherwise.
import assert from 'node:assert/strict';
import type { ConformanceContext, Scenario } from '../../types.js';
import { advanceClock, secondsUntil } from '../fixtures/clock.js';
import { withWatch } from '../fixtures/events.js';
import { call, expectStatus, sleep } from '../fixtures/http.js';
import { secretKey, tag } from '../fixtures/keys.js';
import { HOLD, PAY_CARD, SESSION, WATCH } from '../fixtures/operations.js';
import { noReceiver, type Received, type Receiver, signedWith, startReceiver } from '../fixtures/receiver.js';
import { clocked, pendingBecause, scenario } from '../fixtures/scenario.js';
import { CREATION_RULES } from '../fixtures/sections.js';
import { cancelSession, getSession, payByCard, postSession, refundSession } from '../fixtures/sessions.js';
import { disputeHelper, holdAction, waitForTied } from '../fixtures/tied.js';
import { WAIT_MS } from '../fixtures/wait.js';

/** A session (`extra` fields) whose `notificationUrl` is a receiver on this machine; pending when the target refuses it. */
async function notifiedSession(ctx: ConformanceContext, extra: Record<string, unknown> = {}, receiver?: Receiver): Promise<{ s: any; receiver: Receiver }> {
  const r = receiver ?? (await startReceiver(ctx)) ?? pendingBecause(noReceiver(ctx));
  const res = await postSession(ctx, { notificationUrl: r.url, ...extra });
  if (res.status === 400 && res.json?.error?.param === 'notificationUrl') pendingBecause(noReceiver(ctx, res.text));
  expectStatus(res, 201, 'create a session with a notificationUrl');
  return { s: res.json, receiver: r };
}

/** The `[type, subject id]` of each event the receiver got, in arrival order (a retry is listed again). */
const arrivals = (receiver: Receiver) => receiver.received.map((r) => [r.json?.type, r.json?.data?.object?.id]);

/**
 * Waits (WAIT_MS at most) until the receiver got each `[type, subject id]` of `expected`; answers those
 * requests, in the order asked. Fails naming what it got.
 */
async function waitForReceived(receiver: Receiver, expected: Array<[string, unknown]>): Promise<Received[]> {
  const find = () => expected.map(([type, id]) => receiver.received.find((r) => r.json?.type === type && r.json?.data?.object?.id === id));
  for (const deadline = Date.now() + WAIT_MS; ; await sleep(100)) {
    const found = find();
    if (found.every(Boolean)) return found as Received[];
    if (Date.now() > deadline)
      assert.fail(`the notificationUrl should have received ${JSON.stringify(expected)}; it got ${JSON.stringify(arrivals(receiver))}`);
  }
}

/** A card payment through a notified session, refunded in part: answers the session, its payment id and the receiver. */
async function paidAndRefunded(ctx: ConformanceContext, extra: Record<string, unknown> = {}) {
  const { s, receiver } = await notifiedSession(ctx, { amount: 20, ...extra });
  const paymentId: number = (await payByCard(ctx, s)).paymentResult.id;
  expectStatus(await refundSession(ctx, s, { amount: 5 }), 200, 'refund 5.00');
  const hooks = await waitForReceived(receiver, [
    ['payment.succeeded', paymentId],
    ['checkout.session.completed', s.id],
    ['payment.refunded', paymentId],
  ]);
  return { s, paymentId, receiver, hooks };
}

export const perSession: Scenario[] = [
  clocked(
    'webhooks.per-session.session-events',
    "With `notificationUrl`, the session's `checkout.session.completed`, `.expired` and `.cancelled` events are sent there",
    CREATION_RULES,
    [SESSION, 'cancelCheckoutSession', ...PAY_CARD],
    {
      async run(ctx) {
        const { s: paid, receiver } = await notifiedSession(ctx);
        const { s: cancelled } = await notifiedSession(ctx, {}, receiver);
        const { s: expiring } = await notifiedSession(ctx, {}, receiver);
        await payByCard(ctx, paid);
        expectStatus(await cancelSession(ctx, cancelled.id), 204, 'cancel a session');
        await advanceClock(ctx, secondsUntil(expiring.expiresAt, expiring.createdAt) + 1);
        const hooks = await waitForReceived(receiver, [
          ['checkout.session.completed', paid.id],
          ['checkout.session.cancelled', cancelled.id],
          ['checkout.session.expired', expiring.id],
        ]);
        assert.deepEqual(
          hooks.map((h) => h.json.data.object.status),
          ['Completed', 'Cancelled', 'Expired'],
        );
      },
    },
  ),
  scenario(
    'webhooks.per-session.payment-events',
    'The `payment.*` events of payments made through the session (refunds and holds included) are sent to its `notificationUrl`',
    CREATION_RULES,
    [...HOLD, 'capturePayment', 'refundCheckoutSession'],
    async (ctx) => {
      const { s, receiver } = await notifiedSession(ctx, { captureMethod: 'manual', amount: 30 });
      const paymentId: number = (await payByCard(ctx, s)).paymentResult.id;
      expectStatus(await holdAction(ctx, paymentId, 'capture', { amount: 20 }), 200, 'capture 20.00 of the hold');
      expectStatus(await refundSession(ctx, s, { amount: 5 }), 200, 'refund 5.00 of it');
      const types = ['payment.authorized', 'payment.captured', 'payment.succeeded', 'payment.refunded'];
      const hooks = await waitForReceived(
        receiver,
        types.map((t) => [t, paymentId]),
      );
      assert.deepEqual(
        hooks.map((h) => h.json.data.object.sessionId),
        types.map(() => s.id),
        'each is about a payment made through the session',
      );
    },
  ),
  scenario(
    'webhooks.per-session.dispute-events',
    'The `dispute.*` events of payments made through the session are sent to its `notificationUrl`',
    CREATION_RULES,
    [...PAY_CARD, 'openTestDispute', 'updateTestDispute', 'closeTestDispute'],
    async (ctx) => {
      const { s, receiver } = await notifiedSession(ctx, { amount: 25 });
      const paymentId: number = (await payByCard(ctx, s)).paymentResult.id;
      const opened = await disputeHelper(ctx, 'openTestDispute', `payments/${paymentId}/dispute`, {});
      expectStatus(opened, 201, 'open a dispute on the payment');
      expectStatus(await disputeHelper(ctx, 'updateTestDispute', `disputes/${opened.json.id}/update`, { status: 'UnderReview' }), 200, 'move it');
      expectStatus(await disputeHelper(ctx, 'closeTestDispute', `disputes/${opened.json.id}/close`, { outcome: 'Won' }), 200, 'close it');
      const hooks = await waitForReceived(receiver, [
        ['dispute.opened', opened.json.id],
        ['dispute.updated', opened.json.id],
        ['dispute.closed', opened.json.id],
      ]);
      assert.ok(
        hooks.every((h) => h.json.data.object.paymentId === paymentId),
        'about the payment made through the session',
      );
    },
  ),
  scenario(
    'webhooks.per-session.no-endpoint-needed',
    'Per-session delivery needs no configured endpoint',
    CREATION_RULES,
    [...PAY_CARD, 'createTestMerchant', 'listWebhookConfigurations'],
    async (ctx) => {
      const made = await call(ctx, 'checkout', 'createTestMerchant', {
        method: 'POST',
        path: '/v1/test-helpers/merchants',
        key: secretKey(ctx),
        body: { name: `conformance ${tag(ctx)} no endpoint` },
      });
      expectStatus(made, 201, 'make a merchant of its own (createTestMerchant)');
      const fresh = ctx.withKeys({ secretKey: made.json.secretKey, publishableKey: made.json.publishableKey });
      const configs = await call(fresh, 'checkout', 'listWebhookConfigurations', { method: 'GET', path: '/v1/WebhookConfiguration', key: made.json.secretKey });
      expectStatus(configs, 200, 'its webhook configurations');
      assert.deepEqual(configs.json.data, [], 'the new merchant has no configured endpoint');
      const { s, receiver } = await notifiedSession(fresh);
      await payByCard(fresh, s);
      await waitForReceived(receiver, [['checkout.session.completed', s.id]]);
    },
  ),
  scenario(
    'webhooks.per-session.also-configured-endpoints',
    'Per-session events also go to the configured endpoints',
    CREATION_RULES,
    [...WATCH, ...PAY_CARD],
    async (ctx) => {
      await withWatch(ctx, ['checkout.session.completed', 'payment.succeeded'], async (w) => {
        const { s, receiver } = await notifiedSession(ctx);
        const paymentId: number = (await payByCard(ctx, s)).paymentResult.id;
        const hooks = await waitForReceived(receiver, [
          ['payment.succeeded', paymentId],
          ['checkout.session.completed', s.id],
        ]);
        const logged = await waitForTied(
          ctx,
          w,
          (o) => o.id === s.id || o.id === paymentId,
          ['payment.succeeded', 'checkout.session.completed'],
          'the configured endpoint',
        );
        assert.deepEqual(logged.map((e) => e.event.id).sort(), hooks.map((h) => h.json.id).sort(), 'the same events (same ids) reach the configured endpoint');
      });
    },
  ),
  clocked(
    'webhooks.per-session.normal-envelope-retries-signature',
    'Per-session events use the normal envelope, retry schedule and `X-Webhook-Signature`',
    CREATION_RULES,
    [...PAY_CARD],
    {
      async run(ctx) {
        const { s, receiver } = await notifiedSession(ctx);
        receiver.respond(() => 500);
        await payByCard(ctx, s);
        const [first] = await waitForReceived(receiver, [['checkout.session.completed', s.id]]);
        const event = first!.json;
        assert.match(event.id, /^evt_/);
        assert.equal(event.object, 'event');
        assert.match(event.apiVersion, /^\d{4}-\d{2}-\d{2}$/);
        assert.equal(event.created, event.createdAt);
        assert.deepEqual([event.livemode, typeof event.merchantId, event.data.object.object], [false, 'number', 'checkout_session']);
        assert.ok(signedWith(first!, s.notificationSecret), 'signed with X-Webhook-Signature under the notificationSecret');
        const failedFirst = receiver.received.findIndex((r) => r.json?.id === event.id);
        receiver.respond(() => 200);
        // The target's clock also runs in wall time: 50 s on leaves slack for the time this check takes.
        await advanceClock(ctx, 50);
        await sleep(500);
        assert.equal(receiver.received.filter((r) => r.json?.id === event.id).length, 1, 'no retry within the first minute');
        await advanceClock(ctx, 11);
        const retry = await waitForRetry(receiver, event.id, failedFirst);
        assert.equal(retry.raw, first!.raw, 'the retry carries the same event (same id)');
        assert.ok(signedWith(retry, s.notificationSecret), 'the retry is signed too');
      },
    },
  ),
  scenario(
    'webhooks.per-session.sent-secret-signs',
    'A sent `notificationSecret` signs every event of the session',
    CREATION_RULES,
    [...PAY_CARD, 'refundCheckoutSession'],
    async (ctx) => {
      const secret = `conformance-secret-${tag(ctx)}`;
      const { s, hooks } = await paidAndRefunded(ctx, { notificationSecret: secret });
      assert.equal(s.notificationSecret, undefined, 'a sent secret is not answered back');
      hooks.forEach((h) => assert.ok(signedWith(h, secret), `${h.json.type} is signed with the sent secret`));
    },
  ),
  scenario(
    'webhooks.per-session.generated-secret-signs',
    "Without a sent secret, the `notificationSecret` returned at creation signs the session's events",
    CREATION_RULES,
    [...PAY_CARD, 'refundCheckoutSession', 'retrieveCheckoutSession'],
    async (ctx) => {
      const { s, hooks } = await paidAndRefunded(ctx);
      assert.equal(typeof s.notificationSecret, 'string', 'the create response carries the generated notificationSecret');
      hooks.forEach((h) => assert.ok(signedWith(h, s.notificationSecret), `${h.json.type} is signed with the returned secret`));
      const read = await getSession(ctx, s.id);
      assert.equal(read.json.notificationSecret, undefined, 'it appears only in the create response');
    },
  ),
];

/** Waits (WAIT_MS at most) for a second arrival of event `eventId` after the one at index `first`. */
async function waitForRetry(receiver: Receiver, eventId: string, first: number): Promise<Received> {
  for (const deadline = Date.now() + WAIT_MS; ; await sleep(100)) {
    const again = receiver.received.find((r, i) => i > first && r.json?.id === eventId);
    if (again) return again;
    assert.ok(Date.now() < deadline, `event ${eventId} was retried at the notificationUrl a minute after its failed attempt`);
  }
}
