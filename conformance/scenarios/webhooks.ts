// Behaviour scenarios of the webhook event system (checkout-billing-api.md › Events, and the
// per-session rules 4 and 5 of checkout session creation). Events are observed through a webhook
// configuration's delivery log (`listWebhookDeliveries`, which carries each delivered event);
// what only the receiver sees (the signature and the headers, per-session URLs) also needs an
// HTTPS endpoint on a public host that the suite can read back.
import assert from 'node:assert/strict';
import type { ConformanceContext, Scenario } from '../types.js';
import { advanceClock, secondsUntil } from './fixtures/clock.js';
import { call, expectError, expectStatus } from './fixtures/http.js';
import { secretKey, tag } from './fixtures/keys.js';
import { HOLD, PAY_CARD, PAY_QR, SESSION, SUBSCRIBE, WATCH } from './fixtures/operations.js';
import { CHECKOUT_DOC, clocked, pending, source } from './fixtures/scenario.js';
import { CREATION_RULES, SESSION_STATES, SUBSCRIPTION_STATES } from './fixtures/sections.js';
import { newSession, payByCard } from './fixtures/sessions.js';
import { loggedEvents, type Watch, withWatch } from './fixtures/events.js';
import { drainPayouts, failNextPayout, PAYOUT_CYCLE, payAndPayOut, payoutEvents } from './fixtures/payouts.js';

const TEST_EVENT = ['createWebhookConfiguration', 'sendWebhookTestEvent', 'listWebhookDeliveries'];

const EVENT_TYPES = source(CHECKOUT_DOC, 'Events', 'Event types');
const SELECTION = source(CHECKOUT_DOC, 'Events', 'Delivery selection');
const ENVELOPE = source(CHECKOUT_DOC, 'Events', 'Envelope');
const SIGNATURE = source(CHECKOUT_DOC, 'Events', 'Signature and headers');
const RETRY = source(CHECKOUT_DOC, 'Events', 'Delivery and retry');
const TEST = source(CHECKOUT_DOC, 'Events', 'Test event');
const TIED = source(CHECKOUT_DOC, 'Events', 'Events tied to operations');

/** A disabled configuration whose URL never resolves (`.invalid`): nothing is ever sent anywhere. */
async function newConfiguration(
  ctx: ConformanceContext,
  body: Record<string, unknown> = {},
): Promise<{ id: number; sandboxSecret: string; liveSecret: string }> {
  const res = await call(ctx, 'checkout', 'createWebhookConfiguration', {
    method: 'POST',
    path: '/v1/WebhookConfiguration',
    key: secretKey(ctx),
    body: { sandboxUrl: `https://conformance-${tag(ctx).toLowerCase()}.till.invalid/hooks`, enabled: false, description: `Conformance ${tag(ctx)}`, ...body },
  });
  expectStatus(res, 201, 'create a webhook configuration');
  ctx.onCleanup(() =>
    ctx.request('checkout', 'deleteWebhookConfiguration', { method: 'DELETE', path: `/v1/WebhookConfiguration/${res.json.id}`, key: secretKey(ctx) }),
  );
  return res.json;
}
const sendTest = (ctx: ConformanceContext, id: number, body: Record<string, unknown> = {}) =>
  call(ctx, 'checkout', 'sendWebhookTestEvent', { method: 'POST', path: `/v1/WebhookConfiguration/${id}/SendTestEvent`, key: secretKey(ctx), body });
async function deliveryLog(ctx: ConformanceContext, id: number): Promise<any[]> {
  const res = await call(ctx, 'checkout', 'listWebhookDeliveries', { method: 'GET', path: `/v1/WebhookConfiguration/${id}/deliveries`, key: secretKey(ctx) });
  expectStatus(res, 200, 'the delivery log');
  return res.json.data;
}

/** Waits (up to 8 s: delivery is asynchronous) until the watch's log holds events matching `match`; answers them, oldest first. */
async function waitForEvents(ctx: ConformanceContext, w: Watch, match: (e: any) => boolean): Promise<any[]> {
  for (let i = 0; ; i++) {
    const found = (await loggedEvents(ctx, w)).filter(match);
    if (found.length > 0) return found;
    assert.ok(i < 40, 'the expected event reached the delivery log');
    await new Promise((r) => setTimeout(r, 200));
  }
}
const waitForLogged = async (ctx: ConformanceContext, w: Watch, eventId: string) => (await waitForEvents(ctx, w, (e) => e.id === eventId))[0];

/** The automatic retry delays after a failed attempt, in seconds (1 min, 5 min, 30 min, 2 h, 8 h, 24 h). */
const RETRY_DELAYS = [60, 300, 1800, 7200, 28_800, 86_400];

