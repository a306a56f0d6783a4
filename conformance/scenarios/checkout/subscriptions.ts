// Subscriptions: fields, the list and its filters, a subscription's invoices, the state table (one
// scenario per row), renewal with the card on file, and plan changes with their proration. Events
// are watched through a webhook configuration's delivery log (fixtures/events.ts). Scenarios that
// need time to pass use plans billed every day, so each moves the sandbox clock about a day (the
// dunning one eight days), never a month.
import assert from 'node:assert/strict';
import type { ConformanceContext, Scenario } from '../../types.js';
import { newPlan } from '../fixtures/catalog.js';
import { advanceClock } from '../fixtures/clock.js';
import { ofType, settledSubscriptionEvents, subscriptionEvents, waitForEvent, waitForSubscriptionEvents, withWatch } from '../fixtures/events.js';
import { call, envelopeData, expectEnvelopeError, expectError, expectStatus, rawFetch } from '../fixtures/http.js';
import { otherSecretKey, secretKey } from '../fixtures/keys.js';
import { SUBSCRIBE, SUBSCRIBE_TRIAL, WATCH } from '../fixtures/operations.js';
import { clocked, pending, pendingBecause } from '../fixtures/scenario.js';
import { RENEWAL, SUBSCRIPTION_ENDPOINTS, SUBSCRIPTION_FIELDS, SUBSCRIPTION_INVOICE, SUBSCRIPTION_STATES } from '../fixtures/sections.js';
import { newSession } from '../fixtures/sessions.js';
import {
  advancePast,
  changePlan,
  DAILY,
  dailySubscription,
  DECLINES_LATER,
  getSubscription,
  INSUFFICIENT_FUNDS_LATER,
  paidSubscription,
  payWithCard,
  previewPlanChange,
  subscriptionAction,
  subscriptionInvoices,
  subscriptionOf,
  subscriptionParts,
  trialSubscription,
} from '../fixtures/subscriptions.js';

/** One page of the subscription list (the envelope's `data`). */
const listSubscriptionsPage = async (ctx: ConformanceContext, query: Record<string, string | number>) =>
  envelopeData(
    await call(ctx, 'checkout', 'listSubscriptions', { method: 'GET', path: '/v1/subscriptions', key: secretKey(ctx), query }),
    200,
    'list subscriptions',
  );
const SUBSCRIPTION_STATUSES = ['active', 'trialing', 'past_due', 'unpaid', 'paused', 'canceled', 'pending'];

