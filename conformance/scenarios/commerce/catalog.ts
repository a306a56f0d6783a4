// The Commerce subscription catalog (commerce-api.md › Endpoints › Subscription catalog, ›
// Resources and their fields › Subscription catalog, › States and transitions) and the Commerce
// subscriptions (› Other listed operations): the same products, plans and subscriptions as the
// Checkout interface's, each in its own spelling. Lists are filtered to this run's objects (the
// merchant under test is shared by every run).
import assert from 'node:assert/strict';
import type { ConformanceContext, Scenario } from '../../types.js';
import { call, envelopeData, expectError, expectStatus } from '../fixtures/http.js';
import { secretKey, tag } from '../fixtures/keys.js';
import { COMMERCE_DOC, scenario, source } from '../fixtures/scenario.js';
import { trialSubscription } from '../fixtures/subscriptions.js';

const CONVENTIONS = source(COMMERCE_DOC, 'Resources and their fields', 'Conventions');
const CATALOG_FIELDS = source(COMMERCE_DOC, 'Resources and their fields', 'Subscription catalog');
const OTHER_STATES = source(COMMERCE_DOC, 'States and transitions', 'Other status values');
const CATALOG = source(COMMERCE_DOC, 'Endpoints', 'Subscription catalog');
const OTHER_OPS = source(COMMERCE_DOC, 'Endpoints', 'Other listed operations');

const PRODUCT = 'createSubscriptionProduct';
const PLAN = 'createSubscriptionPlan';
const ITEM = 'createSubscriptionInventoryItem';
const apiKey = (ctx: ConformanceContext) => ctx.options.apiKey ?? ctx.options.secretKey;
const commerce = (
  ctx: ConformanceContext,
  operationId: string,
  method: string,
  path: string,
  body?: unknown,
  query?: Record<string, string | number | boolean>,
) => call(ctx, 'commerce', operationId, { method, path, apiKey: apiKey(ctx), ...(body === undefined ? {} : { body }), ...(query ? { query } : {}) });

async function newProduct(ctx: ConformanceContext, label: string, extra: Record<string, unknown> = {}): Promise<any> {
  const res = await commerce(ctx, PRODUCT, 'POST', '/v1/SubscriptionProduct', { name: `Conformance ${tag(ctx)} ${label}`, ...extra });
  expectStatus(res, 201, 'create a subscription product');
  return res.json;
}
async function newPlan(ctx: ConformanceContext, productId: number, extra: Record<string, unknown> = {}, path = '/v1/SubscriptionPlan'): Promise<any> {
  const res = await commerce(ctx, PLAN, 'POST', path, {
    productId,
    name: `Conformance ${tag(ctx)}`,
    amount: '10.00',
    currency: 'USD',
    timeUnit: 'Month',
    ...extra,
  });
  expectStatus(res, 201, 'create a subscription plan');
  ctx.onCleanup(() => commerce(ctx, 'deleteSubscriptionPlan', 'DELETE', `/v1/SubscriptionPlan/${res.json.id}`));
  return res.json;
}
async function newItem(ctx: ConformanceContext, productId: number, label: string, status?: string): Promise<any> {
  const res = await commerce(ctx, ITEM, 'POST', '/v1/SubscriptionInventoryItem', {
    productId,
    serialNumber: `CF-${tag(ctx)}-${label}`,
    ...(status ? { status } : {}),
  });
  expectStatus(res, 201, 'create an inventory item');
  return res.json;
}
const list = async (ctx: ConformanceContext, operationId: string, path: string, query: Record<string, string | number | boolean>) => {
  const res = await commerce(ctx, operationId, 'GET', path, undefined, query);
  expectStatus(res, 200, `list ${path}`);
  return res.json;
};
const retrievePlan = async (ctx: ConformanceContext, id: number) =>
  envelopeData(
    await call(ctx, 'checkout', 'retrievePlan', { method: 'GET', path: `/v1/plans/${id}`, key: secretKey(ctx) }),
    200,
    'retrieve the plan on Checkout',
  );