/** A test event to a URL that never resolves: its first attempt has failed. Answers the configuration and the send result. */
async function failingTestDelivery(ctx: ConformanceContext): Promise<{ config: { id: number }; sent: any }> {
  const config = await newConfiguration(ctx);
  const sent = await sendTest(ctx, config.id);
  expectStatus(sent, 200, 'send a test event');
  assert.equal(sent.json.status, 'failed', 'a URL that never resolves fails');
  return { config, sent: sent.json };
}

/** `POST …/deliveries/{id}/resend`. */
const resend = (ctx: ConformanceContext, configId: number, deliveryId: string) =>
  call(ctx, 'checkout', 'resendWebhookDelivery', {
    method: 'POST',
    path: `/v1/WebhookConfiguration/${configId}/deliveries/${deliveryId}/resend`,
    key: secretKey(ctx),
  });

/** The delivery of one event in a configuration's log. */
async function deliveryOf(ctx: ConformanceContext, configId: number, deliveryId: string): Promise<any> {
  const found = (await deliveryLog(ctx, configId)).find((d) => d.id === deliveryId);
  assert.ok(found, `delivery ${deliveryId} is in the log`);
  return found;
}

/** The gaps between consecutive attempts of a delivery, in seconds. */
const gaps = (delivery: any): number[] =>
  delivery.attempts.slice(1).map((a: any, i: number) => (Date.parse(a.attemptedAt) - Date.parse(delivery.attempts[i].attemptedAt)) / 1000);

/** An enabled configuration that subscribes to `events` at a URL that never resolves, to watch its delivery log. */
const watch = (ctx: ConformanceContext, events: string[]) => newConfiguration(ctx, { enabled: true, subscribedEvents: events });

/** The deliveries of a configuration's log for events of `type` about `subject` (a session or payment id in `data.object`). */
async function eventsAbout(ctx: ConformanceContext, configId: number, type: string, matches: (object: any) => boolean): Promise<any[]> {
  return (await deliveryLog(ctx, configId)).filter((d) => d.eventType === type && matches(d.event?.data?.object ?? {}));
}

const selection: Scenario[] = [
  pending('webhooks.selection.default-every-event', 'By default (no `subscribedEvents`) every event is delivered', SELECTION, [...WATCH, ...PAY_CARD]),
  pending('webhooks.selection.exact-name', '`subscribedEvents` with an event name delivers that event and not others', SELECTION, [...WATCH, ...PAY_CARD]),
  pending('webhooks.selection.family-wildcard', 'A family with a trailing wildcard (`payment.*`) delivers every event of that family and no other', SELECTION, [
    ...WATCH,
    ...PAY_CARD,
  ]),
  pending('webhooks.selection.star', '`*` delivers every event', SELECTION, [...WATCH, ...PAY_CARD]),
  {
    id: 'webhooks.selection.full-event-list',
    title: 'Every event name of the full list (and each family wildcard) is accepted in `subscribedEvents`, later additions included',
    source: EVENT_TYPES,
    requires: ['createWebhookConfiguration', 'retrieveWebhookConfiguration', 'deleteWebhookConfiguration'],
    serverOnly: true,
    async run(ctx) {
      const names = [
        'payment.succeeded',
        'payment.failed',
        'payment.refunded',
        'payment.authorized',
        'payment.captured',
        'payment.released',
        'payment.authorization_expired',
        'checkout.session.completed',
        'checkout.session.expired',
        'checkout.session.cancelled',
        'invoice.paid',
        'invoice.payment_failed',
        'invoice.past_due',
        'invoice.expired',
        'invoice.sent',
        'invoice.voided',
        'invoice.refunded',
        'subscription.created',
        'subscription.activated',
        'subscription.renewed',
        'subscription.payment_failed',
        'subscription.past_due',
        'subscription.unpaid',
        'subscription.paused',
        'subscription.resumed',
        'subscription.cancelled',
        'subscription.updated',
        'payout.completed',
        'payout.failed',
        'dispute.opened',
        'dispute.updated',
        'dispute.closed',
        'webhook.test',
      ];
      const families = ['payment.*', 'checkout.session.*', 'checkout.*', 'invoice.*', 'subscription.*', 'payout.*', 'dispute.*', 'webhook.*'];
      const config = await newConfiguration(ctx, { subscribedEvents: [...names, ...families] });
      const got = await call(ctx, 'checkout', 'retrieveWebhookConfiguration', {
        method: 'GET',
        path: `/v1/WebhookConfiguration/${config.id}`,
        key: secretKey(ctx),
      });
      expectStatus(got, 200, 'retrieve the configuration');
      assert.deepEqual(got.json.subscribedEvents, [...names, ...families]);
      const unknown = await ctx.request('checkout', 'createWebhookConfiguration', {
        method: 'POST',
        path: '/v1/WebhookConfiguration',
        key: secretKey(ctx),
        body: { sandboxUrl: 'https://x.till.invalid/h', subscribedEvents: ['payment.exploded'] },
      });
      expectError(unknown, 400, 'invalid_request', 'parameter_invalid');
    },
  },
  pending(
    'webhooks.selection.sandbox-url',
    'Test-mode events go to the sandbox URL, signed with the sandbox secret (delivery `livemode` false, `url` the sandbox URL)',
    SELECTION,
    [...WATCH, ...PAY_CARD],
  ),
  pending('webhooks.selection.live-url', 'Live-mode events go to the live URL, signed with the live secret (needs a live key)', SELECTION, [
    ...WATCH,
    ...PAY_CARD,
  ]),
  clocked(
    'webhooks.selection.payouts-always-live',
    "Payout events always go to the live URL, whatever the mode: a test payout's event is not delivered to the sandbox URL of a configuration that has a live URL (a configuration without one gets it at its sandbox URL)",
    SELECTION,
    [...WATCH, 'listEvents', ...PAYOUT_CYCLE],
    {
      async run(ctx) {
        const both = await newConfiguration(ctx, {
          liveUrl: `https://conformance-${tag(ctx).toLowerCase()}-live.till.invalid/hooks`,
          enabled: true,
          subscribedEvents: ['payout.*'],
        });
        await withWatch(ctx, ['payout.*'], async (sandboxOnly) => {
          await payAndPayOut(ctx);
          const [event] = await payoutEvents(ctx, 'payout.completed');
          assert.ok(event, 'a payout.completed event was written');
          assert.equal(event.livemode, false, "a test-mode payout's event says livemode false");
          const logged = await waitForLogged(ctx, sandboxOnly, event.id);
          assert.equal(logged.data.object.isLive, false, 'a sandbox payout is not live money');
          const testLog = await deliveryLog(ctx, both.id);
          assert.ok(!testLog.some((d) => d.eventId === event.id), 'the event did not go to the sandbox URL of a configuration with a live URL');
        });
      },
    },
  ),
];

