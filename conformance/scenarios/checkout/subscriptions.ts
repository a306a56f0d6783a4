// Subscriptions: fields, the list and its filters, a subscription's invoices, the state table (one
// scenario per row) and renewal with the card on file.
import assert from 'node:assert/strict';
import type { ConformanceContext, Scenario } from '../../types.js';
import { call, envelopeData, expectEnvelopeError, expectError, expectStatus, rawFetch } from '../fixtures/http.js';
import { otherSecretKey, secretKey } from '../fixtures/keys.js';
import { SUBSCRIBE, SUBSCRIBE_TRIAL, WATCH } from '../fixtures/operations.js';
import { clocked, pending } from '../fixtures/scenario.js';
import { RENEWAL, SUBSCRIPTION_ENDPOINTS, SUBSCRIPTION_FIELDS, SUBSCRIPTION_INVOICE, SUBSCRIPTION_STATES } from '../fixtures/sections.js';
import { getSubscription, paidSubscription, subscriptionOf, subscriptionParts, trialSubscription } from '../fixtures/subscriptions.js';

/** One page of the subscription list (the envelope's `data`). */
const listSubscriptionsPage = async (ctx: ConformanceContext, query: Record<string, string | number>) =>
  envelopeData(await call(ctx, 'checkout', 'listSubscriptions', { method: 'GET', path: '/v1/subscriptions', key: secretKey(ctx), query }), 200, 'list subscriptions');
const SUBSCRIPTION_STATUSES = ['active', 'trialing', 'past_due', 'unpaid', 'paused', 'canceled', 'pending'];

