// The Commerce subscription catalog's plans (commerce-api.md › Resources and their fields › Subscription
// catalog, › States and transitions): fields, amounts as decimal strings, states, and the same plan as the
// Checkout interface's.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { call, envelopeData, expectError, expectStatus } from '../fixtures/http.js';
import { secretKey, tag } from '../fixtures/keys.js';
import { scenario } from '../fixtures/scenario.js';
import {
  CATALOG,
  CATALOG_FIELDS,
  commerce,
  CONVENTIONS,
  list,
  newPlan,
  newProduct,
  OTHER_OPS,
  OTHER_STATES,
  PLAN,
  PRODUCT,
  retrievePlan,
} from '../fixtures/commerce-catalog.js';

export const catalogPlans: Scenario[] = [
  scenario(
    'commerce.catalog.plans-crud',
    'Subscription plans can be created, listed, changed with PATCH and deleted',
    CATALOG,
    [PRODUCT, PLAN, 'listSubscriptionPlans', 'updateSubscriptionPlan', 'deleteSubscriptionPlan'],
    async (ctx) => {
      const plan = await newPlan(ctx, (await newProduct(ctx, 'plans')).id, { description: 'Kept' });
      const renamed = await commerce(ctx, 'updateSubscriptionPlan', 'PATCH', `/v1/SubscriptionPlan/${plan.id}`, { name: 'Renamed' });
      expectStatus(renamed, 200, 'PATCH the name');
      assert.deepEqual([renamed.json.name, renamed.json.description, renamed.json.amount], ['Renamed', 'Kept', '10.00']);
      const deleted = await commerce(ctx, 'deleteSubscriptionPlan', 'DELETE', `/v1/SubscriptionPlan/${plan.id}`);
      expectStatus(deleted, 200, 'delete (archive) the plan');
      assert.equal(deleted.json.status, 'Archived');
      assert.deepEqual(
        (await list(ctx, 'listSubscriptionPlans', '/v1/SubscriptionPlan', { $filter: `id eq ${plan.id}` })).value.map((p: any) => p.status),
        ['Archived'],
      );
    },
  ),
  scenario('commerce.catalog.plan-amount-string', "A catalog plan's `amount` is a decimal string", CONVENTIONS, [PRODUCT, PLAN], async (ctx) => {
    const plan = await newPlan(ctx, (await newProduct(ctx, 'amount')).id, { amount: '1234.5' });
    assert.equal(plan.amount, '1234.50');
  }),
  scenario(
    'commerce.catalog.plan-fields',
    'A catalog plan carries id, merchantId, productId, productName, name, description, details, status, amount, currency, timeUnit (Day, Week, Month, Year), timeInterval, subscriptionBillingType (Recurring, OneTime, Usage), validFrom and validTo',
    CATALOG_FIELDS,
    [PRODUCT, PLAN],
    async (ctx) => {
      const product = await newProduct(ctx, 'fields');
      for (const [timeUnit, subscriptionBillingType] of [
        ['Day', 'Recurring'],
        ['Week', 'OneTime'],
        ['Month', 'Usage'],
        ['Year', 'Recurring'],
      ]) {
        const plan = await newPlan(ctx, product.id, { timeUnit, subscriptionBillingType, details: 'Details' });
        for (const f of [
          'id',
          'merchantId',
          'productId',
          'productName',
          'name',
          'description',
          'details',
          'status',
          'amount',
          'currency',
          'timeUnit',
          'timeInterval',
          'subscriptionBillingType',
          'validFrom',
          'validTo',
        ])
          assert.ok(f in plan, `${f} in ${JSON.stringify(plan)}`);
        assert.deepEqual([plan.productName, plan.timeUnit, plan.subscriptionBillingType], [product.name, timeUnit, subscriptionBillingType]);
      }
    },
  ),
  scenario(
    'commerce.catalog.plan-periods',
    '`timeInterval` counts `timeUnit`s: Month 1 is monthly, Month 3 quarterly, Day 7 weekly',
    CATALOG_FIELDS,
    [PRODUCT, PLAN, 'retrievePlan'],
    async (ctx) => {
      const product = await newProduct(ctx, 'periods');
      for (const [timeUnit, timeInterval] of [
        ['Month', 1],
        ['Month', 3],
        ['Day', 7],
      ] as const) {
        const plan = await newPlan(ctx, product.id, { timeUnit, timeInterval });
        const checkout = await retrievePlan(ctx, plan.id);
        assert.deepEqual([checkout.interval, checkout.intervalCount], [timeUnit.toLowerCase(), timeInterval]);
      }
    },
  ),
  scenario(
    'commerce.catalog.plans-filter',
    'The plan list filters with `$filter` by productId and status, and takes $expand, $top, $skip and $count',
    CATALOG,
    [PRODUCT, PLAN, 'listSubscriptionPlans'],
    async (ctx) => {
      const product = await newProduct(ctx, 'filter');
      const [a, , c] = [await newPlan(ctx, product.id), await newPlan(ctx, product.id, { status: 'Inactive' }), await newPlan(ctx, product.id)];
      const query = { $filter: `productId eq ${product.id} and status eq 'Active'`, $count: true, $expand: 'Product' };
      const page = await list(ctx, 'listSubscriptionPlans', '/v1/SubscriptionPlan', { ...query, $top: 1, $skip: 1 });
      assert.equal(page['@odata.count'], 2);
      assert.deepEqual(
        page.value.map((p: any) => p.id),
        [a.id],
        'newest first, second item',
      );
      assert.equal(page.value[0].product?.id, product.id, '$expand=Product');
      assert.deepEqual(
        (await list(ctx, 'listSubscriptionPlans', '/v1/SubscriptionPlan', { ...query, $top: 1 })).value.map((p: any) => p.id),
        [c.id],
      );
    },
  ),
  scenario(
    'commerce.catalog.plan-status-values',
    'Plan status values are `Active`, `Inactive` and `Archived`, set through create and update',
    OTHER_STATES,
    [PRODUCT, PLAN, 'updateSubscriptionPlan', 'listSubscriptionPlans'],
    async (ctx) => {
      const product = await newProduct(ctx, 'status');
      for (const status of ['Active', 'Inactive', 'Archived']) assert.equal((await newPlan(ctx, product.id, { status })).status, status);
      const plan = await newPlan(ctx, product.id);
      const path = `/v1/SubscriptionPlan/${plan.id}`;
      for (const status of ['Inactive', 'Active', 'Archived'])
        assert.equal((await commerce(ctx, 'updateSubscriptionPlan', 'PATCH', path, { status })).json.status, status);
      const counts = await list(ctx, 'listSubscriptionPlans', '/v1/SubscriptionPlan', {
        $filter: `productId eq ${product.id} and status eq 'Archived'`,
        $count: true,
      });
      assert.equal(counts['@odata.count'], 2);
    },
  ),
  scenario(
    'commerce.catalog.plan-unarchive',
    'An archived plan can be made `Active` or `Inactive` again through update; any other change to it answers 409 `invalid_state`',
    OTHER_STATES,
    [PRODUCT, PLAN, 'deleteSubscriptionPlan', 'updateSubscriptionPlan', 'retrievePlan'],
    async (ctx) => {
      const plan = await newPlan(ctx, (await newProduct(ctx, 'unarchive')).id);
      const path = `/v1/SubscriptionPlan/${plan.id}`;
      for (const status of ['Inactive', 'Active']) {
        expectStatus(await commerce(ctx, 'deleteSubscriptionPlan', 'DELETE', path), 200, 'archive the plan');
        expectError(await commerce(ctx, 'updateSubscriptionPlan', 'PATCH', path, { name: 'Renamed' }), 409, 'conflict', 'invalid_state');
        const back = await commerce(ctx, 'updateSubscriptionPlan', 'PATCH', path, { status });
        expectStatus(back, 200, `make the archived plan ${status}`);
        assert.equal(back.json.status, status);
        const checkout = await retrievePlan(ctx, plan.id);
        assert.deepEqual([checkout.status, checkout.active], ['available', status === 'Active'], 'the Checkout interface shows it available again');
      }
      expectStatus(await commerce(ctx, 'deleteSubscriptionPlan', 'DELETE', path), 200, 'archive it at the end');
    },
  ),
  scenario(
    'commerce.catalog.plan-shared-with-checkout',
    'A plan created through `/v1/SubscriptionPlan` is the same plan `/v1/plans` shows (amount as a number, timeUnit as interval, timeInterval as intervalCount)',
    CATALOG,
    [PRODUCT, PLAN, 'retrievePlan', 'listPlans'],
    async (ctx) => {
      const plan = await newPlan(ctx, (await newProduct(ctx, 'to-checkout')).id, { amount: '29.90', timeUnit: 'Week', timeInterval: 2 });
      const checkout = await retrievePlan(ctx, plan.id);
      assert.deepEqual([checkout.amount, checkout.interval, checkout.intervalCount, checkout.status, checkout.active], [29.9, 'week', 2, 'available', true]);
      const listed = envelopeData(
        await call(ctx, 'checkout', 'listPlans', { method: 'GET', path: '/v1/plans', key: secretKey(ctx), query: { limit: 100 } }),
        200,
        'list plans',
      );
      assert.ok(
        listed.data.some((p: any) => p.id === plan.id),
        'the Checkout plan list shows it',
      );
    },
  ),
  scenario(
    'commerce.catalog.checkout-plan-in-catalog',
    'A plan created through `/v1/plans` shows in `/v1/SubscriptionPlan`, and archiving it there shows `Archived`',
    CATALOG,
    ['createProduct', 'createPlan', 'archivePlan', 'listSubscriptionPlans'],
    async (ctx) => {
      const product = await call(ctx, 'checkout', 'createProduct', {
        method: 'POST',
        path: '/v1/products',
        key: secretKey(ctx),
        body: { name: `Conformance ${tag(ctx)} from checkout` },
      });
      expectStatus(product, 201, 'create a product on Checkout');
      const plan = envelopeData(
        await call(ctx, 'checkout', 'createPlan', {
          method: 'POST',
          path: '/v1/plans',
          key: secretKey(ctx),
          body: { productId: product.json.id, name: 'From Checkout', amount: 12.5, currency: 'USD', interval: 'month', intervalCount: 3 },
        }),
        201,
        'create a plan on Checkout',
      );
      const [row] = (await list(ctx, 'listSubscriptionPlans', '/v1/SubscriptionPlan', { $filter: `id eq ${plan.id}` })).value;
      assert.deepEqual([row.amount, row.timeUnit, row.timeInterval, row.status], ['12.50', 'Month', 3, 'Active']);
      envelopeData(
        await call(ctx, 'checkout', 'archivePlan', { method: 'DELETE', path: `/v1/plans/${plan.id}`, key: secretKey(ctx) }),
        200,
        'archive on Checkout',
      );
      assert.equal((await list(ctx, 'listSubscriptionPlans', '/v1/SubscriptionPlan', { $filter: `id eq ${plan.id}` })).value[0].status, 'Archived');
    },
  ),
  scenario(
    'commerce.other.subscription-plan-lowercase',
    '`POST /v1/subscriptionPlan` (as listed, lower-case) creates a plan',
    OTHER_OPS,
    [PRODUCT, PLAN],
    async (ctx) => {
      const plan = await newPlan(ctx, (await newProduct(ctx, 'lower')).id, {}, '/v1/subscriptionPlan');
      assert.equal(plan.amount, '10.00');
    },
  ),
];