const envelope: Scenario[] = [
  {
    id: 'webhooks.envelope.fields',
    title:
      'Every event has id `evt_...`, object `event`, type, apiVersion `YYYY-MM-DD`, created and createdAt (the same ISO 8601 timestamp), livemode, merchantId (number) and data.object',
    source: ENVELOPE,
    requires: TEST_EVENT,
    serverOnly: true,
    async run(ctx) {
      const config = await newConfiguration(ctx);
      const res = await sendTest(ctx, config.id);
      const [{ event }] = await deliveryLog(ctx, config.id);
      assert.equal(event.id, res.json.eventId);
      assert.match(event.id, /^evt_/);
      assert.equal(event.object, 'event');
      assert.match(event.apiVersion, /^\d{4}-\d{2}-\d{2}$/);
      assert.equal(event.created, event.createdAt);
      assert.ok(!Number.isNaN(Date.parse(event.created)), 'created is an ISO 8601 timestamp');
      assert.equal(typeof event.livemode, 'boolean');
      assert.equal(typeof event.merchantId, 'number');
      assert.equal(typeof event.data.object.object, 'string');
    },
  },
  pending(
    'webhooks.envelope.data-object-discriminator',
    '`data.object.object` is `payment`, `checkout_session`, `invoice`, `subscription`, `payout`, `dispute` or `test` according to the subject',
    ENVELOPE,
    [...WATCH, ...PAY_CARD, 'sendWebhookTestEvent'],
  ),
  clocked('webhooks.envelope.retries-same-id', 'Retries of an event carry the same `id`', ENVELOPE, [...TEST_EVENT, 'updateWebhookConfiguration'], {
    async run(ctx) {
      const { config, sent } = await failingTestDelivery(ctx);
      await advanceClock(ctx, RETRY_DELAYS[0]! + RETRY_DELAYS[1]! + 1);
      const log = (await deliveryLog(ctx, config.id)).filter((d) => d.eventId === sent.eventId);
      assert.equal(log.length, 1, 'retries are attempts of the one delivery of the event, not new events');
      assert.equal(log[0].attempts.length, 3, 'the first attempt and two retries');
      assert.equal(log[0].event?.id ?? log[0].eventId, sent.eventId, 'every attempt sends the same event id');
    },
  }),
  pending('webhooks.envelope.statuses-pascal-case', 'Statuses inside `data.object` are PascalCase (`Completed`, `Active`, `Canceled`)', ENVELOPE, [
    ...WATCH,
    ...PAY_CARD,
  ]),
  pending(
    'webhooks.envelope.session-status-case-insensitive',
    "A session's status in webhooks (PascalCase) matches its REST status (snake_case) compared case-insensitively",
    SESSION_STATES,
    [...WATCH, ...PAY_CARD, 'retrieveCheckoutSession'],
  ),
  pending(
    'webhooks.envelope.metadata-on-payments',
    "Payments made through a session carry the session's `metadata`, so `payment.failed` and `payment.refunded` can be tied to an order",
    ENVELOPE,
    [...WATCH, ...PAY_CARD, 'refundCheckoutSession'],
  ),
  pending('webhooks.envelope.metadata-on-session-events', "The session's `metadata` is copied to its `checkout.session.*` events", ENVELOPE, [
    ...WATCH,
    SESSION,
    'cancelCheckoutSession',
  ]),
  pending(
    'webhooks.envelope.checkout-session-object',
    'The `checkout_session` object carries object, id, sessionId, status, paymentStatus, amount, currency, paymentId, paymentReferenceNumber, payer fields, notifyCustomer, sendReceipt, invoiceId, invoiceReference, isLive, metadata, createdAt and the `refund` object',
    ENVELOPE,
    [...WATCH, ...PAY_CARD],
  ),
  pending('webhooks.envelope.payer-details-in-session-events', 'Payer details of a session appear in its `checkout.session.*` webhooks', CREATION_RULES, [
    ...WATCH,
    SESSION,
    'cancelCheckoutSession',
  ]),
  pending(
    'webhooks.envelope.subscription-object',
    'The `subscription` object carries object, id, clientId, clientEmail, status, reason, startDate, currentPeriodStart, currentPeriodEnd, cancelAtPeriodEnd, cancelAt, items (id, planId, planName, quantity, amount, isMetered), isLive and createdAt',
    ENVELOPE,
    [...WATCH, ...SUBSCRIBE],
  ),
  pending('webhooks.envelope.subscription-transition-previous-status', 'Subscription status transitions add `previousStatus` and `reason`', ENVELOPE, [
    ...WATCH,
    ...SUBSCRIBE,
    'pauseSubscription',
  ]),
  pending(
    'webhooks.envelope.subscription-whole-object-once',
    'Every `subscription.*` event carries the whole subscription after the change, once per change, however it was made',
    SUBSCRIPTION_STATES,
    [...WATCH, ...SUBSCRIBE, 'pauseSubscription', 'resumeSubscription'],
  ),
  pending('webhooks.envelope.refunded-amounts', '`payment.refunded` carries `refundAmount` (this refund) and `refundedAmount` (all so far)', ENVELOPE, [
    ...WATCH,
    ...PAY_CARD,
    'refundCheckoutSession',
  ]),
  pending('webhooks.envelope.refund-object-in-session-events', '`checkout.session.*` webhooks carry the same `refund` object as retrieval', ENVELOPE, [
    ...WATCH,
    ...PAY_CARD,
    'retrieveCheckoutSession',
  ]),
];