export const subscriptions: Scenario[] = [
  {
    id: 'checkout.subscriptions.fields',
    title: 'A subscription answers id, object `subscription`, status, clientId, clientEmail, planId, planName, amount, currency, interval, intervalCount, period dates, trialEnd, cancelAtPeriodEnd, canceledAt, pausedAt, hasPaymentMethod, livemode and items',
    source: SUBSCRIPTION_FIELDS,
    requires: [...SUBSCRIBE_TRIAL],
    serverOnly: true,
    async run(ctx) {
      const { subscriptionId, plan, customer } = await trialSubscription(ctx, 'subscription fields');
      const sub = await subscriptionOf(ctx, subscriptionId);
      assert.equal(sub.id, subscriptionId);
      assert.equal(sub.object, 'subscription');
      assert.equal(sub.status, 'trialing', 'a free trial reads trialing');
      assert.equal(sub.clientId, customer.id);
      assert.equal(sub.clientEmail, customer.email);
      assert.equal(sub.planId, plan.id);
      assert.equal(sub.planName, plan.name);
      assert.equal(sub.amount, plan.amount);
      assert.equal(sub.currency, plan.currency);
      assert.equal(sub.interval, plan.interval);
      assert.equal(sub.intervalCount, plan.intervalCount);
      for (const f of ['startDate', 'currentPeriodStart', 'currentPeriodEnd', 'trialEnd']) assert.ok(!Number.isNaN(Date.parse(sub[f])), `${f} is a timestamp`);
      assert.equal(sub.cancelAtPeriodEnd, false);
      assert.equal(sub.canceledAt, null);
      assert.equal(sub.pausedAt, null);
      assert.equal(sub.hasPaymentMethod, false, 'a free trial has no card on file');
      assert.equal(sub.livemode, false);
      assert.ok(Array.isArray(sub.items) && sub.items.length === 1, 'one item');
      assert.equal(sub.items[0].planId, plan.id);
    },
  },
  pending('checkout.subscriptions.started-through-checkout-only', 'Subscriptions are started only through a checkout session with `paymentType` `subscription`, `subscriptionPlanId` and `clientId`', SUBSCRIPTION_ENDPOINTS, [...SUBSCRIBE]),
  {
    id: 'checkout.subscriptions.no-create-endpoint',
    title: 'There is no endpoint that creates a subscription directly: `POST /v1/subscriptions` is not an operation (404)',
    source: SUBSCRIPTION_ENDPOINTS,
    requires: [],
    serverOnly: true,
    async run(ctx) {
      const res = await rawFetch(ctx, 'POST', '/v1/subscriptions', { Authorization: `Bearer ${secretKey(ctx)}`, 'Content-Type': 'application/json' }, '{}');
      expectError(res, 404, 'not_found');
    },
  },
  {
    id: 'checkout.subscriptions.update-payment-method-not-available',
    title: '`/v1/subscriptions/{id}/update-payment-method` is not available (404); the card on file changes only in the customer portal',
    source: SUBSCRIPTION_ENDPOINTS,
    requires: [],
    serverOnly: true,
    async run(ctx) {
      for (const method of ['POST', 'GET', 'PUT']) {
        const res = await rawFetch(ctx, method, '/v1/subscriptions/1/update-payment-method', { Authorization: `Bearer ${secretKey(ctx)}` });
        expectError(res, 404, 'not_found');
      }
    },
  },
  {
    id: 'checkout.subscriptions.list-filters',
    title: 'The list filters by `clientId`, `status` and `planId` (subscriptions with an item on that plan)',
    source: SUBSCRIPTION_ENDPOINTS,
    requires: [...SUBSCRIBE_TRIAL, 'listSubscriptions'],
    serverOnly: true,
    async run(ctx) {
      const a = await trialSubscription(ctx, 'subscription filter a');
      const b = await trialSubscription(ctx, 'subscription filter b', 14, { plan: a.plan, customer: (await subscriptionParts(ctx, 'subscription filter b')).customer });
      const ids = (page: any) => page.data.map((x: any) => x.id);
      assert.deepEqual(ids(await listSubscriptionsPage(ctx, { clientId: a.customer.id })), [a.subscriptionId], 'clientId keeps that customer\'s subscriptions');
      assert.deepEqual(ids(await listSubscriptionsPage(ctx, { planId: a.plan.id, limit: 100 })), [b.subscriptionId, a.subscriptionId], 'planId keeps the subscriptions on that plan, newest first');
      assert.deepEqual(ids(await listSubscriptionsPage(ctx, { clientId: a.customer.id, status: 'trialing' })), [a.subscriptionId], 'status trialing keeps it');
      assert.deepEqual(ids(await listSubscriptionsPage(ctx, { clientId: a.customer.id, status: 'active' })), [], 'status active leaves a trial out');
    },
  },
  {
    id: 'checkout.subscriptions.list-paging',
    title: 'The list is newest first, `limit` 1-100 (default 25), `startingAfter` a subscription id (older items follow), `hasMore`',
    source: SUBSCRIPTION_ENDPOINTS,
    requires: [...SUBSCRIBE_TRIAL, 'listSubscriptions'],
    serverOnly: true,
    async run(ctx) {
      const parts = await subscriptionParts(ctx, 'subscription paging');
      const made: number[] = [];
      for (let i = 0; i < 3; i++) made.push((await trialSubscription(ctx, '', 7, parts)).subscriptionId);
      const first = await listSubscriptionsPage(ctx, { clientId: parts.customer.id, limit: 2 });
      assert.equal(first.object, 'list');
      assert.deepEqual(first.data.map((x: any) => x.id), [made[2], made[1]], 'newest first');
      assert.equal(first.hasMore, true, 'hasMore while older items follow');
      const next = await listSubscriptionsPage(ctx, { clientId: parts.customer.id, limit: 2, startingAfter: first.data[1].id });
      assert.deepEqual(next.data.map((x: any) => x.id), [made[0]], 'startingAfter gives the older items');
      assert.equal(next.hasMore, false);
      const all = await listSubscriptionsPage(ctx, { clientId: parts.customer.id });
      assert.equal(all.data.length, 3, 'the default limit holds all three');
      for (const limit of [0, 101]) {
        expectStatus(await call(ctx, 'checkout', 'listSubscriptions', { method: 'GET', path: '/v1/subscriptions', key: secretKey(ctx), query: { limit } }), 400, `limit ${limit}`);
      }
    },
  },
  {
    id: 'checkout.subscriptions.other-merchant-404',
    title: 'Another merchant\'s subscription answers 404',
    source: SUBSCRIPTION_ENDPOINTS,
    requires: [...SUBSCRIBE_TRIAL],
    serverOnly: true,
    async run(ctx) {
      const other = otherSecretKey(ctx);
      const { subscriptionId } = await trialSubscription(ctx, 'subscription other merchant');
      expectEnvelopeError(await getSubscription(ctx, subscriptionId, other), 404, 'not_found');
      expectEnvelopeError(await call(ctx, 'checkout', 'listSubscriptionInvoices', { method: 'GET', path: `/v1/subscriptions/${subscriptionId}/invoices`, key: other }), 404, 'not_found');
    },
  },
  {
    id: 'checkout.subscriptions.invoices-list',
    title: 'A subscription\'s invoices list newest first, up to 100, items {id, object `invoice`, invoiceNumber, status (`paid` shown), amount, amountPaid, currency, periodStart, periodEnd, dueDate}',
    source: SUBSCRIPTION_INVOICE,
    requires: [...SUBSCRIBE, 'listSubscriptionInvoices'],
    serverOnly: true,
    async run(ctx) {
      const { subscriptionId, plan } = await paidSubscription(ctx, 'subscription invoices');
      const sub = await subscriptionOf(ctx, subscriptionId);
      const page = envelopeData(await call(ctx, 'checkout', 'listSubscriptionInvoices', { method: 'GET', path: `/v1/subscriptions/${subscriptionId}/invoices`, key: secretKey(ctx), query: { limit: 100 } }), 200, 'list the subscription\'s invoices');
      assert.equal(page.object, 'list');
      assert.equal(page.data.length, 1, 'the first period\'s invoice');
      const invoice = page.data[0];
      assert.equal(invoice.object, 'invoice');
      assert.equal(typeof invoice.invoiceNumber, 'string');
      assert.equal(invoice.status, 'paid', 'the first invoice is paid');
      assert.equal(invoice.amount, plan.amount);
      assert.equal(invoice.amountPaid, plan.amount);
      assert.equal(invoice.currency, plan.currency);
      assert.equal(Date.parse(invoice.periodStart), Date.parse(sub.currentPeriodStart), 'periodStart is the current period\'s start');
      assert.equal(Date.parse(invoice.periodEnd), Date.parse(sub.currentPeriodEnd), 'periodEnd is the current period\'s end');
      assert.ok(!Number.isNaN(Date.parse(invoice.dueDate)), 'dueDate is a timestamp');
    },
  },
  pending('checkout.subscriptions.cancel-default-at-period-end', 'Cancel without a body defaults to `cancelAtPeriodEnd` true', SUBSCRIPTION_ENDPOINTS, [...SUBSCRIBE, 'cancelSubscription']),
  pending('checkout.subscriptions.pause-reason', 'Pause takes an optional `reason` and answers the subscription with status `paused`', SUBSCRIPTION_ENDPOINTS, [...SUBSCRIBE, 'pauseSubscription']),
  // State table, one per row.
  pending('checkout.subscription-states.pause-active', 'Any state but paused/canceled → pause → `paused`, `pausedAt` set, `subscription.paused` sent; there is no resume date', SUBSCRIPTION_STATES, [...SUBSCRIBE, 'pauseSubscription', ...WATCH]),
  pending('checkout.subscription-states.pause-paused-400', '`paused` → pause → 400, no event', SUBSCRIPTION_STATES, [...SUBSCRIBE, 'pauseSubscription', ...WATCH]),
  pending('checkout.subscription-states.pause-canceled-400', '`canceled` → pause → 400, no event', SUBSCRIPTION_STATES, [...SUBSCRIBE, 'cancelSubscription', 'pauseSubscription', ...WATCH]),
  pending('checkout.subscription-states.resume-paused', '`paused` → resume → reactivated, `subscription.resumed` sent', SUBSCRIPTION_STATES, [...SUBSCRIBE, 'pauseSubscription', 'resumeSubscription', ...WATCH]),
  pending('checkout.subscription-states.resume-not-paused-400', 'Not paused → resume → 400, no event', SUBSCRIPTION_STATES, [...SUBSCRIBE, 'resumeSubscription', ...WATCH]),
  clocked('checkout.subscription-states.cancel-at-period-end', 'Not canceled → cancel with `cancelAtPeriodEnd` true → stays active until period end with `cancelAt` = period end; `subscription.cancelled` now and again when it takes effect', SUBSCRIPTION_STATES, [...SUBSCRIBE, 'cancelSubscription', ...WATCH]),
  pending('checkout.subscription-states.cancel-now', 'Not canceled → cancel with `cancelAtPeriodEnd` false → `canceled`, `canceledAt` set, `subscription.cancelled`', SUBSCRIPTION_STATES, [...SUBSCRIBE, 'cancelSubscription', ...WATCH]),
  pending('checkout.subscription-states.cancel-canceled-noop', '`canceled` → cancel → no-op, no event', SUBSCRIPTION_STATES, [...SUBSCRIBE, 'cancelSubscription', ...WATCH]),
  pending('checkout.subscription-states.plan-change', 'Any → plan change (upgrade/downgrade) → new plan, `subscription.updated` (no API operation changes a plan; portal only)', SUBSCRIPTION_STATES, [...SUBSCRIBE, 'createPortalSession', ...WATCH]),
  clocked('checkout.subscription-states.trial-end-activates', '`trialing` → trial ends (card added) → `active`, `subscription.activated`', SUBSCRIPTION_STATES, [...SUBSCRIBE_TRIAL, ...WATCH]),
  pending('checkout.subscription-states.first-payment-activates', '`pending` → first payment → `active`, `subscription.activated`', SUBSCRIPTION_STATES, [...SUBSCRIBE, ...WATCH]),
  clocked('checkout.subscription-states.past-due-recovery-activates', '`past_due` → recovery payment → `active`, `subscription.activated`', SUBSCRIPTION_STATES, [...SUBSCRIBE, 'createPortalSession', ...WATCH]),
  clocked('checkout.subscription-states.renewal', '`active` → period rolls → new period, invoice raised, `subscription.renewed`', SUBSCRIPTION_STATES, [...SUBSCRIBE, 'listSubscriptionInvoices', ...WATCH]),
  clocked('checkout.subscription-states.payment-fails-past-due', 'Any → payment attempt fails → `past_due`, `subscription.payment_failed` per dunning attempt, `subscription.past_due`', SUBSCRIPTION_STATES, [...SUBSCRIBE, ...WATCH]),
  clocked('checkout.subscription-states.dunning-exhausted-unpaid', '`past_due` → dunning exhausted → `unpaid`, `subscription.unpaid`', SUBSCRIPTION_STATES, [...SUBSCRIBE, ...WATCH]),
  {
    id: 'checkout.subscription-states.status-values',
    title: 'Subscription statuses are `active`, `trialing`, `past_due`, `unpaid`, `paused`, `canceled`, `pending` in the REST API',
    source: SUBSCRIPTION_STATES,
    requires: [...SUBSCRIBE_TRIAL, 'listSubscriptions'],
    serverOnly: true,
    async run(ctx) {
      const { subscriptionId } = await trialSubscription(ctx, 'subscription status values');
      assert.equal((await subscriptionOf(ctx, subscriptionId)).status, 'trialing');
      for (const s of (await listSubscriptionsPage(ctx, { limit: 100 })).data) assert.ok(SUBSCRIPTION_STATUSES.includes(s.status), `status ${s.status} is one of ${SUBSCRIPTION_STATUSES.join(', ')}`);
    },
  },
  pending('checkout.subscription-states.refused-sends-no-event', 'A refused or no-change request sends no event', SUBSCRIPTION_STATES, [...SUBSCRIBE, 'pauseSubscription', 'resumeSubscription', 'cancelSubscription', ...WATCH]),
  pending('checkout.subscription-states.pause-no-renewal', 'No renewal is charged while paused', SUBSCRIPTION_STATES, [...SUBSCRIBE, 'pauseSubscription', 'listSubscriptionInvoices', 'advanceTestClock'], { needsClock: true }),
  // Renewal and card on file.
  {
    id: 'checkout.renewal.card-kept-on-subscription',
    title: 'A card paying the first invoice of a subscription is kept for renewals: the subscription has `hasPaymentMethod` true',
    source: RENEWAL,
    requires: [...SUBSCRIBE],
    serverOnly: true,
    async run(ctx) {
      const { subscriptionId } = await paidSubscription(ctx, 'subscription card kept');
      const sub = await subscriptionOf(ctx, subscriptionId);
      assert.equal(sub.status, 'active', 'the first payment makes it active');
      assert.equal(sub.hasPaymentMethod, true, 'the paying card is on file');
      assert.equal(sub.trialEnd, null, 'no trial');
    },
  },
  pending('checkout.renewal.card-kept-on-customer', 'The card is attached to the customer if they have none yet (`hasPaymentMethod` becomes true), and not when they already have one', RENEWAL, [...SUBSCRIBE, 'retrieveCustomer', 'listSavedCards']),
  pending('checkout.renewal.customer-told-beforehand', 'The checkout tells the customer beforehand that the card is kept (hosted page of a subscription session)', RENEWAL, [...SUBSCRIBE_TRIAL]),
  clocked('checkout.renewal.merchant-initiated', 'Renewals are charged automatically to the card on file (merchant-initiated): the renewal invoice is paid without the customer', RENEWAL, [...SUBSCRIBE, 'listSubscriptionInvoices']),
  pending('checkout.renewal.free-trial-no-card', 'A subscription starting on a free trial keeps no card at checkout (`hasPaymentMethod` false); the customer adds one in the portal', RENEWAL, [...SUBSCRIBE_TRIAL, 'retrieveCustomer', 'createPortalSession']),
];
