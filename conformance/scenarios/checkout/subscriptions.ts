// Subscriptions as a resource: fields, the list and its filters, another merchant's 404, a subscription's
// invoices, and the cancel and pause requests' options. The state table is in subscription-states.ts and
// subscription-billing-states.ts, renewal in renewal.ts, plan changes in plan-changes.ts.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { sameInstant } from '../fixtures/clock.js';
import { waitForEvent, withWatch } from '../fixtures/events.js';
import { call, envelopeData, expectEnvelopeError, expectError, expectStatus, rawFetch } from '../fixtures/http.js';
import { otherSecretKey, secretKey } from '../fixtures/keys.js';
import { SUBSCRIBE, SUBSCRIBE_TRIAL, WATCH } from '../fixtures/operations.js';
import { idsOf } from '../fixtures/catalog.js';
import { clocked } from '../fixtures/scenario.js';
import { payByCard, postSession, retrieveSession } from '../fixtures/sessions.js';
import { SUBSCRIPTION_ENDPOINTS, SUBSCRIPTION_FIELDS, SUBSCRIPTION_INVOICE } from '../fixtures/sections.js';
import {
  advancePast,
  dailySubscription,
  getSubscription,
  listSubscriptionsPage,
  paidSubscription,
  subscriptionAction,
  subscriptionOf,
  subscriptionParts,
  trialSubscription,
} from '../fixtures/subscriptions.js';