const signature: Scenario[] = [
  pending(
    'webhooks.signature.header-format',
    '`X-Webhook-Signature` is `sha256=` followed by the lower-case hex HMAC-SHA256 of the raw body under the signing secret (needs a public HTTPS receiver)',
    SIGNATURE,
    TEST_EVENT,
  ),
  pending(
    'webhooks.signature.id-and-created-signed',
    '`id` and `created` are inside the signed body, so old and repeated events can be rejected (needs a public HTTPS receiver)',
    SIGNATURE,
    TEST_EVENT,
  ),
  pending(
    'webhooks.signature.informational-headers',
    'Deliveries carry `X-Webhook-Id` (event id), `X-Webhook-Event` (type) and `X-Webhook-Timestamp` (Unix seconds at send time), not signed (needs a public HTTPS receiver)',
    SIGNATURE,
    TEST_EVENT,
  ),
  pending(
    'webhooks.signature.live-and-sandbox-secrets',
    'Sandbox deliveries are signed with the sandbox secret and live ones with the live secret (needs a public HTTPS receiver)',
    SIGNATURE,
    TEST_EVENT,
  ),
];

const delivery: Scenario[] = [
  pending('webhooks.delivery.success-2xx', 'A delivery succeeds on any 2xx answer within 30 seconds', RETRY, TEST_EVENT),
  pending('webhooks.delivery.timeout-30s', 'No answer within 30 seconds is a failed attempt, retried', RETRY, TEST_EVENT),
  clocked(
    'webhooks.delivery.retry-schedule',
    'A failed delivery is retried after 1 minute, 5 minutes, 30 minutes, 2 hours, 8 hours and 24 hours',
    RETRY,
    TEST_EVENT,
    {
      async run(ctx) {
        const { config, sent } = await failingTestDelivery(ctx);
        await advanceClock(ctx, RETRY_DELAYS[0]! - 5);
        // The test clock keeps running in wall time, so a slow run can reach the minute by itself;
        // what must hold is that no retry came sooner than a minute after the first attempt.
        for (const gap of gaps(await deliveryOf(ctx, config.id, sent.deliveryId)))
          assert.ok(gap >= RETRY_DELAYS[0]!, `no retry before 1 minute; one came ${gap} s after the first attempt`);
        await advanceClock(
          ctx,
          RETRY_DELAYS.reduce((a, b) => a + b, 0),
        );
        const d = await deliveryOf(ctx, config.id, sent.deliveryId);
        assert.equal(d.attempts.length, 7, 'the first attempt and six retries');
        gaps(d).forEach((gap, i) =>
          assert.ok(
            gap >= RETRY_DELAYS[i]! && gap <= RETRY_DELAYS[i]! + 5,
            `retry ${i + 1} comes ${RETRY_DELAYS[i]} s after the attempt before it, got ${gap} s`,
          ),
        );
      },
    },
  ),
  clocked(
    'webhooks.delivery.dead-letter',
    'After the 6th failed retry (about 34.5 hours) the delivery is dead-lettered and not retried again',
    RETRY,
    TEST_EVENT,
    {
      async run(ctx) {
        const { config, sent } = await failingTestDelivery(ctx);
        await advanceClock(ctx, 35 * 3600);
        const d = await deliveryOf(ctx, config.id, sent.deliveryId);
        assert.equal(d.status, 'dead_lettered', 'after the 6th failed retry the delivery is dead-lettered');
        assert.equal(d.nextAttemptAt, null, 'no retry is scheduled');
        await advanceClock(ctx, 7 * 86_400);
        assert.equal((await deliveryOf(ctx, config.id, sent.deliveryId)).attempts.length, 7, 'not retried again');
      },
    },
  ),
  {
    id: 'webhooks.delivery.log-every-attempt',
    title: 'Every attempt is listed in the delivery log',
    source: RETRY,
    requires: [...TEST_EVENT, 'resendWebhookDelivery'],
    serverOnly: true,
    async run(ctx) {
      const { config, sent } = await failingTestDelivery(ctx);
      expectStatus(await resend(ctx, config.id, sent.deliveryId), 200, 're-send');
      const [delivery] = await deliveryLog(ctx, config.id);
      assert.equal(delivery.attemptCount, 2);
      assert.equal(delivery.attempts.length, 2);
      for (const attempt of delivery.attempts) {
        assert.equal(attempt.httpStatus, null);
        assert.ok(attempt.error, 'a failed attempt says why');
      }
    },
  },
  clocked('webhooks.delivery.resend-dead-lettered', 'A dead-lettered delivery can be re-sent at any time', RETRY, [...TEST_EVENT, 'resendWebhookDelivery'], {
    async run(ctx) {
      const { config, sent } = await failingTestDelivery(ctx);
      await advanceClock(ctx, 35 * 3600);
      assert.equal((await deliveryOf(ctx, config.id, sent.deliveryId)).status, 'dead_lettered');
      await advanceClock(ctx, 30 * 86_400);
      const resent = await resend(ctx, config.id, sent.deliveryId);
      expectStatus(resent, 200, 're-send a dead-lettered delivery a month later');
      assert.equal(resent.json.attempts.length, 8, 'the re-send is one more attempt');
    },
  }),
  {
    id: 'webhooks.delivery.resend-failed',
    title: 'A failed delivery can be re-sent at any time',
    source: RETRY,
    requires: [...TEST_EVENT, 'resendWebhookDelivery'],
    serverOnly: true,
    async run(ctx) {
      const { config, sent } = await failingTestDelivery(ctx);
      const resent = await resend(ctx, config.id, sent.deliveryId);
      expectStatus(resent, 200, 're-send a failed delivery');
      assert.equal(resent.json.id, sent.deliveryId);
      assert.equal(resent.json.eventId, sent.eventId, 'a re-send carries the same event id');
      assert.equal(resent.json.status, 'failed', 'still failing, its scheduled retry kept');
      assert.ok(resent.json.nextAttemptAt, 'the scheduled retry is kept');
    },
  },
  pending('webhooks.delivery.resend-current-url-and-secret', "A re-send goes to the configuration's current URL under its current secret", RETRY, [
    ...TEST_EVENT,
    'updateWebhookConfiguration',
    'resendWebhookDelivery',
  ]),
];

