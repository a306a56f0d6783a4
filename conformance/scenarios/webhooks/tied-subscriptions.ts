// The events a subscription sends: the changes a merchant's request makes (cancel, pause, resume,
// plan change) and those payments and time make (created, activated, renewed, a failed payment, past
// due, unpaid, a scheduled cancellation taking effect). Time passes on daily plans and the sandbox
// clock; each check reads what was delivered about its own subscription from a watch's delivery log.
import assert from 'node:assert/strict';
import type { ConformanceContext, Scenario } from '../../types.js';
import { newPlan } from '../fixtures/catalog.js';
import { sameInstant } from '../fixtures/clock.js';
import { type Watch, withWatch } from '../fixtures/events.js';
import { envelopeData, expectStatus } from '../fixtures/http.js';
import { SUBSCRIBE, WATCH } from '../fixtures/operations.js';
import { clocked, scenario } from '../fixtures/scenario.js';
import { EVENT_TYPES, TIED } from '../fixtures/sections.js';
import { newSession, payByCard } from '../fixtures/sessions.js';
import {
  advancePast,
  changePlan,
  DAILY,
  dailySubscription,
  DECLINES_LATER,
  INSUFFICIENT_FUNDS_LATER,
  paidSubscription,
  subscriptionAction,
  subscriptionInvoices,
  subscriptionOf,
  subscriptionParts,
  trialSubscription,
} from '../fixtures/subscriptions.js';
import { addCardInPortal } from '../fixtures/portal.js';
import { aboutSubscription, orderOf, settledTied, type Tied, waitForTied } from '../fixtures/tied.js';

type Action = Parameters<typeof subscriptionAction>[2];

/**
 * Starts a subscription paid by card, makes the requests `steps` name (each must answer 200), and
 * waits until `types` were sent about it; answers its events, oldest first.
 */
async function eventsAfter(ctx: ConformanceContext, w: Watch, label: string, steps: Array<[Action, Record<string, unknown>?]>, types: string[]) {
  const { subscriptionId } = await paidSubscription(ctx, label);
  for (const [action, body] of steps) expectStatus(await subscriptionAction(ctx, subscriptionId, action, body), 200, `${action} the subscription`);
  return { subscriptionId, events: await waitForTied(ctx, w, aboutSubscription(subscriptionId), types, `after ${steps.map((s) => s[0]).join(', ')}`) };
}

/** The objects of the events of `type`, oldest first. */
const objectsOf = (events: Tied[], type: string) => events.filter((e) => e.type === type).map((e) => e.object);

/**
 * A daily subscription whose card pays at checkout and declines later (`card`): moves the clock past
 * its period end (the renewal fails), then `days` days on from that failure (its dunning retries fall
 * 1, 3, 5 and 7 days after it). Answers its id.
 */
async function failingRenewals(ctx: ConformanceContext, label: string, days: number, card = DECLINES_LATER): Promise<number> {
  const { subscriptionId } = await dailySubscription(ctx, label, card);
  const { currentPeriodEnd } = await subscriptionOf(ctx, subscriptionId);
  await advancePast(ctx, currentPeriodEnd);
  if (days > 0) await advancePast(ctx, new Date(Date.parse(currentPeriodEnd) + days * 86_400_000).toISOString(), 60);
  return subscriptionId;
}

/** Cancels a subscription at once, so it renews no more while later clock scenarios move time on. */
const stopRenewing = async (ctx: ConformanceContext, id: number) =>
  expectStatus(await subscriptionAction(ctx, id, 'cancel', { cancelAtPeriodEnd: false }), 200, 'cancel the subscription now');

const SUBSCRIPTION_EVENTS = ['subscription.*'];