const subscriptionScenarios: Scenario[] = [
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
  pending(
    'checkout.subscriptions.started-through-checkout-only',
    'Subscriptions are started only through a checkout session with `paymentType` `subscription`, `subscriptionPlanId` and `clientId`',
    SUBSCRIPTION_ENDPOINTS,
    [...SUBSCRIBE],
  ),
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
      const other = otherSecretKey(ctx);
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
  // State table, one per row.
  {
    id: 'checkout.subscription-states.pause-active',
    title: 'Any state but paused/canceled → pause → `paused`, `pausedAt` set, `subscription.paused` sent; there is no resume date',
    source: SUBSCRIPTION_STATES,
    requires: [...SUBSCRIBE, 'pauseSubscription', ...WATCH],
    serverOnly: true,
    async run(ctx) {
      await withWatch(ctx, ['subscription.*'], async (w) => {
        const { subscriptionId } = await paidSubscription(ctx, 'pause active');
        const s = envelopeData(await subscriptionAction(ctx, subscriptionId, 'pause'), 200, 'pause an active subscription (no body)');
        assert.equal(s.status, 'paused');
        assert.ok(!Number.isNaN(Date.parse(s.pausedAt)), `pausedAt is set, got ${s.pausedAt}`);
        const resumeDate = Object.keys(s).filter((k) => /resume/i.test(k));
        assert.deepEqual(resumeDate, [], 'there is no resume date');
        assert.equal((await subscriptionOf(ctx, subscriptionId)).status, 'paused', 'it reads paused');
        const [paused] = await waitForEvent(ctx, w, subscriptionId, 'subscription.paused');
        assert.equal(paused.status, 'Paused');
        assert.equal(paused.previousStatus, 'Active', 'a transition carries previousStatus');
      });
    },
  },
  {
    id: 'checkout.subscription-states.pause-paused-400',
    title: '`paused` → pause → 400, no event',
    source: SUBSCRIPTION_STATES,
    requires: [...SUBSCRIBE, 'pauseSubscription', ...WATCH],
    serverOnly: true,
    async run(ctx) {
      await withWatch(ctx, ['subscription.*'], async (w) => {
        const { subscriptionId } = await paidSubscription(ctx, 'pause paused');
        expectStatus(await subscriptionAction(ctx, subscriptionId, 'pause'), 200, 'pause');
        await waitForEvent(ctx, w, subscriptionId, 'subscription.paused');
        const again = await subscriptionAction(ctx, subscriptionId, 'pause', { reason: 'again' });
        expectEnvelopeError(again, 400, 'invalid_request', 'subscription_not_pausable');
        assert.equal((await subscriptionOf(ctx, subscriptionId)).status, 'paused', 'still paused');
        assert.equal(ofType(await settledSubscriptionEvents(ctx, w, subscriptionId), 'subscription.paused').length, 1, 'the refused pause sent no event');
      });
    },
  },
  {
    id: 'checkout.subscription-states.pause-canceled-400',
    title: '`canceled` → pause → 400, no event',
    source: SUBSCRIPTION_STATES,
    requires: [...SUBSCRIBE, 'cancelSubscription', 'pauseSubscription', ...WATCH],
    serverOnly: true,
    async run(ctx) {
      await withWatch(ctx, ['subscription.*'], async (w) => {
        const { subscriptionId } = await paidSubscription(ctx, 'pause canceled');
        expectStatus(await subscriptionAction(ctx, subscriptionId, 'cancel', { cancelAtPeriodEnd: false }), 200, 'cancel now');
        await waitForEvent(ctx, w, subscriptionId, 'subscription.cancelled');
        const before = (await subscriptionEvents(ctx, w, subscriptionId)).length;
        expectEnvelopeError(await subscriptionAction(ctx, subscriptionId, 'pause'), 400, 'invalid_request', 'subscription_not_pausable');
        assert.equal((await subscriptionOf(ctx, subscriptionId)).status, 'canceled', 'still canceled');
        assert.equal((await settledSubscriptionEvents(ctx, w, subscriptionId)).length, before, 'the refused pause sent no event');
      });
    },
  },
  {
    id: 'checkout.subscription-states.resume-paused',
    title: '`paused` → resume → reactivated, `subscription.resumed` sent',
    source: SUBSCRIPTION_STATES,
    requires: [...SUBSCRIBE, 'pauseSubscription', 'resumeSubscription', ...WATCH],
    serverOnly: true,
    async run(ctx) {
      await withWatch(ctx, ['subscription.*'], async (w) => {
        const { subscriptionId } = await paidSubscription(ctx, 'resume paused');
        const before = await subscriptionOf(ctx, subscriptionId);
        expectStatus(await subscriptionAction(ctx, subscriptionId, 'pause'), 200, 'pause');
        const s = envelopeData(await subscriptionAction(ctx, subscriptionId, 'resume'), 200, 'resume');
        assert.equal(s.status, 'active', 'reactivated');
        assert.equal(s.pausedAt, null, 'pausedAt cleared');
        assert.equal(s.currentPeriodEnd, before.currentPeriodEnd, 'resumed before its period ended, it keeps its period');
        const [resumed] = await waitForEvent(ctx, w, subscriptionId, 'subscription.resumed');
        assert.equal(resumed.status, 'Active');
        assert.equal(resumed.previousStatus, 'Paused');
      });
    },
  },
  {
    id: 'checkout.subscription-states.resume-not-paused-400',
    title: 'Not paused → resume → 400, no event',
    source: SUBSCRIPTION_STATES,
    requires: [...SUBSCRIBE, 'resumeSubscription', ...WATCH],
    serverOnly: true,
    async run(ctx) {
      await withWatch(ctx, ['subscription.*'], async (w) => {
        const { subscriptionId } = await paidSubscription(ctx, 'resume active');
        await waitForEvent(ctx, w, subscriptionId, 'subscription.activated');
        const before = (await subscriptionEvents(ctx, w, subscriptionId)).length;
        expectEnvelopeError(await subscriptionAction(ctx, subscriptionId, 'resume'), 400, 'invalid_request', 'subscription_not_resumable');
        assert.equal((await subscriptionOf(ctx, subscriptionId)).status, 'active', 'still active');
        assert.equal((await settledSubscriptionEvents(ctx, w, subscriptionId)).length, before, 'the refused resume sent no event');
      });
    },
  },
  clocked(
    'checkout.subscription-states.cancel-at-period-end',
    'Not canceled → cancel with `cancelAtPeriodEnd` true → stays active until period end with `cancelAt` = period end; `subscription.cancelled` now and again when it takes effect',
    SUBSCRIPTION_STATES,
    [...SUBSCRIBE, 'cancelSubscription', 'listSubscriptionInvoices', ...WATCH],
    {
      async run(ctx) {
        await withWatch(ctx, ['subscription.*'], async (w) => {
          const { subscriptionId } = await dailySubscription(ctx, 'cancel at period end');
          const before = await subscriptionOf(ctx, subscriptionId);
          const s = envelopeData(
            await subscriptionAction(ctx, subscriptionId, 'cancel', { cancelAtPeriodEnd: true, reason: 'conformance' }),
            200,
            'cancel at period end',
          );
          assert.equal(s.status, 'active', 'active until the period ends');
          assert.equal(s.cancelAtPeriodEnd, true);
          assert.ok(sameInstant(s.cancelAt, before.currentPeriodEnd), `cancelAt ${s.cancelAt} is the period end ${before.currentPeriodEnd}`);
          const [scheduled] = await waitForEvent(ctx, w, subscriptionId, 'subscription.cancelled');
          assert.equal(scheduled.status, 'Active', 'the first subscription.cancelled is the schedule (still active)');
          assert.ok(sameInstant(scheduled.cancelAt, before.currentPeriodEnd), 'it carries cancelAt');
          await advancePast(ctx, before.currentPeriodEnd);
          const after = await subscriptionOf(ctx, subscriptionId);
          assert.equal(after.status, 'canceled', 'canceled once the period ended');
          assert.ok(sameInstant(after.canceledAt, before.currentPeriodEnd), `canceledAt ${after.canceledAt} is the period end ${before.currentPeriodEnd}`);
          const cancelled = await waitForEvent(ctx, w, subscriptionId, 'subscription.cancelled', 2);
          assert.equal(cancelled.length, 2, 'subscription.cancelled now and when it takes effect');
          assert.equal(cancelled[1].status, 'Canceled');
          assert.equal(cancelled[1].previousStatus, 'Active');
          assert.equal((await subscriptionInvoices(ctx, subscriptionId)).length, 1, 'nothing renewed');
        });
      },
    },
  ),
  {
    id: 'checkout.subscription-states.cancel-now',
    title: 'Not canceled → cancel with `cancelAtPeriodEnd` false → `canceled`, `canceledAt` set, `subscription.cancelled`',
    source: SUBSCRIPTION_STATES,
    requires: [...SUBSCRIBE, 'cancelSubscription', ...WATCH],
    serverOnly: true,
    async run(ctx) {
      await withWatch(ctx, ['subscription.*'], async (w) => {
        const { subscriptionId } = await paidSubscription(ctx, 'cancel now');
        const s = envelopeData(await subscriptionAction(ctx, subscriptionId, 'cancel', { cancelAtPeriodEnd: false }), 200, 'cancel now');
        assert.equal(s.status, 'canceled');
        assert.ok(!Number.isNaN(Date.parse(s.canceledAt)), `canceledAt is set, got ${s.canceledAt}`);
        assert.ok(Date.parse(s.canceledAt) < Date.parse(s.currentPeriodEnd), 'canceled now, not at the period end');
        const [cancelled] = await waitForEvent(ctx, w, subscriptionId, 'subscription.cancelled');
        assert.equal(cancelled.status, 'Canceled');
        assert.equal(cancelled.previousStatus, 'Active');
        assert.ok(sameInstant(cancelled.canceledAt, s.canceledAt), 'the event carries canceledAt');
      });
    },
  },
  {
    id: 'checkout.subscription-states.cancel-canceled-noop',
    title: '`canceled` → cancel → no-op, no event',
    source: SUBSCRIPTION_STATES,
    requires: [...SUBSCRIBE, 'cancelSubscription', ...WATCH],
    serverOnly: true,
    async run(ctx) {
      await withWatch(ctx, ['subscription.*'], async (w) => {
        const { subscriptionId } = await paidSubscription(ctx, 'cancel canceled');
        const canceled = envelopeData(await subscriptionAction(ctx, subscriptionId, 'cancel', { cancelAtPeriodEnd: false }), 200, 'cancel now');
        await waitForEvent(ctx, w, subscriptionId, 'subscription.cancelled');
        for (const body of [undefined, { cancelAtPeriodEnd: false }, { cancelAtPeriodEnd: true }]) {
          const again = envelopeData(
            await subscriptionAction(ctx, subscriptionId, 'cancel', body),
            200,
            `cancel a canceled subscription again (${JSON.stringify(body ?? 'no body')})`,
          );
          assert.deepEqual(again, canceled, 'unchanged');
        }
        assert.equal(ofType(await settledSubscriptionEvents(ctx, w, subscriptionId), 'subscription.cancelled').length, 1, 'no second subscription.cancelled');
      });
    },
  },
  {
    id: 'checkout.subscription-states.plan-change',
    title:
      '`active` or `trialing` → plan change (`POST /v1/subscriptions/{id}/change-plan`, upgrade or downgrade) → new plan, `subscription.updated` with `previousPlanId` and `proratedAmount`; other states answer 400 `subscription_not_changeable`',
    source: SUBSCRIPTION_STATES,
    requires: [...SUBSCRIBE, 'changeSubscriptionPlan', 'cancelSubscription', ...WATCH],
    serverOnly: true,
    async run(ctx) {
      await withWatch(ctx, ['subscription.*'], async (w) => {
        const { subscriptionId, plan } = await paidSubscription(ctx, 'plan change active');
        const pricier = await newPlan(ctx, plan.productId, 'plan change pricier', { amount: 29.99 });
        const changed = envelopeData(await changePlan(ctx, subscriptionId, pricier.id), 200, "change an active subscription's plan");
        assert.equal(changed.object, 'plan_change');
        assert.equal(changed.subscription.planId, pricier.id, 'on the new plan');
        assert.equal(changed.subscription.amount, pricier.amount);
        assert.equal(changed.subscription.status, 'active');
        const [updated] = await waitForEvent(ctx, w, subscriptionId, 'subscription.updated');
        assert.equal(updated.previousPlanId, plan.id, 'previousPlanId is the old plan');
        assert.equal(updated.proratedAmount, changed.proration.proratedAmount, 'proratedAmount is the net of the change');
        assert.equal(updated.items[0].planId, pricier.id);

        const trial = await trialSubscription(ctx, 'plan change trialing', 7, {
          plan,
          customer: (await subscriptionParts(ctx, 'plan change trialing')).customer,
        });
        const inTrial = envelopeData(await changePlan(ctx, trial.subscriptionId, pricier.id), 200, "change a trialing subscription's plan");
        assert.equal(inTrial.subscription.status, 'trialing', 'still trialing');
        assert.equal(inTrial.subscription.planId, pricier.id);
        assert.deepEqual([inTrial.proration.credit, inTrial.proration.charge, inTrial.proration.proratedAmount], [0, 0, 0], 'nothing is prorated in a trial');
        await waitForEvent(ctx, w, trial.subscriptionId, 'subscription.updated');

        expectStatus(await subscriptionAction(ctx, subscriptionId, 'cancel', { cancelAtPeriodEnd: false }), 200, 'cancel now');
        expectEnvelopeError(await changePlan(ctx, subscriptionId, plan.id), 400, 'invalid_request', 'subscription_not_changeable');
      });
    },
  },
  pending(
    'checkout.subscription-states.trial-end-activates',
    '`trialing` → trial ends (card added) → `active`, `subscription.activated`',
    SUBSCRIPTION_STATES,
    [...SUBSCRIBE_TRIAL, 'createPortalSession', ...WATCH, 'advanceTestClock'],
    {
      needsClock: true,
      async run() {
        pendingBecause('a card is added to a free trial only in the customer portal, whose black-box path (issue 14 §2) is not built yet');
      },
    },
  ),
  clocked(
    'checkout.subscription-states.trial-end-no-card-past-due',
    '`trialing` → trial ends with no card on file → the first period is invoiced, nothing can be charged: `past_due` (`subscription.past_due`, reason `no_payment_method`) and into dunning',
    SUBSCRIPTION_STATES,
    [...SUBSCRIBE_TRIAL, 'listSubscriptionInvoices', ...WATCH],
    {
      async run(ctx) {
        await withWatch(ctx, ['subscription.*'], async (w) => {
          const parts = await subscriptionParts(ctx, 'trial end no card', DAILY);
          const { subscriptionId, plan } = await trialSubscription(ctx, '', 1, parts);
          const before = await subscriptionOf(ctx, subscriptionId);
          assert.equal(before.hasPaymentMethod, false);
          await advancePast(ctx, before.trialEnd);
          const after = await subscriptionOf(ctx, subscriptionId);
          assert.equal(after.status, 'past_due', 'no card: past due');
          assert.ok(sameInstant(after.currentPeriodStart, before.trialEnd), 'the first period starts at the trial end');
          assert.ok(after.nextPaymentAttempt !== null, 'dunning: a next attempt is scheduled');
          const [invoice] = await subscriptionInvoices(ctx, subscriptionId);
          assert.ok(invoice, 'the first period is invoiced');
          assert.equal(invoice.amount, plan.amount);
          assert.equal(invoice.amountPaid, 0);
          assert.ok(['open', 'overdue'].includes(invoice.status), `the invoice is unpaid, got ${invoice.status}`);
          const [pastDue] = await waitForEvent(ctx, w, subscriptionId, 'subscription.past_due');
          assert.equal(pastDue.previousStatus, 'Trialing');
          assert.equal(pastDue.reason, 'no_payment_method');
        });
      },
    },
  ),
  {
    id: 'checkout.subscription-states.first-payment-activates',
    title: '`pending` → first payment → `active`, `subscription.activated`',
    source: SUBSCRIPTION_STATES,
    requires: [...SUBSCRIBE, ...WATCH],
    serverOnly: true,
    async run(ctx) {
      await withWatch(ctx, ['subscription.*'], async (w) => {
        const { subscriptionId } = await paidSubscription(ctx, 'first payment');
        assert.equal((await subscriptionOf(ctx, subscriptionId)).status, 'active');
        const [activated] = await waitForEvent(ctx, w, subscriptionId, 'subscription.activated');
        assert.equal(activated.status, 'Active');
        assert.equal(activated.previousStatus, 'Pending', 'activated from pending by the first payment');
      });
    },
  },
  clocked(
    'checkout.subscription-states.past-due-recovery-activates',
    '`past_due` → recovery payment (the customer pays the open invoice through a checkout session with its `invoiceId`) → `active`, `subscription.activated`',
    SUBSCRIPTION_STATES,
    [...SUBSCRIBE, 'listSubscriptionInvoices', ...WATCH],
    {
      async run(ctx) {
        await withWatch(ctx, ['subscription.*'], async (w) => {
          const { subscriptionId } = await dailySubscription(ctx, 'past due recovery', DECLINES_LATER);
          const before = await subscriptionOf(ctx, subscriptionId);
          await advancePast(ctx, before.currentPeriodEnd);
          assert.equal((await subscriptionOf(ctx, subscriptionId)).status, 'past_due', 'the renewal was declined');
          const [open] = await subscriptionInvoices(ctx, subscriptionId);
          assert.notEqual(open.status, 'paid', 'the renewal invoice is open');
          const session = await newSession(ctx, { amount: undefined, currency: undefined, invoiceId: open.id });
          await payWithCard(ctx, session);
          const after = await subscriptionOf(ctx, subscriptionId);
          assert.equal(after.status, 'active', 'paying the open invoice recovers it');
          assert.equal(after.nextPaymentAttempt, null, 'no retry left');
          assert.equal((await subscriptionInvoices(ctx, subscriptionId))[0].status, 'paid', 'the invoice is paid');
          const [activated] = await waitForEvent(ctx, w, subscriptionId, 'subscription.activated', 2).then((a) => a.slice(-1));
          assert.equal(activated.previousStatus, 'PastDue');
          assert.equal(activated.reason, 'payment_recovered');
        });
      },
    },
  ),
  clocked(
    'checkout.subscription-states.renewal',
    '`active` → period rolls → new period, invoice raised, `subscription.renewed`',
    SUBSCRIPTION_STATES,
    [...SUBSCRIBE, 'listSubscriptionInvoices', ...WATCH],
    {
      async run(ctx) {
        await withWatch(ctx, ['subscription.*'], async (w) => {
          const { subscriptionId, plan } = await dailySubscription(ctx, 'renewal');
          const before = await subscriptionOf(ctx, subscriptionId);
          await advancePast(ctx, before.currentPeriodEnd);
          const after = await subscriptionOf(ctx, subscriptionId);
          assert.equal(after.status, 'active');
          assert.ok(
            sameInstant(after.currentPeriodStart, before.currentPeriodEnd),
            `the new period starts at the old end: ${after.currentPeriodStart} vs ${before.currentPeriodEnd}`,
          );
          assert.equal(Date.parse(after.currentPeriodEnd) - Date.parse(after.currentPeriodStart), 86_400_000, 'a daily period');
          const invoices = await subscriptionInvoices(ctx, subscriptionId);
          assert.equal(invoices.length, 2, 'one invoice raised for the new period');
          assert.ok(
            sameInstant(invoices[0].periodStart, after.currentPeriodStart) && sameInstant(invoices[0].periodEnd, after.currentPeriodEnd),
            'it covers the new period',
          );
          assert.equal(invoices[0].amount, plan.amount);
          const [renewed] = await waitForEvent(ctx, w, subscriptionId, 'subscription.renewed');
          assert.equal(renewed.status, 'Active');
          assert.ok(sameInstant(renewed.currentPeriodStart, after.currentPeriodStart), 'the event carries the new period');
        });
      },
    },
  ),
  clocked(
    'checkout.subscription-states.payment-fails-past-due',
    'Any → payment attempt fails → `past_due`, `subscription.payment_failed` per dunning attempt, `subscription.past_due`',
    SUBSCRIPTION_STATES,
    [...SUBSCRIBE, 'listSubscriptionInvoices', ...WATCH],
    {
      async run(ctx) {
        await withWatch(ctx, ['subscription.*'], async (w) => {
          const { subscriptionId, plan } = await dailySubscription(ctx, 'payment fails', DECLINES_LATER);
          const before = await subscriptionOf(ctx, subscriptionId);
          await advancePast(ctx, before.currentPeriodEnd);
          const after = await subscriptionOf(ctx, subscriptionId);
          assert.equal(after.status, 'past_due');
          // The failure is at the period end, give or take the time the target took to run it.
          const retryIn = Date.parse(after.nextPaymentAttempt) - Date.parse(before.currentPeriodEnd);
          assert.ok(
            retryIn >= 86_400_000 && retryIn < 86_400_000 + 5000,
            `the first retry is a day after the failure at the period end ${before.currentPeriodEnd}, got ${after.nextPaymentAttempt}`,
          );
          const [open] = await subscriptionInvoices(ctx, subscriptionId);
          assert.equal(open.status, 'overdue', 'the renewal invoice is overdue');
          assert.equal(open.amount, plan.amount);
          assert.equal(open.amountPaid, 0);
          const events = await waitForSubscriptionEvents(
            ctx,
            w,
            subscriptionId,
            (e) => ofType(e, 'subscription.past_due').length > 0 && ofType(e, 'subscription.payment_failed').length > 0,
            'expected subscription.payment_failed and subscription.past_due',
          );
          assert.equal(ofType(events, 'subscription.payment_failed').length, 1, 'one subscription.payment_failed for the one attempt');
          const [pastDue] = ofType(events, 'subscription.past_due');
          assert.equal(pastDue.status, 'PastDue');
          assert.equal(pastDue.previousStatus, 'Active');
        });
      },
    },
  ),
  clocked(
    'checkout.subscription-states.dunning-exhausted-unpaid',
    '`past_due` → dunning exhausted → `unpaid`, `subscription.unpaid`',
    SUBSCRIPTION_STATES,
    [...SUBSCRIBE, 'listSubscriptionInvoices', ...WATCH],
    {
      async run(ctx) {
        await withWatch(ctx, ['subscription.*'], async (w) => {
          const { subscriptionId } = await dailySubscription(ctx, 'dunning exhausted', INSUFFICIENT_FUNDS_LATER);
          const before = await subscriptionOf(ctx, subscriptionId);
          const failedAt = Date.parse(before.currentPeriodEnd);
          await advancePast(ctx, before.currentPeriodEnd);
          assert.equal((await subscriptionOf(ctx, subscriptionId)).status, 'past_due');
          // The retries 1, 3, 5 and 7 days after the first failure.
          await advancePast(ctx, new Date(failedAt + 7 * 86_400_000).toISOString(), 60);
          const after = await subscriptionOf(ctx, subscriptionId);
          assert.equal(after.status, 'unpaid', 'unpaid once the fourth retry failed');
          assert.equal(after.nextPaymentAttempt, null, 'nothing more is tried');
          const events = await waitForSubscriptionEvents(
            ctx,
            w,
            subscriptionId,
            (e) => ofType(e, 'subscription.unpaid').length > 0,
            'expected subscription.unpaid',
          );
          assert.equal(
            ofType(events, 'subscription.payment_failed').length,
            5,
            'subscription.payment_failed for the first attempt and each of the four retries',
          );
          const [unpaid] = ofType(events, 'subscription.unpaid');
          assert.equal(unpaid.status, 'Unpaid');
          assert.equal(unpaid.previousStatus, 'PastDue');
          assert.equal((await subscriptionInvoices(ctx, subscriptionId)).length, 2, 'a past-due subscription raises no new invoice while its periods pass');
        });
      },
    },
  ),
  {
    id: 'checkout.subscription-states.status-values',
    title: 'Subscription statuses are `active`, `trialing`, `past_due`, `unpaid`, `paused`, `canceled`, `pending` in the REST API',
    source: SUBSCRIPTION_STATES,
    requires: [...SUBSCRIBE_TRIAL, 'listSubscriptions'],
    serverOnly: true,
    async run(ctx) {
      const { subscriptionId } = await trialSubscription(ctx, 'subscription status values');
      assert.equal((await subscriptionOf(ctx, subscriptionId)).status, 'trialing');
      for (const s of (await listSubscriptionsPage(ctx, { limit: 100 })).data)
        assert.ok(SUBSCRIPTION_STATUSES.includes(s.status), `status ${s.status} is one of ${SUBSCRIPTION_STATUSES.join(', ')}`);
    },
  },
  {
    id: 'checkout.subscription-states.refused-sends-no-event',
    title: 'A refused or no-change request sends no event',
    source: SUBSCRIPTION_STATES,
    requires: [...SUBSCRIBE, 'pauseSubscription', 'resumeSubscription', 'cancelSubscription', 'changeSubscriptionPlan', ...WATCH],
    serverOnly: true,
    async run(ctx) {
      await withWatch(ctx, ['subscription.*'], async (w) => {
        const { subscriptionId, plan } = await paidSubscription(ctx, 'refused no event');
        await waitForEvent(ctx, w, subscriptionId, 'subscription.activated');
        expectEnvelopeError(await subscriptionAction(ctx, subscriptionId, 'resume'), 400, 'invalid_request', 'subscription_not_resumable');
        expectStatus(await changePlan(ctx, subscriptionId, plan.id), 200, 'change to the plan it is on (no change)');
        expectStatus(await subscriptionAction(ctx, subscriptionId, 'cancel'), 200, 'schedule the cancellation');
        expectStatus(await subscriptionAction(ctx, subscriptionId, 'cancel', { cancelAtPeriodEnd: true }), 200, 'schedule it again (no change)');
        expectStatus(await subscriptionAction(ctx, subscriptionId, 'pause'), 200, 'pause');
        expectEnvelopeError(await subscriptionAction(ctx, subscriptionId, 'pause'), 400, 'invalid_request', 'subscription_not_pausable');
        const sent = (await settledSubscriptionEvents(ctx, w, subscriptionId))
          .map((e) => e.type)
          .filter((t) => t !== 'subscription.created' && t !== 'subscription.activated');
        assert.deepEqual(sent, ['subscription.cancelled', 'subscription.paused'], 'only the two requests that changed something sent an event');
      });
    },
  },
  clocked(
    'checkout.subscription-states.pause-no-renewal',
    'No renewal is charged while paused',
    SUBSCRIPTION_STATES,
    [...SUBSCRIBE, 'pauseSubscription', 'listSubscriptionInvoices'],
    {
      async run(ctx) {
        const { subscriptionId } = await dailySubscription(ctx, 'pause no renewal');
        const before = envelopeData(await subscriptionAction(ctx, subscriptionId, 'pause'), 200, 'pause');
        await advancePast(ctx, before.currentPeriodEnd, 60);
        const after = await subscriptionOf(ctx, subscriptionId);
        assert.equal(after.status, 'paused', 'still paused after its period end');
        assert.equal(after.currentPeriodEnd, before.currentPeriodEnd, 'no new period');
        const invoices = await subscriptionInvoices(ctx, subscriptionId);
        assert.equal(invoices.length, 1, 'no renewal invoice while paused');
      },
    },
  ),
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
  pending(
    'checkout.renewal.card-kept-on-customer',
    'The card is attached to the customer if they have none yet (`hasPaymentMethod` becomes true), and not when they already have one',
    RENEWAL,
    [...SUBSCRIBE, 'retrieveCustomer', 'listSavedCards'],
  ),
  pending(
    'checkout.renewal.customer-told-beforehand',
    'The checkout tells the customer beforehand that the card is kept (hosted page of a subscription session)',
    RENEWAL,
    [...SUBSCRIBE_TRIAL],
  ),
  clocked(
    'checkout.renewal.merchant-initiated',
    'Renewals are charged automatically to the card on file (merchant-initiated): the renewal invoice is paid without the customer',
    RENEWAL,
    [...SUBSCRIBE, 'listSubscriptionInvoices'],
    {
      async run(ctx) {
        const { subscriptionId, plan } = await dailySubscription(ctx, 'merchant initiated');
        const before = await subscriptionOf(ctx, subscriptionId);
        await advancePast(ctx, before.currentPeriodEnd);
        const [renewal, first] = await subscriptionInvoices(ctx, subscriptionId);
        assert.ok(first, 'a renewal invoice was raised');
        assert.equal(renewal.status, 'paid', 'the renewal invoice is paid by the card on file, with no customer action');
        assert.equal(renewal.amountPaid, plan.amount);
        const after = await subscriptionOf(ctx, subscriptionId);
        assert.equal(after.status, 'active');
        assert.equal(after.hasPaymentMethod, true, 'the card stays on file');
      },
    },
  ),
  pending(
    'checkout.renewal.free-trial-no-card',
    'A subscription starting on a free trial keeps no card at checkout (`hasPaymentMethod` false); the customer adds one in the portal',
    RENEWAL,
    [...SUBSCRIBE_TRIAL, 'retrieveCustomer', 'createPortalSession'],
  ),
];