const testEvent: Scenario[] = [
  {
    id: 'webhooks.test.sandbox-by-default',
    title: '`SendTestEvent` without `live` sends a `webhook.test` event to the sandbox URL',
    source: TEST,
    requires: TEST_EVENT,
    serverOnly: true,
    async run(ctx) {
      const config = await newConfiguration(ctx);
      const res = await sendTest(ctx, config.id);
      expectStatus(res, 200, 'send a test event');
      assert.equal(res.json.livemode, false);
      assert.match(res.json.url, /\.till\.invalid\/hooks$/);
      const [delivery] = await deliveryLog(ctx, config.id);
      assert.equal(delivery.id, res.json.deliveryId);
      assert.equal(delivery.eventType, 'webhook.test');
      assert.equal(delivery.event.type, 'webhook.test');
    },
  },
  pending('webhooks.test.live-when-asked', '`SendTestEvent` with `live` true sends to the live URL', TEST, TEST_EVENT),
  {
    id: 'webhooks.test.ignores-filter',
    title: '`webhook.test` ignores the subscription filter: it is delivered even when `subscribedEvents` leaves it out',
    source: SELECTION,
    requires: [...TEST_EVENT, 'updateWebhookConfiguration'],
    serverOnly: true,
    async run(ctx) {
      const config = await newConfiguration(ctx, { subscribedEvents: ['invoice.paid'] });
      const res = await sendTest(ctx, config.id);
      expectStatus(res, 200, 'send a test event');
      assert.equal((await deliveryLog(ctx, config.id)).length, 1, 'the test event is in the delivery log');
    },
  },
  {
    id: 'webhooks.test.event-type',
    title: '`eventType` names the event type to test; the delivery is a `webhook.test` event with data.object `test`',
    source: TEST,
    requires: TEST_EVENT,
    serverOnly: true,
    async run(ctx) {
      const config = await newConfiguration(ctx);
      const res = await sendTest(ctx, config.id, { eventType: 'payment.refunded' });
      expectStatus(res, 200, 'send a test event');
      const [delivery] = await deliveryLog(ctx, config.id);
      assert.equal(delivery.event.type, 'webhook.test');
      assert.equal(delivery.event.data.object.object, 'test');
      assert.equal(delivery.event.data.object.eventType, 'payment.refunded');
    },
  },
];