const products: Scenario[] = [
  scenario(
    'commerce.catalog.products-crud',
    'Subscription products can be created (name required, description, subscriptionProductType), listed, changed with PATCH and deleted',
    CATALOG,
    [PRODUCT, 'listSubscriptionProducts', 'updateSubscriptionProduct', 'deleteSubscriptionProduct'],
    async (ctx) => {
      const p = await newProduct(ctx, 'crud', { description: 'Made by the conformance suite', subscriptionProductType: 'Digital' });
      assert.equal((await commerce(ctx, PRODUCT, 'POST', '/v1/SubscriptionProduct', { description: 'no name' })).status, 400, 'name is required');
      const changed = await commerce(ctx, 'updateSubscriptionProduct', 'PATCH', `/v1/SubscriptionProduct/${p.id}`, { description: 'Changed' });
      expectStatus(changed, 200, 'PATCH the description');
      assert.equal(changed.json.name, p.name, 'PATCH keeps the fields not sent');
      assert.equal(changed.json.description, 'Changed');
      assert.deepEqual(
        (await list(ctx, 'listSubscriptionProducts', '/v1/SubscriptionProduct', { $filter: `id eq ${p.id}` })).value.map((x: any) => x.description),
        ['Changed'],
      );
      expectStatus(await commerce(ctx, 'deleteSubscriptionProduct', 'DELETE', `/v1/SubscriptionProduct/${p.id}`), 204, 'delete the product');
      assert.deepEqual(
        (await list(ctx, 'listSubscriptionProducts', '/v1/SubscriptionProduct', { $filter: `id eq ${p.id}` })).value,
        [],
        'a deleted product is gone',
      );
    },
  ),
  scenario('commerce.catalog.product-types', '`subscriptionProductType` is `Service`, `Digital` or `Physical`', CATALOG_FIELDS, [PRODUCT], async (ctx) => {
    for (const type of ['Service', 'Digital', 'Physical'])
      assert.equal((await newProduct(ctx, type, { subscriptionProductType: type })).subscriptionProductType, type);
    expectError(await commerce(ctx, PRODUCT, 'POST', '/v1/SubscriptionProduct', { name: 'x', subscriptionProductType: 'Rental' }), 400, 'invalid_request');
  }),
  scenario(
    'commerce.catalog.products-expand-media',
    "`$expand=Media` includes each product's `media` [{mediaUrl, isPrimary}]",
    CATALOG,
    [PRODUCT, 'listSubscriptionProducts'],
    async (ctx) => {
      const media = [
        { mediaUrl: 'https://cdn.example.com/conformance-a.jpg', isPrimary: false },
        { mediaUrl: 'https://cdn.example.com/conformance-b.jpg', isPrimary: true },
      ];
      const p = await newProduct(ctx, 'media', { media });
      assert.deepEqual(p.media, media);
      const [expanded] = (await list(ctx, 'listSubscriptionProducts', '/v1/SubscriptionProduct', { $filter: `id eq ${p.id}`, $expand: 'Media' })).value;
      assert.deepEqual(expanded.media, media);
    },
  ),
  scenario(
    'commerce.catalog.products-list-odata',
    'The product list answers `value` and `@odata.count` (with `$count=true`) and takes $orderby, $top and $skip',
    CATALOG,
    [PRODUCT, 'listSubscriptionProducts'],
    async (ctx) => {
      const prefix = `Conformance ${tag(ctx)} odata`;
      for (const n of ['c', 'a', 'b']) await newProduct(ctx, `odata ${n}`);
      const query = { $filter: `startswith(name, '${prefix}')`, $orderby: 'name asc', $count: true };
      const all = await list(ctx, 'listSubscriptionProducts', '/v1/SubscriptionProduct', query);
      assert.equal(all['@odata.count'], 3);
      assert.deepEqual(
        all.value.map((p: any) => p.name.slice(-1)),
        ['a', 'b', 'c'],
      );
      const page = await list(ctx, 'listSubscriptionProducts', '/v1/SubscriptionProduct', { ...query, $top: 1, $skip: 1 });
      assert.deepEqual([page['@odata.count'], page.value.map((p: any) => p.name.slice(-1))], [3, ['b']]);
    },
  ),
  scenario(
    'commerce.catalog.product-shared-with-checkout',
    'A product created through `/v1/SubscriptionProduct` is the one `/v1/products` shows',
    CATALOG,
    [PRODUCT, 'retrieveProduct'],
    async (ctx) => {
      const p = await newProduct(ctx, 'shared', { subscriptionProductType: 'Physical' });
      const res = await call(ctx, 'checkout', 'retrieveProduct', { method: 'GET', path: `/v1/products/${p.id}`, key: secretKey(ctx) });
      expectStatus(res, 200, 'retrieve the product on Checkout');
      assert.deepEqual([res.json.id, res.json.name, res.json.type], [p.id, p.name, 'physical']);
    },
  ),
];