export const subscriptions: Scenario[] = [
  {
    id: 'checkout.subscriptions.fields',
    title:
      'A subscription answers id, object `subscription`, status, clientId, clientEmail, planId, planName, amount, currency, interval, intervalCount, period dates, trialEnd, cancelAtPeriodEnd, canceledAt, pausedAt, hasPaymentMethod, livemode and items',
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
  {
    id: 'checkout.subscriptions.started-through-checkout-only',
    title: 'Subscriptions are started only through a checkout session with `paymentType` `subscription`, `subscriptionPlanId` and `clientId`',
    source: SUBSCRIPTION_ENDPOINTS,
    requires: [...SUBSCRIBE, 'listSubscriptions'],
    serverOnly: true,
    async run(ctx) {
      const parts = await subscriptionParts(ctx, 'through checkout only');
      const ofCustomer = async () => idsOf(await listSubscriptionsPage(ctx, { clientId: parts.customer.id }));
      // A one-time session naming a plan and the customer starts nothing, whether refused or paid.
      const oneTime = await postSession(ctx, { subscriptionPlanId: parts.plan.id, clientId: parts.customer.id });
      if (oneTime.status === 201) {
        await payByCard(ctx, oneTime.json);
        assert.equal((await retrieveSession(ctx, oneTime.json.id)).subscriptionId ?? null, null, 'a paid one-time session has no subscription');
      } else expectError(oneTime, 400, 'invalid_request');
      assert.deepEqual(await ofCustomer(), [], 'no subscription started outside a subscription session');
      // The subscription session starts exactly one, tied to the session, on that plan for that customer.
      const { subscriptionId, session } = await paidSubscription(ctx, '', parts);
      assert.deepEqual(await ofCustomer(), [subscriptionId], 'the subscription session started one subscription');
      const sub = await subscriptionOf(ctx, subscriptionId);
      assert.deepEqual([sub.clientId, sub.planId], [parts.customer.id, parts.plan.id], "for the session's customer and plan");
      assert.equal((await retrieveSession(ctx, session.id)).subscriptionId, subscriptionId, 'the session names it');
    },
  },
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
      const b = await trialSubscription(ctx, 'subscription filter b', 14, {
        plan: a.plan,
        customer: (await subscriptionParts(ctx, 'subscription filter b')).customer,
      });
      const ids = (page: any) => page.data.map((x: any) => x.id);
      assert.deepEqual(ids(await listSubscriptionsPage(ctx, { clientId: a.customer.id })), [a.subscriptionId], "clientId keeps that customer's subscriptions");
      assert.deepEqual(
        ids(await listSubscriptionsPage(ctx, { planId: a.plan.id, limit: 100 })),
        [b.subscriptionId, a.subscriptionId],
        'planId keeps the subscriptions on that plan, newest first',
      );
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
      assert.deepEqual(
        first.data.map((x: any) => x.id),
        [made[2], made[1]],
        'newest first',
      );
      assert.equal(first.hasMore, true, 'hasMore while older items follow');
      const next = await listSubscriptionsPage(ctx, { clientId: parts.customer.id, limit: 2, startingAfter: first.data[1].id });
      assert.deepEqual(
        next.data.map((x: any) => x.id),
        [made[0]],
        'startingAfter gives the older items',
      );
      assert.equal(next.hasMore, false);
      const all = await listSubscriptionsPage(ctx, { clientId: parts.customer.id });
      assert.equal(all.data.length, 3, 'the default limit holds all three');
      for (const limit of [0, 101]) {
        expectStatus(
          await call(ctx, 'checkout', 'listSubscriptions', { method: 'GET', path: '/v1/subscriptions', key: secretKey(ctx), query: { limit } }),
          400,
          `limit ${limit}`,
        );
      }
    },
  },
  {
    id: 'checkout.subscriptions.other-merchant-404',
    title: "Another merchant's subscription answers 404",
    source: SUBSCRIPTION_ENDPOINTS,
    requires: [...SUBSCRIBE_TRIAL],
    serverOnly: true,
    async run(ctx) {
      const other = await otherSecretKey(ctx);
      const { subscriptionId } = await trialSubscription(ctx, 'subscription other merchant');
      expectEnvelopeError(await getSubscription(ctx, subscriptionId, other), 404, 'not_found');
      expectEnvelopeError(
        await call(ctx, 'checkout', 'listSubscriptionInvoices', { method: 'GET', path: `/v1/subscriptions/${subscriptionId}/invoices`, key: other }),
        404,
        'not_found',
      );
    },
  },
  {
    id: 'checkout.subscriptions.invoices-list',
    title:
      "A subscription's invoices list newest first, up to 100, items {id, object `invoice`, invoiceNumber, status (`paid` shown), amount, amountPaid, currency, periodStart, periodEnd, dueDate}",
    source: SUBSCRIPTION_INVOICE,
    requires: [...SUBSCRIBE, 'listSubscriptionInvoices'],
    serverOnly: true,
    async run(ctx) {
      const { subscriptionId, plan } = await paidSubscription(ctx, 'subscription invoices');
      const sub = await subscriptionOf(ctx, subscriptionId);
      const page = envelopeData(
        await call(ctx, 'checkout', 'listSubscriptionInvoices', {
          method: 'GET',
          path: `/v1/subscriptions/${subscriptionId}/invoices`,
          key: secretKey(ctx),
          query: { limit: 100 },
        }),
        200,
        "list the subscription's invoices",
      );
      assert.equal(page.object, 'list');
      assert.equal(page.data.length, 1, "the first period's invoice");
      const invoice = page.data[0];
      assert.equal(invoice.object, 'invoice');
      assert.equal(typeof invoice.invoiceNumber, 'string');
      assert.equal(invoice.status, 'paid', 'the first invoice is paid');
      assert.equal(invoice.amount, plan.amount);
      assert.equal(invoice.amountPaid, plan.amount);
      assert.equal(invoice.currency, plan.currency);
      assert.equal(Date.parse(invoice.periodStart), Date.parse(sub.currentPeriodStart), "periodStart is the current period's start");
      assert.equal(Date.parse(invoice.periodEnd), Date.parse(sub.currentPeriodEnd), "periodEnd is the current period's end");
      assert.ok(!Number.isNaN(Date.parse(invoice.dueDate)), 'dueDate is a timestamp');
    },
  },
  clocked(
    'checkout.subscriptions.invoices-default-100',
    "A subscription's invoice list answers up to 100 by default (not the lists' 25): 26 daily periods list in one page without `limit`",
    SUBSCRIPTION_INVOICE,
    [...SUBSCRIBE, 'listSubscriptionInvoices'],
    {
      async run(ctx) {
        const { subscriptionId } = await dailySubscription(ctx, 'invoices default 100');
        const first = await subscriptionOf(ctx, subscriptionId);
        await advancePast(ctx, first.currentPeriodEnd, 24 * 86_400 + 60);
        const page = envelopeData(
          await call(ctx, 'checkout', 'listSubscriptionInvoices', { method: 'GET', path: `/v1/subscriptions/${subscriptionId}/invoices`, key: secretKey(ctx) }),
          200,
          "list the subscription's invoices without limit",
        );
        assert.equal(page.data.length, 26, 'the first invoice and 25 renewals, all on the first page');
        assert.equal(page.hasMore, false);
        const starts = page.data.map((i: any) => Date.parse(i.periodStart));
        assert.deepEqual(
          starts,
          [...starts].sort((a, b) => b - a),
          'newest first',
        );
      },
    },
  ),
  {
    id: 'checkout.subscriptions.cancel-default-at-period-end',
    title: 'Cancel without a body defaults to `cancelAtPeriodEnd` true',
    source: SUBSCRIPTION_ENDPOINTS,
    requires: [...SUBSCRIBE, 'cancelSubscription'],
    serverOnly: true,
    async run(ctx) {
      const { subscriptionId } = await paidSubscription(ctx, 'cancel default');
      const before = await subscriptionOf(ctx, subscriptionId);
      const s = envelopeData(await subscriptionAction(ctx, subscriptionId, 'cancel'), 200, 'cancel with no body');
      assert.equal(s.cancelAtPeriodEnd, true, 'no body schedules the cancellation for the period end');
      assert.equal(s.status, 'active', 'it stays active until the period ends');
      assert.equal(sameInstant(s.cancelAt, before.currentPeriodEnd), true, `cancelAt ${s.cancelAt} is the period end ${before.currentPeriodEnd}`);
      assert.equal(s.canceledAt, null, 'not canceled yet');
      assert.equal(s.currentPeriodEnd, before.currentPeriodEnd, 'the period does not move');
    },
  },
  {
    id: 'checkout.subscriptions.pause-reason',
    title: 'Pause takes an optional `reason` and answers the subscription with status `paused`',
    source: SUBSCRIPTION_ENDPOINTS,
    requires: [...SUBSCRIBE, 'pauseSubscription', ...WATCH],
    serverOnly: true,
    async run(ctx) {
      await withWatch(ctx, ['subscription.paused'], async (w) => {
        const { subscriptionId } = await paidSubscription(ctx, 'pause reason');
        const s = envelopeData(await subscriptionAction(ctx, subscriptionId, 'pause', { reason: 'customer on vacation' }), 200, 'pause with a reason');
        assert.equal(s.id, subscriptionId);
        assert.equal(s.status, 'paused');
        assert.ok(!Number.isNaN(Date.parse(s.pausedAt)), `pausedAt is a timestamp, got ${s.pausedAt}`);
        const [paused] = await waitForEvent(ctx, w, subscriptionId, 'subscription.paused');
        assert.equal(paused.reason, 'customer on vacation', 'subscription.paused carries the reason given');
      });
    },
  },
];