const perSession: Scenario[] = [
  pending(
    'webhooks.per-session.session-events',
    "With `notificationUrl`, the session's `checkout.session.completed`, `.expired` and `.cancelled` events are sent there (needs a public HTTPS receiver)",
    CREATION_RULES,
    [SESSION, 'cancelCheckoutSession', ...PAY_CARD],
  ),
  pending(
    'webhooks.per-session.payment-events',
    'The `payment.*` events of payments made through the session (refunds and holds included) are sent to its `notificationUrl` (needs a public HTTPS receiver)',
    CREATION_RULES,
    [...PAY_CARD, 'refundCheckoutSession', 'capturePayment'],
  ),
  pending(
    'webhooks.per-session.dispute-events',
    'The `dispute.*` events of payments made through the session are sent to its `notificationUrl` (no way to raise a chargeback is known yet)',
    CREATION_RULES,
    [...PAY_CARD],
  ),
  pending('webhooks.per-session.no-endpoint-needed', 'Per-session delivery needs no configured endpoint', CREATION_RULES, [...PAY_CARD]),
  pending('webhooks.per-session.also-configured-endpoints', 'Per-session events also go to the configured endpoints', CREATION_RULES, [...WATCH, ...PAY_CARD]),
  pending(
    'webhooks.per-session.normal-envelope-retries-signature',
    'Per-session events use the normal envelope, retry schedule and `X-Webhook-Signature`',
    CREATION_RULES,
    [...PAY_CARD],
  ),
  pending('webhooks.per-session.sent-secret-signs', 'A sent `notificationSecret` signs every event of the session', CREATION_RULES, [...PAY_CARD]),
  pending(
    'webhooks.per-session.generated-secret-signs',
    "Without a sent secret, the `notificationSecret` returned at creation signs the session's events",
    CREATION_RULES,
    [...PAY_CARD],
  ),
];