/** Whether two ISO times are the same instant (however many fraction digits each shows). */
const sameInstant = (a: string | null, b: string | null): boolean => a !== null && b !== null && Date.parse(a) === Date.parse(b);

/** An amount in minor units (2-decimal currencies). */
const cents = (amount: number): bigint => BigInt(Math.round(amount * 100));

/** `amount` × `left` ÷ `total`, rounded half-up to the minor unit, in minor units. */
const prorated = (amount: number, left: bigint, total: bigint): bigint => (2n * cents(amount) * left + total) / (2n * total);

/**
 * Checks a proration against its rule: by the second of the period (`currentPeriodStart` to
 * `periodEnd`) left at `prorationDate`, `credit` for the old amount and `charge` for the new one
 * each rounded half-up on its own, `proratedAmount` = charge − credit. Sub-second parts of the
 * instants are not specified: a count of seconds rounded either way is accepted.
 */
function checkProration(p: any, periodStart: string, oldAmount: number, newAmount: number): void {
  const total = BigInt(Math.round((Date.parse(p.periodEnd) - Date.parse(periodStart)) / 1000));
  const exact = (Date.parse(p.periodEnd) - Date.parse(p.prorationDate)) / 1000;
  const fits = [Math.floor(exact), Math.ceil(exact)].some((s) => {
    const left = BigInt(Math.max(0, s));
    const credit = prorated(oldAmount, left, total);
    const charge = prorated(newAmount, left, total);
    return cents(p.credit) === credit && cents(p.charge) === charge && cents(p.proratedAmount) === charge - credit;
  });
  assert.ok(fits, `proration ${JSON.stringify(p)} is not ${oldAmount} → ${newAmount} over ${exact} of ${total} seconds, rounded half-up`);
  assert.equal(cents(p.proratedAmount), cents(p.charge) - cents(p.credit), 'proratedAmount = charge − credit');
}

