// What the subject of an event carries (checkout-billing-api.md › Events › Envelope): the session's metadata
// on its payments and its own events, the `checkout_session` and `subscription` objects, and refunds.
import assert from 'node:assert/strict';
import type { ConformanceContext, Scenario } from '../../types.js';
import { call, expectStatus } from '../fixtures/http.js';
import { emailFor, publishableKey, tag } from '../fixtures/keys.js';
import { PAY_CARD, SESSION, SUBSCRIBE, WATCH } from '../fixtures/operations.js';
import { scenario } from '../fixtures/scenario.js';
import { CREATION_RULES, ENVELOPE, SUBSCRIPTION_STATES } from '../fixtures/sections.js';
import { cancelSession, confirmWith, newSession, payByCard, refundSession, retrieveSession, SANDBOX_CARD } from '../fixtures/sessions.js';
import { paidSubscription, subscriptionAction, subscriptionOf } from '../fixtures/subscriptions.js';
import { aboutSession, onlyOf, paidAndCancelled, paidSession, sessionEvent, settledEvents, waitForTypes, watchWith } from './observe.js';

/** Sandbox card declined at once for insufficient funds. */
const DECLINED = '4000000000009995';

const SESSION_KEYS = [
  'object',
  'id',
  'sessionId',
  'status',
  'paymentStatus',
  'amount',
  'currency',
  'paymentId',
  'paymentReferenceNumber',
  'customerEmail',
  'customerFirstName',
  'customerLastName',
  'customerPhone',
  'notifyCustomer',
  'sendReceipt',
  'invoiceId',
  'invoiceReference',
  'isLive',
  'metadata',
  'createdAt',
  'refund',
];
const SUBSCRIPTION_KEYS = [
  'object',
  'id',
  'clientId',
  'clientEmail',
  'status',
  'reason',
  'startDate',
  'currentPeriodStart',
  'currentPeriodEnd',
  'cancelAtPeriodEnd',
  'cancelAt',
  'items',
  'isLive',
  'createdAt',
];
const ITEM_KEYS = ['id', 'planId', 'planName', 'quantity', 'amount', 'isMetered'];

const hasKeys = (object: any, keys: string[], what: string) => {
  const missing = keys.filter((k) => !(k in object));
  assert.deepEqual(missing, [], `${what} lacks ${missing.join(', ')}`);
};

/** The payer fields and metadata of a session, tagged with the run. */
const payer = (ctx: ConformanceContext) => ({
  customerEmail: emailFor(ctx, 'webhook-payer'),
  customerFirstName: 'Ada',
  customerLastName: `Payer ${tag(ctx)}`,
  customerPhone: '+15555550123',
  metadata: { orderId: `order-${tag(ctx)}`, conformanceRun: ctx.runId },
});

/** A card payment declined on the session (the session stays open). */
async function declineOn(ctx: ConformanceContext, s: { id: string; clientSecret: string }): Promise<void> {
  const pm = await call(ctx, 'checkout', 'tokenizeCard', {
    method: 'POST',
    path: `/v1/checkout-sessions/${s.id}/tokenize`,
    key: publishableKey(ctx),
    clientSecret: s.clientSecret,
    body: { ...SANDBOX_CARD, cardNumber: DECLINED },
  });
  expectStatus(pm, 201, 'tokenize a card that is declined');
  const res = await confirmWith(ctx, s, pm.json.id);
  assert.ok(res.status >= 400, `a declined card's confirm fails (got ${res.status})`);
}

/** A paid subscription watched from its start; answers what `paidSubscription` does and the watch. */
async function watchedSubscription(ctx: ConformanceContext, label: string) {
  const w = await watchWith(ctx, ['subscription.*']);
  return { w, ...(await paidSubscription(ctx, label)) };
}
const aboutSubscription = (id: number) => (e: any) => e.type.startsWith('subscription.') && e.data?.object?.id === id;