const tied: Scenario[] = [
  clocked('webhooks.tied.session-expiry', 'Session expiry sends `checkout.session.expired`', TIED, [...WATCH, SESSION], {
    async run(ctx) {
      const config = await watch(ctx, ['checkout.session.expired']);
      const s = await newSession(ctx);
      await advanceClock(ctx, secondsUntil(s.expiresAt, s.createdAt) + 1);
      const sent = await eventsAbout(ctx, config.id, 'checkout.session.expired', (o) => o.id === s.id || o.sessionId === s.id);
      assert.equal(sent.length, 1, 'one checkout.session.expired for the session');
    },
  }),
  pending('webhooks.tied.cancel-session', 'Cancelling a session sends `checkout.session.cancelled` (and a repeated cancel no second one)', TIED, [
    ...WATCH,
    SESSION,
    'cancelCheckoutSession',
  ]),
  pending('webhooks.tied.hold-authorized', 'A hold authorized sends `payment.authorized`, then `checkout.session.completed`', TIED, [...WATCH, ...HOLD]),
  pending('webhooks.tied.capture', 'A capture sends `payment.captured`, then `payment.succeeded`', TIED, [...WATCH, ...HOLD, 'capturePayment']),
  pending('webhooks.tied.release', 'A release sends `payment.released`', TIED, [...WATCH, ...HOLD, 'releasePayment']),
  clocked('webhooks.tied.hold-lapse', 'A lapsed hold sends `payment.authorization_expired`', TIED, [...WATCH, ...HOLD], {
    async run(ctx) {
      const config = await watch(ctx, ['payment.authorization_expired']);
      const s = await newSession(ctx, { captureMethod: 'manual' });
      const paymentId = (await payByCard(ctx, s)).paymentResult.id;
      await advanceClock(ctx, 7 * 86_400 + 60);
      const sent = await eventsAbout(ctx, config.id, 'payment.authorization_expired', (o) => o.id === paymentId || o.paymentId === paymentId);
      assert.equal(sent.length, 1, 'one payment.authorization_expired for the lapsed hold');
    },
  }),
  pending('webhooks.tied.each-refund', 'Each successful refund sends `payment.refunded` (two partial refunds: two events)', TIED, [
    ...WATCH,
    ...PAY_CARD,
    'refundCheckoutSession',
  ]),
  pending('webhooks.tied.subscription-cancel', 'Cancelling a subscription sends `subscription.cancelled`', TIED, [
    ...WATCH,
    ...SUBSCRIBE,
    'cancelSubscription',
  ]),
  pending('webhooks.tied.subscription-pause', 'Pausing a subscription sends `subscription.paused`', TIED, [...WATCH, ...SUBSCRIBE, 'pauseSubscription']),
  pending('webhooks.tied.subscription-resume', 'Resuming a subscription sends `subscription.resumed`', TIED, [
    ...WATCH,
    ...SUBSCRIBE,
    'pauseSubscription',
    'resumeSubscription',
  ]),
  pending(
    'webhooks.tied.subscription-plan-change',
    'A plan change sends `subscription.updated` with `previousPlanId` and net `proratedAmount` (charge positive, credit negative); no API operation changes a plan yet',
    TIED,
    [...WATCH, ...SUBSCRIBE, 'createPortalSession'],
  ),
];