/** Plan changes with their proration (`changeSubscriptionPlan`, `previewSubscriptionPlanChange`). */
const planChanges: Scenario[] = [
  clocked(
    'checkout.subscriptions.plan-change-proration',
    "A plan change is prorated by the second of the current period (credit and charge each rounded half-up, net = charge − credit), previewed exactly by `GET …/change-plan`; an upgrade's net is invoiced and charged at once, a downgrade's goes to `creditBalance` and is taken off the next invoice; the period does not move",
    SUBSCRIPTION_ENDPOINTS,
    [...SUBSCRIBE, 'changeSubscriptionPlan', 'previewSubscriptionPlanChange', 'listSubscriptionInvoices', ...WATCH],
    {
      async run(ctx) {
        await withWatch(ctx, ['subscription.updated'], async (w) => {
          const parts = await subscriptionParts(ctx, 'proration basic', { ...DAILY, amount: 30 });
          const { subscriptionId, plan: basic } = await paidSubscription(ctx, '', parts);
          const team = await newPlan(ctx, basic.productId, 'proration team', { ...DAILY, amount: 45.55 });
          const pro = await newPlan(ctx, basic.productId, 'proration pro', { ...DAILY, amount: 40 });
          await advanceClock(ctx, 6 * 3600); // A quarter of the daily period used.
          const start = await subscriptionOf(ctx, subscriptionId);

          const preview = envelopeData(await previewPlanChange(ctx, subscriptionId, team.id), 200, 'preview the upgrade');
          assert.equal(preview.object, 'proration');
          assert.deepEqual([preview.previousPlanId, preview.planId, preview.currency, preview.settlement], [basic.id, team.id, 'USD', 'charged_now']);
          assert.ok(sameInstant(preview.periodEnd, start.currentPeriodEnd), "periodEnd is the current period's end");
          checkProration(preview, start.currentPeriodStart, 30, 45.55);
          assert.equal((await subscriptionOf(ctx, subscriptionId)).planId, basic.id, 'a preview changes nothing');

          const up = envelopeData(await changePlan(ctx, subscriptionId, team.id), 200, 'upgrade');
          assert.equal(up.object, 'plan_change');
          checkProration(up.proration, start.currentPeriodStart, 30, 45.55);
          assert.ok(up.proration.proratedAmount > 0, 'an upgrade costs');
          assert.equal(up.proration.settlement, 'charged_now');
          assert.deepEqual(
            [up.subscription.planId, up.subscription.amount, up.subscription.items[0].planId, up.subscription.creditBalance],
            [team.id, 45.55, team.id, 0],
          );
          assert.equal(up.subscription.currentPeriodEnd, start.currentPeriodEnd, 'the period does not move');
          const [charged] = await subscriptionInvoices(ctx, subscriptionId);
          assert.deepEqual(
            [charged.status, charged.amount, charged.amountPaid],
            ['paid', up.proration.proratedAmount, up.proration.proratedAmount],
            'the net is invoiced and charged to the card on file at once',
          );

          const down = envelopeData(await changePlan(ctx, subscriptionId, pro.id), 200, 'downgrade');
          checkProration(down.proration, start.currentPeriodStart, 45.55, 40);
          assert.ok(down.proration.proratedAmount < 0, 'a downgrade credits');
          assert.equal(down.proration.settlement, 'credited');
          assert.equal(cents(down.subscription.creditBalance), -cents(down.proration.proratedAmount), 'the credit goes to creditBalance');
          assert.equal((await subscriptionInvoices(ctx, subscriptionId)).length, 2, 'no money moves on a downgrade');

          const updated = await waitForEvent(ctx, w, subscriptionId, 'subscription.updated', 2);
          assert.deepEqual(
            updated.map((o) => [o.previousPlanId, o.proratedAmount]),
            [
              [basic.id, up.proration.proratedAmount],
              [team.id, down.proration.proratedAmount],
            ],
            'subscription.updated carries previousPlanId and the net proratedAmount',
          );

          await advancePast(ctx, start.currentPeriodEnd);
          const [renewal] = await subscriptionInvoices(ctx, subscriptionId);
          assert.equal(cents(renewal.amount), cents(40) - cents(down.subscription.creditBalance), 'the credit is taken off the next invoice');
          assert.equal(renewal.status, 'paid');
          assert.equal((await subscriptionOf(ctx, subscriptionId)).creditBalance, 0, 'the credit is used up');
        });
      },
    },
  ),
  {
    id: 'checkout.subscriptions.plan-change-refused',
    title:
      'A plan change to another currency or billing interval answers 400 `validation_error` naming `planId` (preview too); a declined card on file answers 400 `card_declined`; the plan it is on answers 200 with nothing prorated; none of them changes anything or sends an event',
    source: SUBSCRIPTION_ENDPOINTS,
    requires: [...SUBSCRIBE, 'changeSubscriptionPlan', 'previewSubscriptionPlanChange', 'listSubscriptionInvoices', ...WATCH],
    serverOnly: true,
    async run(ctx) {
      await withWatch(ctx, ['subscription.updated'], async (w) => {
        const { subscriptionId, plan } = await paidSubscription(ctx, 'plan change refused', undefined, DECLINES_LATER);
        const euro = await newPlan(ctx, plan.productId, 'plan change euro', { currency: 'EUR' });
        const weekly = await newPlan(ctx, plan.productId, 'plan change weekly', { interval: 'week' });
        for (const other of [euro, weekly]) {
          for (const res of [await changePlan(ctx, subscriptionId, other.id), await previewPlanChange(ctx, subscriptionId, other.id)]) {
            expectEnvelopeError(res, 400, 'invalid_request', 'validation_error', 'planId');
          }
        }
        const same = envelopeData(await changePlan(ctx, subscriptionId, plan.id), 200, 'the plan it is on');
        assert.deepEqual([same.proration.proratedAmount, same.proration.settlement], [0, 'none']);
        const pricier = await newPlan(ctx, plan.productId, 'plan change pricier', { amount: 99 });
        const declined = await changePlan(ctx, subscriptionId, pricier.id);
        expectStatus(declined, 400, 'an upgrade the card on file declines');
        assert.equal(declined.json?.errorCode, 'card_declined');
        const after = await subscriptionOf(ctx, subscriptionId);
        assert.deepEqual([after.planId, after.amount], [plan.id, plan.amount], 'nothing changed');
        assert.equal((await subscriptionInvoices(ctx, subscriptionId)).length, 1, 'no invoice left behind');
        assert.deepEqual(await settledSubscriptionEvents(ctx, w, subscriptionId), [], 'no subscription.updated');
      });
    },
  },
];

export const subscriptions: Scenario[] = [...subscriptionScenarios, ...planChanges];