export const sessionObjects: Scenario[] = [
  scenario(
    'webhooks.envelope.metadata-on-payments',
    "Payments made through a session carry the session's `metadata`, so `payment.failed` and `payment.refunded` can be tied to an order",
    ENVELOPE,
    [...WATCH, ...PAY_CARD, 'refundCheckoutSession'],
    async (ctx) => {
      const w = await watchWith(ctx, ['payment.*']);
      const { metadata } = payer(ctx);
      const s = await newSession(ctx, { metadata });
      await declineOn(ctx, s);
      await payByCard(ctx, s);
      expectStatus(await refundSession(ctx, s), 200, 'refund the payment');
      const events = await waitForTypes(ctx, w, aboutSession(s.id), ['payment.failed', 'payment.succeeded', 'payment.refunded'], 'the payments of the session');
      for (const e of events) assert.deepEqual(e.data.object.metadata, metadata, `${e.type} carries the session's metadata`);
    },
  ),
  scenario(
    'webhooks.envelope.metadata-on-session-events',
    "The session's `metadata` is copied to its `checkout.session.*` events",
    ENVELOPE,
    [...WATCH, ...PAY_CARD, 'cancelCheckoutSession'],
    async (ctx) => {
      const w = await watchWith(ctx, ['checkout.session.*']);
      const { metadata } = payer(ctx);
      for (const [s, type] of await paidAndCancelled(ctx, { metadata }))
        assert.deepEqual((await sessionEvent(ctx, w, s, type)).metadata, metadata, `${type} carries the session's metadata`);
    },
  ),
  scenario(
    'webhooks.envelope.checkout-session-object',
    'The `checkout_session` object carries object, id, sessionId, status, paymentStatus, amount, currency, paymentId, paymentReferenceNumber, payer fields, notifyCustomer, sendReceipt, invoiceId, invoiceReference, isLive, metadata, createdAt and the `refund` object',
    ENVELOPE,
    [...WATCH, ...PAY_CARD],
    async (ctx) => {
      const w = await watchWith(ctx, ['checkout.session.completed', 'payment.succeeded']);
      const fields = payer(ctx);
      const s = await paidSession(ctx, fields);
      const events = await waitForTypes(ctx, w, aboutSession(s.id), ['checkout.session.completed', 'payment.succeeded'], 'the paid session');
      const o = onlyOf(events, 'checkout.session.completed');
      const payment = onlyOf(events, 'payment.succeeded');
      hasKeys(o, SESSION_KEYS, 'the checkout_session object');
      hasKeys(o.refund, ['refundable', 'reason', 'message', 'manualRefundRequired', 'lastAttempt'], 'its refund object');
      assert.equal(o.object, 'checkout_session');
      assert.equal(o.id, s.id);
      assert.equal(o.sessionId, s.id);
      assert.equal(o.status, 'Completed');
      assert.equal(o.paymentStatus, 'Paid');
      assert.equal(o.amount, 12.5);
      assert.equal(o.currency, 'USD');
      assert.equal(o.paymentId, payment.id, 'paymentId is the payment of payment.succeeded');
      assert.equal(o.paymentReferenceNumber, payment.referenceNumber);
      for (const k of ['customerEmail', 'customerFirstName', 'customerLastName', 'customerPhone'] as const) assert.equal(o[k], fields[k], k);
      assert.equal(typeof o.notifyCustomer, 'boolean');
      assert.equal(typeof o.sendReceipt, 'boolean');
      assert.equal(o.isLive, false);
      assert.deepEqual(o.metadata, fields.metadata);
      assert.equal(o.createdAt, s.createdAt);
    },
  ),
  scenario(
    'webhooks.envelope.payer-details-in-session-events',
    'Payer details of a session appear in its `checkout.session.*` webhooks',
    CREATION_RULES,
    [...WATCH, SESSION, 'cancelCheckoutSession'],
    async (ctx) => {
      const w = await watchWith(ctx, ['checkout.session.*']);
      const fields = payer(ctx);
      const s = await newSession(ctx, fields);
      expectStatus(await cancelSession(ctx, s.id), 204, 'cancel the session');
      const o = onlyOf(await waitForTypes(ctx, w, aboutSession(s.id), ['checkout.session.cancelled'], 'the cancelled session'), 'checkout.session.cancelled');
      for (const k of ['customerEmail', 'customerFirstName', 'customerLastName', 'customerPhone'] as const) assert.equal(o[k], fields[k], k);
    },
  ),
  scenario(
    'webhooks.envelope.refunded-amounts',
    '`payment.refunded` carries `refundAmount` (this refund) and `refundedAmount` (all so far)',
    ENVELOPE,
    [...WATCH, ...PAY_CARD, 'refundCheckoutSession'],
    async (ctx) => {
      const w = await watchWith(ctx, ['payment.refunded']);
      const s = await paidSession(ctx);
      expectStatus(await refundSession(ctx, s, { amount: 5 }), 200, 'refund 5.00');
      expectStatus(await refundSession(ctx, s, { amount: 7.5 }), 200, 'refund the other 7.50');
      const match = (e: any) => aboutSession(s.id)(e) && e.data.object.refundedAmount === 12.5;
      await waitForTypes(ctx, w, match, ['payment.refunded'], 'the second refund');
      const refunds = (await settledEvents(ctx, w, aboutSession(s.id))).map((e) => [e.data.object.refundAmount, e.data.object.refundedAmount]);
      assert.deepEqual(refunds, [
        [5, 5],
        [7.5, 12.5],
      ]);
    },
  ),
  scenario(
    'webhooks.envelope.refund-object-in-session-events',
    '`checkout.session.*` webhooks carry the same `refund` object as retrieval',
    ENVELOPE,
    [...WATCH, ...PAY_CARD, 'cancelCheckoutSession', 'retrieveCheckoutSession'],
    async (ctx) => {
      const w = await watchWith(ctx, ['checkout.session.*']);
      for (const [s, type] of await paidAndCancelled(ctx)) {
        const o = await sessionEvent(ctx, w, s, type);
        assert.deepEqual(o.refund, (await retrieveSession(ctx, s.id)).refund, `${type} carries the refund object retrieval shows`);
      }
    },
  ),
];

