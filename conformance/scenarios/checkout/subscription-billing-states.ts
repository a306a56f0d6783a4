// The subscription state table, the rows payments and time drive (first payment, recovery, renewal,
// failed payments and dunning), the status values, no event for a refused request, and no renewal while
// paused. Scenarios that need time to pass use daily plans, so each moves the sandbox clock about a day
// (the dunning one eight days), never a month.
import assert from 'node:assert/strict';
import { sameInstant } from '../fixtures/clock.js';
import { ofType, settledSubscriptionEvents, waitForEvent, waitForSubscriptionEvents, withWatch } from '../fixtures/events.js';
import { envelopeData, expectEnvelopeError, expectStatus } from '../fixtures/http.js';
import { SUBSCRIBE, SUBSCRIBE_TRIAL, WATCH } from '../fixtures/operations.js';
import { clocked } from '../fixtures/scenario.js';
import { SUBSCRIPTION_STATES } from '../fixtures/sections.js';
import { newSession } from '../fixtures/sessions.js';
import {
  advancePast,
  changePlan,
  dailySubscription,
  DECLINES_LATER,
  listSubscriptionsPage,
  INSUFFICIENT_FUNDS_LATER,
  paidSubscription,
  payWithCard,
  subscriptionAction,
  subscriptionInvoices,
  subscriptionOf,
  trialSubscription,
} from '../fixtures/subscriptions.js';
import type { Scenario } from '../../types.js';

const SUBSCRIPTION_STATUSES = ['active', 'trialing', 'past_due', 'unpaid', 'paused', 'canceled', 'pending'];

export const subscriptionBillingStates: Scenario[] = [
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
];
