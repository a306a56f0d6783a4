// Which events a configuration is sent (delivery selection, sandbox and live URLs) and what each event carries (the envelope).
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { advanceClock } from '../fixtures/clock.js';
import { call, expectError, expectStatus } from '../fixtures/http.js';
import { secretKey, tag } from '../fixtures/keys.js';
import { PAY_CARD, SESSION, SUBSCRIBE, WATCH } from '../fixtures/operations.js';
import { clocked, pending } from '../fixtures/scenario.js';
import { CREATION_RULES, ENVELOPE, EVENT_TYPES, SELECTION, SESSION_STATES, SUBSCRIPTION_STATES } from '../fixtures/sections.js';
import { deliveryLog, failingTestDelivery, newConfiguration, RETRY_DELAYS, sendTest, TEST_EVENT, waitForLogged } from '../fixtures/deliveries.js';
import { withWatch } from '../fixtures/events.js';
import { PAYOUT_CYCLE, payAndPayOut, payoutEvents } from '../fixtures/payouts.js';

export const selection: Scenario[] = [
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

export const envelope: Scenario[] = [
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
