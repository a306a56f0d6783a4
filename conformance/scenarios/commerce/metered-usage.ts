// Metered (`Usage`) plans on the Commerce interface (issue 35 §9, Till's design: commerce-api.md
// names the `Usage` billing type, "metered", but no way to report usage): usage is recorded on a
// subscription of a Usage plan, once per usageId; other subscriptions are refused.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { CATALOG, commerce } from '../fixtures/commerce-catalog.js';
import { expectError, expectStatus } from '../fixtures/http.js';
import { commerceUsage, meteredSubscription, START_METERED } from '../fixtures/metered.js';
import { SUBSCRIBE_TRIAL } from '../fixtures/operations.js';
import { scenario } from '../fixtures/scenario.js';
import { trialSubscription } from '../fixtures/subscriptions.js';

export const commerceMeteredUsage: Scenario[] = [
  scenario(
    'commerce.subscriptions.metered-usage',
    'A subscription on a `Usage` plan (metered) takes usage through `POST /v1/subscription/{id}/usage`, once per `usageId`, and shows `isMetered` true; any other subscription is refused with 400 `subscription_item_not_metered`',
    CATALOG,
    [...START_METERED, ...SUBSCRIBE_TRIAL, 'recordCommerceSubscriptionUsage', 'listCommerceSubscriptions'],
    async (ctx) => {
      const subscription = await meteredSubscription(ctx, 'commerce usage', '0.10');
      const usageId = `conf-${ctx.runId}-c1`;
      const first = await commerceUsage(ctx, subscription.id, { quantity: 25, usageId });
      expectStatus(first, 201, 'record 25 units');
      assert.deepEqual([first.json.created, first.json.periodUsage, first.json.periodAmount], [true, 25, '2.50']);
      const again = await commerceUsage(ctx, subscription.id, { quantity: 25, usageId });
      expectStatus(again, 200, 'the same report again');
      assert.deepEqual([again.json.id, again.json.created, again.json.periodUsage], [first.json.id, false, 25], 'not counted twice');
      expectError(await commerceUsage(ctx, subscription.id, { quantity: 26, usageId }), 409, 'conflict', 'idempotency_key_reused', 'usageId');
      const listed = await commerce(ctx, 'listCommerceSubscriptions', 'GET', '/v1/subscription', undefined, { $filter: `id eq ${subscription.id}` });
      expectStatus(listed, 200, 'list the subscription');
      assert.deepEqual(
        listed.json.value.map((s: any) => [s.isMetered, s.subscriptionBillingType]),
        [[true, 'Usage']],
      );
      const trial = await trialSubscription(ctx, 'commerce not metered');
      expectError(await commerceUsage(ctx, trial.subscriptionId, { quantity: 1 }), 400, 'invalid_request', 'subscription_item_not_metered');
    },
  ),
];