/** Event types whose trigger is not already a row of the operations table above. */
const eventTypes: Scenario[] = [
  pending('webhooks.events.payment-succeeded', '`payment.succeeded` is sent when a payment is approved', EVENT_TYPES, [...WATCH, ...PAY_CARD]),
  pending('webhooks.events.payment-failed', '`payment.failed` is sent when a payment is declined or errors', EVENT_TYPES, [...WATCH, ...PAY_CARD]),
  pending('webhooks.events.checkout-session-completed', '`checkout.session.completed` is sent when a hosted or embedded session is paid', EVENT_TYPES, [
    ...WATCH,
    ...PAY_CARD,
  ]),
  pending(
    'webhooks.events.checkout-session-completed-by-qr',
    '`payment.succeeded` and `checkout.session.completed` are sent when a wallet QR code is paid',
    EVENT_TYPES,
    [...WATCH, ...PAY_QR],
  ),
  pending('webhooks.events.invoice-paid', '`invoice.paid` is sent when an invoice is paid in full', EVENT_TYPES, [...WATCH, 'createInvoice', ...PAY_CARD]),
  pending('webhooks.events.invoice-payment-failed', '`invoice.payment_failed` is sent when a payment against an invoice fails', EVENT_TYPES, [
    ...WATCH,
    'createInvoice',
    ...PAY_CARD,
  ]),
  clocked('webhooks.events.invoice-past-due', '`invoice.past_due` is sent when an invoice passes its due date unpaid', EVENT_TYPES, [
    ...WATCH,
    'createInvoice',
  ]),
  pending('webhooks.events.invoice-sent', '`invoice.sent` is sent when an invoice is emailed to its customer', EVENT_TYPES, [
    ...WATCH,
    'createInvoice',
    'sendInvoice',
  ]),
  pending('webhooks.events.invoice-voided', '`invoice.voided` is sent when an unpaid invoice is voided', EVENT_TYPES, [
    ...WATCH,
    'createInvoice',
    'voidInvoice',
  ]),
  pending('webhooks.events.invoice-refunded', '`invoice.refunded` is sent when a payment on an invoice is refunded', EVENT_TYPES, [
    ...WATCH,
    'createInvoice',
    ...PAY_CARD,
    'refundInvoice',
  ]),
  pending('webhooks.events.subscription-created', '`subscription.created` is sent when a subscription is created', EVENT_TYPES, [...WATCH, ...SUBSCRIBE]),
  pending(
    'webhooks.events.subscription-activated',
    '`subscription.activated` is sent when a subscription becomes active (first payment, trial end, recovery from past due)',
    EVENT_TYPES,
    [...WATCH, ...SUBSCRIBE],
  ),
  clocked(
    'webhooks.events.subscription-renewed',
    '`subscription.renewed` is sent when a subscription rolls into a new period and its invoice is raised',
    EVENT_TYPES,
    [...WATCH, ...SUBSCRIBE],
  ),
  clocked('webhooks.events.subscription-payment-failed', '`subscription.payment_failed` is sent once per failed dunning attempt', EVENT_TYPES, [
    ...WATCH,
    ...SUBSCRIBE,
  ]),
  clocked('webhooks.events.subscription-past-due', '`subscription.past_due` is sent when a subscription becomes past due', EVENT_TYPES, [
    ...WATCH,
    ...SUBSCRIBE,
  ]),
  clocked('webhooks.events.subscription-unpaid', '`subscription.unpaid` is sent when dunning is exhausted', EVENT_TYPES, [...WATCH, ...SUBSCRIBE]),
  clocked(
    'webhooks.events.subscription-cancelled-twice',
    '`subscription.cancelled` is sent when cancellation is scheduled (status active, `cancelAtPeriodEnd` true, `cancelAt` = period end) and again when it takes effect (status `Canceled`, `canceledAt` set)',
    EVENT_TYPES,
    [...WATCH, ...SUBSCRIBE, 'cancelSubscription'],
  ),
  clocked(
    'webhooks.events.payout-completed',
    '`payout.completed` is sent when a payout to a bank account or wallet settles',
    EVENT_TYPES,
    [...WATCH, ...PAYOUT_CYCLE],
    {
      async run(ctx) {
        await withWatch(ctx, ['payout.completed'], async (w) => {
          const { payoutDay } = await payAndPayOut(ctx);
          const events = await waitForEvents(ctx, w, (e) => e.type === 'payout.completed' && e.data.object.createdAt.startsWith(payoutDay));
          const payout = events[0].data.object;
          assert.equal(payout.object, 'payout');
          assert.match(payout.id, /^po_/);
          assert.equal(payout.status, 'Completed');
          assert.equal(payout.failureReason, null);
          assert.ok(payout.amount >= 96.8, `the payout carries the payment's 96.80 net at least (got ${payout.amount})`);
          const transit = Date.parse(payout.arrivalDate) - Date.parse(payout.createdAt);
          assert.ok(transit >= 86_400_000 && transit < 86_400_000 + 60_000, `it arrives 24 hours after it leaves (${transit} ms)`);
        });
      },
    },
  ),
  clocked(
    'webhooks.events.payout-failed',
    '`payout.failed` is sent when a payout is rejected, cancelled or fails; its money is paid out again the next day',
    EVENT_TYPES,
    [...WATCH, ...PAYOUT_CYCLE, 'failNextTestPayout'],
    {
      async run(ctx) {
        await withWatch(ctx, ['payout.*'], async (w) => {
          await failNextPayout(ctx, 'The bank account is closed.');
          await payAndPayOut(ctx);
          // The next payout made fails: this one, or an earlier one carrying other clock scenarios' settled money.
          const [failed] = await waitForEvents(ctx, w, (e) => e.type === 'payout.failed');
          assert.equal(failed.data.object.status, 'Failed');
          assert.equal(failed.data.object.failureReason, 'The bank account is closed.');
          assert.equal(failed.data.object.arrivalDate, null);
          await drainPayouts(ctx);
          const later = await waitForEvents(
            ctx,
            w,
            (e) => e.type === 'payout.completed' && Date.parse(e.data.object.createdAt) > Date.parse(failed.data.object.createdAt),
          );
          const paidLater = later.reduce((sum, e) => sum + Math.round(e.data.object.amount * 100), 0);
          assert.ok(paidLater >= Math.round(failed.data.object.amount * 100), "the failed payout's money was paid out again later");
        });
      },
    },
  ),
  pending(
    'webhooks.events.dispute-opened',
    '`dispute.opened` is sent when a chargeback is raised (informational, no funds moved); no way to raise one is known yet',
    EVENT_TYPES,
    [...WATCH, ...PAY_CARD],
  ),
  pending('webhooks.events.dispute-updated', '`dispute.updated` is sent when a chargeback changes status or deadline, with `previousStatus`', EVENT_TYPES, [
    ...WATCH,
    ...PAY_CARD,
  ]),
  pending(
    'webhooks.events.dispute-closed',
    '`dispute.closed` is sent when a chargeback closes as Won, Lost or Accepted, with `invoiceReopened` true when the amount went back on the invoice as owed',
    EVENT_TYPES,
    [...WATCH, ...PAY_CARD],
  ),
  pending('webhooks.events.webhook-test', '`webhook.test` is sent for a test delivery triggered from the API', EVENT_TYPES, TEST_EVENT),
];

export const webhookScenarios: Scenario[] = [...selection, ...envelope, ...signature, ...delivery, ...testEvent, ...perSession, ...tied, ...eventTypes];
