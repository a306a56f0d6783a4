// Metered (`Usage`) plans on the Checkout interface (issue 35 §9, Till's design where the document
// only names `isMetered`): usage is recorded on a metered item, once per usageId, and each period's
// usage is billed at the period's end as an invoice line (units × the unit price).
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { call, envelopeData, expectEnvelopeError, expectStatus } from '../fixtures/http.js';
import { secretKey } from '../fixtures/keys.js';
import { checkoutUsage, meteredSubscription, START_METERED } from '../fixtures/metered.js';
import { SUBSCRIBE_TRIAL } from '../fixtures/operations.js';
import { clocked, scenario } from '../fixtures/scenario.js';
import { SUBSCRIPTION_FIELDS } from '../fixtures/sections.js';
import { advancePast, trialSubscription, subscriptionOf } from '../fixtures/subscriptions.js';

export const meteredUsage: Scenario[] = [
  scenario(
    'checkout.subscriptions.metered-usage-recorded',
    'A subscription item on a Usage plan has `isMetered` true and takes usage records (once per `usageId`, in the current period); a non-metered item is refused with 400 `subscription_item_not_metered`',
    SUBSCRIPTION_FIELDS,
    [...START_METERED, 'createUsageRecord'],
    async (ctx) => {
      const subscription = await meteredSubscription(ctx, 'metered usage');
      assert.equal(subscription.status, 'active', 'a metered subscription starts active');
      const [item] = subscription.items;
      assert.equal(item.isMetered, true, `items[0].isMetered: ${JSON.stringify(item)}`);
      const first = envelopeData(await checkoutUsage(ctx, item.id, { quantity: 30, usageId: `conf-${ctx.runId}-1` }), 201, 'record 30 units');
      assert.deepEqual([first.created, first.periodUsage, first.periodAmount], [true, 30, 7.5]);
      const again = envelopeData(await checkoutUsage(ctx, item.id, { quantity: 30, usageId: `conf-${ctx.runId}-1` }), 200, 'the same report again');
      assert.deepEqual([again.id, again.created, again.periodUsage], [first.id, false, 30], 'a repeated usageId is not counted twice');
      const early = await checkoutUsage(ctx, item.id, { quantity: 1, timestamp: new Date(Date.parse(subscription.currentPeriodStart) - 60_000).toISOString() });
      expectEnvelopeError(early, 400, 'invalid_request', 'validation_error', 'timestamp');
      const trial = await trialSubscription(ctx, 'not metered');
      const recurringItem = (await subscriptionOf(ctx, trial.subscriptionId)).items[0];
      assert.equal(recurringItem.isMetered, false, 'a Recurring plan item is not metered');
      expectEnvelopeError(await checkoutUsage(ctx, recurringItem.id, { quantity: 1 }), 400, 'invalid_request', 'subscription_item_not_metered');
    },
  ),
  clocked(
    'checkout.subscriptions.metered-usage-billed',
    "At the end of a metered subscription's period its usage is billed as an invoice line: quantity = the units used, unitAmount = the plan's unit price",
    SUBSCRIPTION_FIELDS,
    [...START_METERED, ...SUBSCRIBE_TRIAL, 'createUsageRecord', 'listSubscriptionInvoices', 'retrieveInvoice'],
    {
      async run(ctx) {
        const subscription = await meteredSubscription(ctx, 'metered billing', '0.25');
        envelopeData(await checkoutUsage(ctx, subscription.items[0].id, { quantity: 40 }), 201, 'record 40 units');
        await advancePast(ctx, subscription.currentPeriodEnd);
        const invoices = envelopeData(
          await call(ctx, 'checkout', 'listSubscriptionInvoices', {
            method: 'GET',
            path: `/v1/subscriptions/${subscription.id}/invoices`,
            key: secretKey(ctx),
          }),
          200,
          "list the subscription's invoices",
        );
        assert.equal(invoices.data.length, 1, `one invoice for the period: ${JSON.stringify(invoices.data).slice(0, 300)}`);
        const invoice = await call(ctx, 'checkout', 'retrieveInvoice', { method: 'GET', path: `/v1/invoices/${invoices.data[0].id}`, key: secretKey(ctx) });
        expectStatus(invoice, 200, 'retrieve the invoice');
        assert.equal(invoice.json.lineItems.length, 1, `one usage line: ${JSON.stringify(invoice.json.lineItems)}`);
        const [line] = invoice.json.lineItems;
        assert.deepEqual([line.quantity, line.unitAmount, line.total], [40, 0.25, 10], `40 units × 0.25: ${JSON.stringify(line)}`);
      },
    },
  ),
];