export const subscriptionObjects: Scenario[] = [
  scenario(
    'webhooks.envelope.subscription-object',
    'The `subscription` object carries object, id, clientId, clientEmail, status, reason, startDate, currentPeriodStart, currentPeriodEnd, cancelAtPeriodEnd, cancelAt, items (id, planId, planName, quantity, amount, isMetered), isLive and createdAt',
    ENVELOPE,
    [...WATCH, ...SUBSCRIBE],
    async (ctx) => {
      const { w, subscriptionId, plan, customer } = await watchedSubscription(ctx, 'webhook subscription object');
      const events = await waitForTypes(ctx, w, aboutSubscription(subscriptionId), ['subscription.created'], 'the new subscription');
      for (const { type, data } of events) {
        const o = data.object;
        hasKeys(o, SUBSCRIPTION_KEYS, `the subscription object of ${type}`);
        assert.equal(o.object, 'subscription');
        assert.equal(o.clientId, customer.id);
        assert.equal(o.clientEmail, customer.email);
        assert.equal(o.isLive, false);
        assert.equal(o.cancelAtPeriodEnd, false);
        assert.equal(o.items.length, 1, 'one item');
        hasKeys(o.items[0], ITEM_KEYS, 'its item');
        assert.equal(o.items[0].planId, plan.id);
        assert.equal(o.items[0].planName, plan.name);
        assert.equal(o.items[0].isMetered, false);
      }
    },
  ),
  scenario(
    'webhooks.envelope.subscription-transition-previous-status',
    'Subscription status transitions add `previousStatus` and `reason`',
    ENVELOPE,
    [...WATCH, ...SUBSCRIBE, 'pauseSubscription', 'resumeSubscription'],
    async (ctx) => {
      const { w, subscriptionId } = await watchedSubscription(ctx, 'webhook previous status');
      const reason = `conformance pause ${tag(ctx)}`;
      expectStatus(await subscriptionAction(ctx, subscriptionId, 'pause', { reason }), 200, 'pause');
      expectStatus(await subscriptionAction(ctx, subscriptionId, 'resume'), 200, 'resume');
      const events = await waitForTypes(ctx, w, aboutSubscription(subscriptionId), ['subscription.paused', 'subscription.resumed'], 'pause and resume');
      const paused = onlyOf(events, 'subscription.paused');
      assert.deepEqual([paused.previousStatus, paused.status, paused.reason], ['Active', 'Paused', reason], 'paused: previousStatus, status, reason');
      const resumed = onlyOf(events, 'subscription.resumed');
      assert.deepEqual([resumed.previousStatus, resumed.status], ['Paused', 'Active'], 'resumed: previousStatus, status');
      assert.ok('reason' in resumed, 'resumed carries reason');
    },
  ),
  scenario(
    'webhooks.envelope.subscription-whole-object-once',
    'Every `subscription.*` event carries the whole subscription after the change, once per change, however it was made',
    SUBSCRIPTION_STATES,
    [...WATCH, ...SUBSCRIBE, 'pauseSubscription', 'resumeSubscription'],
    async (ctx) => {
      const { w, subscriptionId } = await watchedSubscription(ctx, 'webhook whole object');
      expectStatus(await subscriptionAction(ctx, subscriptionId, 'pause'), 200, 'pause');
      const afterPause = await subscriptionOf(ctx, subscriptionId);
      expectStatus(await subscriptionAction(ctx, subscriptionId, 'resume'), 200, 'resume');
      const afterResume = await subscriptionOf(ctx, subscriptionId);
      await waitForTypes(ctx, w, aboutSubscription(subscriptionId), ['subscription.created', 'subscription.paused', 'subscription.resumed'], 'the changes');
      const events = await settledEvents(ctx, w, aboutSubscription(subscriptionId));
      for (const [type, rest] of [
        ['subscription.paused', afterPause],
        ['subscription.resumed', afterResume],
      ] as const) {
        const o = onlyOf(events, type);
        hasKeys(o, SUBSCRIPTION_KEYS, `the subscription of ${type}`);
        assert.equal(o.status.toLowerCase(), rest.status.toLowerCase(), `${type} shows the status after the change`);
        assert.equal(Date.parse(o.currentPeriodEnd), Date.parse(rest.currentPeriodEnd), `${type}: currentPeriodEnd`);
        assert.equal(o.cancelAtPeriodEnd, rest.cancelAtPeriodEnd, `${type}: cancelAtPeriodEnd`);
        assert.equal(o.items.length, rest.items.length, `${type}: every item`);
      }
      assert.equal(events.filter((e) => e.type === 'subscription.created').length, 1, 'one subscription.created');
    },
  ),
];
