// Subscription plan changes with their proration (`changeSubscriptionPlan`, `previewSubscriptionPlanChange`):
// the proration rule checked to the minor unit, and the changes refused.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { newPlan } from '../fixtures/catalog.js';
import { advanceClock, sameInstant } from '../fixtures/clock.js';
import { settledSubscriptionEvents, waitForEvent, withWatch } from '../fixtures/events.js';
import { envelopeData, expectEnvelopeError, expectStatus } from '../fixtures/http.js';
import { SUBSCRIBE, WATCH } from '../fixtures/operations.js';
import { clocked } from '../fixtures/scenario.js';
import { SUBSCRIPTION_ENDPOINTS } from '../fixtures/sections.js';
import {
  advancePast,
  changePlan,
  DAILY,
  DECLINES_LATER,
  paidSubscription,
  previewPlanChange,
  subscriptionInvoices,
  subscriptionOf,
  subscriptionParts,
} from '../fixtures/subscriptions.js';

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
export const planChanges: Scenario[] = [
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
