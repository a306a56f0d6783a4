// What each event carries: the envelope's fields, `data.object`'s type by subject, the same id on
// every retry, and statuses in PascalCase.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { advanceClock } from '../fixtures/clock.js';
import { PAY_CARD, SUBSCRIBE, WATCH } from '../fixtures/operations.js';
import { clocked, scenario } from '../fixtures/scenario.js';
import { ENVELOPE, SESSION_STATES } from '../fixtures/sections.js';
import { deliveryLog, failingTestDelivery, newConfiguration, RETRY_DELAYS, sendTest, TEST_EVENT } from '../fixtures/deliveries.js';
import { retrieveSession } from '../fixtures/sessions.js';
import { paidAndCancelled, sessionEvent, subscriptionStory, watchWith } from './observe.js';

/** The `data.object.object` of each event family the document lists. */
const DISCRIMINATOR: Record<string, string> = {
  payment: 'payment',
  checkout: 'checkout_session',
  invoice: 'invoice',
  subscription: 'subscription',
  payout: 'payout',
  dispute: 'dispute',
  webhook: 'test',
};
const PASCAL = /^[A-Z][A-Za-z]*$/;

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
  scenario(
    'webhooks.envelope.data-object-discriminator',
    '`data.object.object` is `payment`, `checkout_session`, `invoice`, `subscription`, `payout`, `dispute` or `test` according to the subject',
    ENVELOPE,
    [...WATCH, ...SUBSCRIBE, 'sendWebhookTestEvent'],
    async (ctx) => {
      const { events } = await subscriptionStory(ctx, 'webhook discriminator');
      for (const e of events) {
        const expected = DISCRIMINATOR[e.type.split('.')[0]];
        if (expected) assert.equal(e.data.object.object, expected, `data.object.object of ${e.type} (${e.id})`);
      }
      const seen = new Set(events.map((e) => e.data.object.object));
      for (const object of ['payment', 'checkout_session', 'subscription', 'test']) assert.ok(seen.has(object), `an event about a ${object} was checked`);
    },
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
  scenario(
    'webhooks.envelope.statuses-pascal-case',
    'Statuses inside `data.object` are PascalCase (`Completed`, `Active`, `Canceled`)',
    ENVELOPE,
    [...WATCH, ...SUBSCRIBE, 'sendWebhookTestEvent', 'cancelSubscription'],
    async (ctx) => {
      const { events, session, subscriptionId } = await subscriptionStory(ctx, 'webhook pascal case', { cancelAtPeriodEnd: false });
      for (const e of events)
        for (const field of ['status', 'paymentStatus', 'previousStatus'])
          if (typeof e.data.object[field] === 'string') assert.match(e.data.object[field], PASCAL, `${field} of ${e.type} (${e.id})`);
      const about = (type: string) => events.filter((e) => e.type === type && (e.data.object.id === session.id || e.data.object.id === subscriptionId));
      assert.equal(about('checkout.session.completed')[0]?.data.object.status, 'Completed');
      assert.ok(
        events.some((e) => e.type.startsWith('subscription.') && e.data.object.id === subscriptionId && e.data.object.status === 'Active'),
        'a subscription event shows Active',
      );
      assert.equal(about('subscription.cancelled').at(-1)?.data.object.status, 'Canceled');
    },
  ),
  scenario(
    'webhooks.envelope.session-status-case-insensitive',
    "A session's status in webhooks (PascalCase) matches its REST status (snake_case) compared case-insensitively",
    SESSION_STATES,
    [...WATCH, ...PAY_CARD, 'cancelCheckoutSession', 'retrieveCheckoutSession'],
    async (ctx) => {
      const w = await watchWith(ctx, ['checkout.session.*']);
      for (const [s, type] of await paidAndCancelled(ctx)) {
        const object = await sessionEvent(ctx, w, s, type);
        const rest = (await retrieveSession(ctx, s.id)).status;
        assert.match(object.status, PASCAL, `${type} shows a PascalCase status`);
        assert.equal(object.status.toLowerCase(), rest.toLowerCase(), `${type}: ${object.status} in the webhook, ${rest} by retrieval`);
      }
    },
  ),
];
