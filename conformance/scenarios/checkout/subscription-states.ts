// The subscription state table, the rows a merchant's request drives (one scenario per row): pause,
// resume, cancel now or at the period end, and plan change, each with the events it sends or not.
// Events are watched through a webhook configuration's delivery log (fixtures/events.ts).
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { newPlan } from '../fixtures/catalog.js';
import { sameInstant } from '../fixtures/clock.js';
import { ofType, settledSubscriptionEvents, subscriptionEvents, waitForEvent, withWatch } from '../fixtures/events.js';
import { envelopeData, expectEnvelopeError, expectStatus } from '../fixtures/http.js';
import { SUBSCRIBE, SUBSCRIBE_TRIAL, WATCH } from '../fixtures/operations.js';
import { clocked } from '../fixtures/scenario.js';
import { addCardInPortal } from '../fixtures/portal.js';
import { SUBSCRIPTION_STATES } from '../fixtures/sections.js';
import {
  advancePast,
  changePlan,
  DAILY,
  dailySubscription,
  paidSubscription,
  subscriptionAction,
  subscriptionInvoices,
  subscriptionOf,
  subscriptionParts,
  trialSubscription,
} from '../fixtures/subscriptions.js';

export const subscriptionStates: Scenario[] = [
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
  clocked(
    'checkout.subscription-states.trial-end-activates',
    '`trialing` → trial ends (card added) → `active`, `subscription.activated`',
    SUBSCRIPTION_STATES,
    [...SUBSCRIBE_TRIAL, 'createPortalSession', 'listSubscriptionInvoices', ...WATCH],
    {
      async run(ctx) {
        await withWatch(ctx, ['subscription.*'], async (w) => {
          const parts = await subscriptionParts(ctx, 'trial end activates', DAILY);
          const { subscriptionId, plan } = await trialSubscription(ctx, '', 1, parts);
          await addCardInPortal(ctx, parts.customer.id);
          const before = await subscriptionOf(ctx, subscriptionId);
          assert.equal(before.status, 'trialing', 'still trialing with a card added');
          assert.equal(before.hasPaymentMethod, true, 'the portal card is on file');
          await advancePast(ctx, before.trialEnd);
          const after = await subscriptionOf(ctx, subscriptionId);
          assert.equal(after.status, 'active', 'the trial ended with a card: active');
          assert.ok(sameInstant(after.currentPeriodStart, before.trialEnd), 'the first period starts at the trial end');
          const [invoice] = await subscriptionInvoices(ctx, subscriptionId);
          assert.equal(invoice?.status, 'paid', 'the first period is charged to the card');
          assert.equal(invoice.amountPaid, plan.amount);
          const [activated] = await waitForEvent(ctx, w, subscriptionId, 'subscription.activated');
          assert.equal(activated.status, 'Active');
          assert.equal(activated.previousStatus, 'Trialing');
        });
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
];