const plans: Scenario[] = [
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
      expectError(await commerce(ctx, 'updateSubscriptionPlan', 'PATCH', path, { status: 'Active' }), 409, 'conflict', 'invalid_state');
      const counts = await list(ctx, 'listSubscriptionPlans', '/v1/SubscriptionPlan', {
        $filter: `productId eq ${product.id} and status eq 'Archived'`,
        $count: true,
      });
      assert.equal(counts['@odata.count'], 2);
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

const inventory: Scenario[] = [
  scenario(
    'commerce.catalog.inventory-crud',
    'Inventory items (productId, serialNumber, status) can be created, listed, changed with PATCH and deleted',
    CATALOG,
    [PRODUCT, ITEM, 'listSubscriptionInventoryItems', 'updateSubscriptionInventoryItem', 'deleteSubscriptionInventoryItem'],
    async (ctx) => {
      const item = await newItem(ctx, (await newProduct(ctx, 'inventory')).id, 'crud');
      const changed = await commerce(ctx, 'updateSubscriptionInventoryItem', 'PATCH', `/v1/SubscriptionInventoryItem/${item.id}`, {
        serialNumber: `${item.serialNumber}-B`,
      });
      assert.deepEqual([changed.json.serialNumber, changed.json.status], [`${item.serialNumber}-B`, 'Available']);
      expectStatus(await commerce(ctx, 'deleteSubscriptionInventoryItem', 'DELETE', `/v1/SubscriptionInventoryItem/${item.id}`), 204, 'delete the item');
      assert.deepEqual((await list(ctx, 'listSubscriptionInventoryItems', '/v1/SubscriptionInventoryItem', { $filter: `id eq ${item.id}` })).value, []);
    },
  ),
  scenario(
    'commerce.catalog.inventory-fields',
    'An inventory item carries id, productId, productName, serialNumber, status and createdDateTime',
    CATALOG_FIELDS,
    [PRODUCT, ITEM],
    async (ctx) => {
      const product = await newProduct(ctx, 'item fields');
      const item = await newItem(ctx, product.id, 'fields');
      assert.deepEqual(Object.keys(item).sort(), ['createdDateTime', 'id', 'productId', 'productName', 'serialNumber', 'status']);
      assert.deepEqual([item.productId, item.productName, item.status], [product.id, product.name, 'Available']);
    },
  ),
  scenario(
    'commerce.catalog.inventory-status-moves',
    "An inventory item's status moves by PATCH of `status` to any listed value: Available, Reserved, Rented, Discontinued (and back)",
    OTHER_STATES,
    [PRODUCT, ITEM, 'updateSubscriptionInventoryItem', 'listSubscriptionInventoryItems'],
    async (ctx) => {
      const item = await newItem(ctx, (await newProduct(ctx, 'moves')).id, 'moves');
      for (const status of ['Reserved', 'Rented', 'Discontinued', 'Available', 'Rented', 'Available']) {
        const moved = await commerce(ctx, 'updateSubscriptionInventoryItem', 'PATCH', `/v1/SubscriptionInventoryItem/${item.id}`, { status });
        expectStatus(moved, 200, `move to ${status}`);
        assert.equal(
          (await list(ctx, 'listSubscriptionInventoryItems', '/v1/SubscriptionInventoryItem', { $filter: `id eq ${item.id}` })).value[0].status,
          status,
        );
      }
    },
  ),
  scenario(
    'commerce.catalog.inventory-filter',
    'The inventory list filters by `status` and `productId`, and takes $orderby, $top, $skip and $count',
    CATALOG,
    [PRODUCT, ITEM, 'listSubscriptionInventoryItems'],
    async (ctx) => {
      const product = await newProduct(ctx, 'inventory filter');
      for (const [label, status] of [
        ['c', 'Available'],
        ['a', 'Available'],
        ['b', 'Reserved'],
        ['d', 'Available'],
      ])
        await newItem(ctx, product.id, label!, status);
      const query = { $filter: `productId eq ${product.id} and status eq 'Available'`, $orderby: 'serialNumber asc', $count: true, $top: 2, $skip: 1 };
      const page = await list(ctx, 'listSubscriptionInventoryItems', '/v1/SubscriptionInventoryItem', query);
      assert.equal(page['@odata.count'], 3);
      assert.deepEqual(
        page.value.map((i: any) => i.serialNumber.slice(-1)),
        ['c', 'd'],
      );
    },
  ),
];

const subscriptions: Scenario[] = [
  scenario(
    'commerce.other.subscriptions',
    '`GET /v1/subscription` lists subscriptions and `POST /v1/subscription/{id}/cancel` cancels one',
    OTHER_OPS,
    ['createCheckoutSession', 'listCommerceSubscriptions', 'cancelCommerceSubscription'],
    async (ctx) => {
      const { subscriptionId } = await trialSubscription(ctx, 'commerce-subscription');
      const [row] = (await list(ctx, 'listCommerceSubscriptions', '/v1/subscription', { $filter: `id eq ${subscriptionId}` })).value;
      assert.deepEqual([row?.id, row?.status], [subscriptionId, 'Trialing'], `the Checkout subscription in the Commerce list: ${JSON.stringify(row)}`);
      const scheduled = await commerce(ctx, 'cancelCommerceSubscription', 'POST', `/v1/subscription/${subscriptionId}/cancel`);
      expectStatus(scheduled, 200, 'cancel at period end (no body)');
      assert.deepEqual([scheduled.json.status, scheduled.json.cancelAtPeriodEnd, scheduled.json.cancelAt], ['Trialing', true, row.currentPeriodEnd]);
      const now = await commerce(ctx, 'cancelCommerceSubscription', 'POST', `/v1/subscription/${subscriptionId}/cancel`, {
        cancelAtPeriodEnd: false,
        reason: 'conformance',
      });
      assert.equal(now.json.status, 'Canceled');
      assert.equal(
        (await list(ctx, 'listCommerceSubscriptions', '/v1/subscription', { $filter: `id eq ${subscriptionId} and status eq 'Canceled'`, $count: true }))[
          '@odata.count'
        ],
        1,
      );
    },
  ),
];

export const catalogScenarios: Scenario[] = [...products, ...plans, ...inventory, ...subscriptions];