export const tiedSubscriptions: Scenario[] = [
  scenario(
    'webhooks.tied.subscription-cancel',
    'Cancelling a subscription sends `subscription.cancelled`',
    TIED,
    [...WATCH, ...SUBSCRIBE, 'cancelSubscription'],
    (ctx) =>
      withWatch(ctx, SUBSCRIPTION_EVENTS, async (w) => {
        const { events } = await eventsAfter(ctx, w, 'tied cancel', [['cancel', { cancelAtPeriodEnd: false }]], ['subscription.cancelled']);
        const [cancelled] = objectsOf(events, 'subscription.cancelled');
        assert.equal(cancelled.status, 'Canceled');
        assert.ok(!Number.isNaN(Date.parse(cancelled.canceledAt)), `canceledAt is set, got ${cancelled.canceledAt}`);
      }),
  ),
  scenario(
    'webhooks.tied.subscription-pause',
    'Pausing a subscription sends `subscription.paused`',
    TIED,
    [...WATCH, ...SUBSCRIBE, 'pauseSubscription'],
    (ctx) =>
      withWatch(ctx, SUBSCRIPTION_EVENTS, async (w) => {
        const { events } = await eventsAfter(ctx, w, 'tied pause', [['pause', { reason: 'conformance' }]], ['subscription.paused']);
        const [paused] = objectsOf(events, 'subscription.paused');
        assert.deepEqual([paused.status, paused.previousStatus], ['Paused', 'Active']);
      }),
  ),
  scenario(
    'webhooks.tied.subscription-resume',
    'Resuming a subscription sends `subscription.resumed`',
    TIED,
    [...WATCH, ...SUBSCRIBE, 'pauseSubscription', 'resumeSubscription'],
    (ctx) =>
      withWatch(ctx, SUBSCRIPTION_EVENTS, async (w) => {
        const { events } = await eventsAfter(ctx, w, 'tied resume', [['pause'], ['resume']], ['subscription.paused', 'subscription.resumed']);
        assert.deepEqual(orderOf(events, ['subscription.paused', 'subscription.resumed']), ['subscription.paused', 'subscription.resumed']);
        const [resumed] = objectsOf(events, 'subscription.resumed');
        assert.deepEqual([resumed.status, resumed.previousStatus], ['Active', 'Paused']);
      }),
  ),
  scenario(
    'webhooks.tied.subscription-plan-change',
    'A plan change sends `subscription.updated` with `previousPlanId` and net `proratedAmount` (charge positive, credit negative)',
    TIED,
    [...WATCH, ...SUBSCRIBE, 'changeSubscriptionPlan'],
    (ctx) =>
      withWatch(ctx, SUBSCRIPTION_EVENTS, async (w) => {
        const { subscriptionId, plan } = await paidSubscription(ctx, 'tied plan change');
        const dearer = await newPlan(ctx, plan.productId, 'tied plan change up', { amount: 39.99 });
        const up = envelopeData(await changePlan(ctx, subscriptionId, dearer.id), 200, 'upgrade');
        const down = envelopeData(await changePlan(ctx, subscriptionId, plan.id), 200, 'downgrade back');
        const events = await waitForTied(ctx, w, aboutSubscription(subscriptionId), ['subscription.updated', 'subscription.updated'], 'two plan changes');
        const [upgraded, downgraded] = objectsOf(events, 'subscription.updated');
        assert.deepEqual([upgraded.previousPlanId, upgraded.items[0].planId], [plan.id, dearer.id], 'the upgrade names the plan it left');
        assert.deepEqual([downgraded.previousPlanId, downgraded.items[0].planId], [dearer.id, plan.id], 'the downgrade too');
        assert.equal(upgraded.proratedAmount, up.proration.proratedAmount);
        assert.equal(downgraded.proratedAmount, down.proration.proratedAmount);
        assert.ok(upgraded.proratedAmount > 0, `an upgrade is a net charge: positive (${upgraded.proratedAmount})`);
        assert.ok(downgraded.proratedAmount < 0, `a downgrade is a net credit: negative (${downgraded.proratedAmount})`);
      }),
  ),
  scenario(
    'webhooks.events.subscription-created',
    '`subscription.created` is sent when a subscription is created',
    EVENT_TYPES,
    [...WATCH, ...SUBSCRIBE],
    (ctx) =>
      withWatch(ctx, SUBSCRIPTION_EVENTS, async (w) => {
        const { subscriptionId, plan, customer } = await paidSubscription(ctx, 'created event');
        const events = await waitForTied(ctx, w, aboutSubscription(subscriptionId), ['subscription.created', 'subscription.activated'], 'a new subscription');
        assert.deepEqual(orderOf(events, ['subscription.created', 'subscription.activated']), ['subscription.created', 'subscription.activated']);
        const [created] = objectsOf(events, 'subscription.created');
        assert.deepEqual([created.clientId, created.items[0].planId], [customer.id, plan.id], 'for the customer, on the plan');
        assert.equal(objectsOf(await settledTied(ctx, w, aboutSubscription(subscriptionId)), 'subscription.created').length, 1, 'sent once');
      }),
  ),
  clocked(
    'webhooks.events.subscription-activated',
    '`subscription.activated` is sent when a subscription becomes active (first payment, trial end, recovery from past due)',
    EVENT_TYPES,
    [...WATCH, ...SUBSCRIBE, 'listSubscriptionInvoices', 'createPortalSession'],
    {
      run: (ctx) =>
        withWatch(ctx, SUBSCRIPTION_EVENTS, async (w) => {
          const recovered = await failingRenewals(ctx, 'activated event', 0);
          assert.equal((await subscriptionOf(ctx, recovered)).status, 'past_due');
          const [open] = await subscriptionInvoices(ctx, recovered);
          await payByCard(ctx, await newSession(ctx, { amount: undefined, currency: undefined, invoiceId: open.id }));
          const trial = await trialSubscription(ctx, '', 1, await subscriptionParts(ctx, 'activated at trial end', DAILY));
          await addCardInPortal(ctx, trial.customer.id);
          assert.equal((await subscriptionOf(ctx, trial.subscriptionId)).hasPaymentMethod, true, 'the trial has a card on file');
          await advancePast(ctx, (await subscriptionOf(ctx, trial.subscriptionId)).trialEnd);
          const activated = [recovered, trial.subscriptionId].map(async (id, i) =>
            objectsOf(await waitForTied(ctx, w, aboutSubscription(id), Array(2 - i).fill('subscription.activated'), 'activated'), 'subscription.activated'),
          );
          const [byPayments, byTrialEnd] = await Promise.all(activated);
          assert.deepEqual(
            [...byPayments!, ...byTrialEnd!].map((s) => [s.status, s.previousStatus]),
            [
              ['Active', 'Pending'],
              ['Active', 'PastDue'],
              ['Active', 'Trialing'],
            ],
            'activated by the first payment, by the recovery payment, and at the end of a trial with a card on file',
          );
          for (const id of [recovered, trial.subscriptionId]) await stopRenewing(ctx, id);
        }),
    },
  ),
  clocked(
    'webhooks.events.subscription-renewed',
    '`subscription.renewed` is sent when a subscription rolls into a new period and its invoice is raised',
    EVENT_TYPES,
    [...WATCH, ...SUBSCRIBE, 'listSubscriptionInvoices'],
    {
      run: (ctx) =>
        withWatch(ctx, SUBSCRIPTION_EVENTS, async (w) => {
          const { subscriptionId } = await dailySubscription(ctx, 'renewed event');
          const { currentPeriodEnd } = await subscriptionOf(ctx, subscriptionId);
          await advancePast(ctx, currentPeriodEnd);
          const [renewed] = objectsOf(
            await waitForTied(ctx, w, aboutSubscription(subscriptionId), ['subscription.renewed'], 'the renewal'),
            'subscription.renewed',
          );
          assert.ok(sameInstant(renewed.currentPeriodStart, currentPeriodEnd), `the new period starts at the old end (${renewed.currentPeriodStart})`);
          const [raised] = await subscriptionInvoices(ctx, subscriptionId);
          assert.ok(sameInstant(raised.periodStart, renewed.currentPeriodStart), "the new period's invoice is raised");
          await stopRenewing(ctx, subscriptionId);
        }),
    },
  ),
  clocked(
    'webhooks.events.subscription-payment-failed',
    '`subscription.payment_failed` is sent once per failed dunning attempt',
    EVENT_TYPES,
    [...WATCH, ...SUBSCRIBE],
    {
      run: (ctx) =>
        withWatch(ctx, SUBSCRIPTION_EVENTS, async (w) => {
          const subscriptionId = await failingRenewals(ctx, 'payment failed event', 3);
          const events = await waitForTied(ctx, w, aboutSubscription(subscriptionId), Array(3).fill('subscription.payment_failed'), 'three failed attempts');
          assert.equal(objectsOf(events, 'subscription.payment_failed').length, 3, 'the renewal and the retries 1 and 3 days later: three events');
          assert.equal(
            objectsOf(await settledTied(ctx, w, aboutSubscription(subscriptionId)), 'subscription.payment_failed').length,
            3,
            'no more than one per attempt',
          );
        }),
    },
  ),
  clocked(
    'webhooks.events.subscription-past-due',
    '`subscription.past_due` is sent when a subscription becomes past due',
    EVENT_TYPES,
    [...WATCH, ...SUBSCRIBE],
    {
      run: (ctx) =>
        withWatch(ctx, SUBSCRIPTION_EVENTS, async (w) => {
          const subscriptionId = await failingRenewals(ctx, 'past due event', 1);
          assert.equal((await subscriptionOf(ctx, subscriptionId)).status, 'past_due');
          const events = await waitForTied(ctx, w, aboutSubscription(subscriptionId), ['subscription.past_due'], 'past due');
          const [pastDue] = objectsOf(events, 'subscription.past_due');
          assert.deepEqual([pastDue.status, pastDue.previousStatus], ['PastDue', 'Active']);
          assert.equal(
            objectsOf(await settledTied(ctx, w, aboutSubscription(subscriptionId)), 'subscription.past_due').length,
            1,
            'once, not again on a failed retry',
          );
        }),
    },
  ),
  clocked('webhooks.events.subscription-unpaid', '`subscription.unpaid` is sent when dunning is exhausted', EVENT_TYPES, [...WATCH, ...SUBSCRIBE], {
    run: (ctx) =>
      withWatch(ctx, SUBSCRIPTION_EVENTS, async (w) => {
        const subscriptionId = await failingRenewals(ctx, 'unpaid event', 7, INSUFFICIENT_FUNDS_LATER);
        assert.equal((await subscriptionOf(ctx, subscriptionId)).status, 'unpaid');
        const [unpaid] = objectsOf(
          await waitForTied(ctx, w, aboutSubscription(subscriptionId), ['subscription.unpaid'], 'dunning exhausted'),
          'subscription.unpaid',
        );
        assert.deepEqual([unpaid.status, unpaid.previousStatus], ['Unpaid', 'PastDue']);
      }),
  }),
  clocked(
    'webhooks.events.subscription-cancelled-twice',
    '`subscription.cancelled` is sent when cancellation is scheduled (status active, `cancelAtPeriodEnd` true, `cancelAt` = period end) and again when it takes effect (status `Canceled`, `canceledAt` set)',
    EVENT_TYPES,
    [...WATCH, ...SUBSCRIBE, 'cancelSubscription'],
    {
      run: (ctx) =>
        withWatch(ctx, SUBSCRIPTION_EVENTS, async (w) => {
          const { subscriptionId } = await dailySubscription(ctx, 'cancelled twice');
          const { currentPeriodEnd } = await subscriptionOf(ctx, subscriptionId);
          expectStatus(await subscriptionAction(ctx, subscriptionId, 'cancel'), 200, 'cancel (at the period end by default)');
          const [scheduled] = objectsOf(
            await waitForTied(ctx, w, aboutSubscription(subscriptionId), ['subscription.cancelled'], 'the schedule'),
            'subscription.cancelled',
          );
          assert.deepEqual([scheduled.status, scheduled.cancelAtPeriodEnd], ['Active', true]);
          assert.ok(sameInstant(scheduled.cancelAt, currentPeriodEnd), `cancelAt ${scheduled.cancelAt} is the period end ${currentPeriodEnd}`);
          await advancePast(ctx, currentPeriodEnd);
          const events = await waitForTied(ctx, w, aboutSubscription(subscriptionId), ['subscription.cancelled', 'subscription.cancelled'], 'the cancellation');
          const effective = objectsOf(events, 'subscription.cancelled')[1];
          assert.equal(effective.status, 'Canceled');
          assert.ok(sameInstant(effective.canceledAt, currentPeriodEnd), `canceledAt ${effective.canceledAt} is set, at the period end`);
        }),
    },
  ),
];
