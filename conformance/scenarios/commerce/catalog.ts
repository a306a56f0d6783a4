// The Commerce subscription catalog's products and inventory items, and the Commerce subscriptions
// (commerce-api.md › Endpoints › Subscription catalog, › Other listed operations): the same products and
// subscriptions as the Checkout interface's, in its own spelling. Plans are in catalog-plans.ts. Lists are
// filtered to this run's objects (the merchant under test is shared by every run).
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { call, expectError, expectStatus } from '../fixtures/http.js';
import { secretKey, tag } from '../fixtures/keys.js';
import { scenario } from '../fixtures/scenario.js';
import { trialSubscription } from '../fixtures/subscriptions.js';
import {
  CATALOG,
  CATALOG_FIELDS,
  commerce,
  ITEM,
  list,
  newItem,
  newPlan,
  newProduct,
  OTHER_OPS,
  OTHER_STATES,
  PLAN,
  PRODUCT,
} from '../fixtures/commerce-catalog.js';

export const catalogProducts: Scenario[] = [
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
  scenario(
    'commerce.catalog.product-delete-in-use',
    'Deleting a product with plans (archived too) answers 409 `invalid_state` and keeps it; one with inventory items is kept until they are deleted',
    CATALOG,
    [PRODUCT, PLAN, ITEM, 'deleteSubscriptionPlan', 'deleteSubscriptionInventoryItem', 'deleteSubscriptionProduct', 'listSubscriptionProducts'],
    async (ctx) => {
      const del = (id: number) => commerce(ctx, 'deleteSubscriptionProduct', 'DELETE', `/v1/SubscriptionProduct/${id}`);
      const kept = async (id: number) => (await list(ctx, 'listSubscriptionProducts', '/v1/SubscriptionProduct', { $filter: `id eq ${id}` })).value.length;
      const withPlan = await newProduct(ctx, 'delete with plan');
      const plan = await newPlan(ctx, withPlan.id);
      expectStatus(await commerce(ctx, 'deleteSubscriptionPlan', 'DELETE', `/v1/SubscriptionPlan/${plan.id}`), 200, 'archive its plan');
      expectError(await del(withPlan.id), 409, 'conflict', 'invalid_state');
      assert.equal(await kept(withPlan.id), 1, 'a product with plans is kept');
      const withItem = await newProduct(ctx, 'delete with item');
      const item = await newItem(ctx, withItem.id, 'delete');
      expectError(await del(withItem.id), 409, 'conflict', 'invalid_state');
      expectStatus(await commerce(ctx, 'deleteSubscriptionInventoryItem', 'DELETE', `/v1/SubscriptionInventoryItem/${item.id}`), 204, 'delete its item');
      expectStatus(await del(withItem.id), 204, 'delete the product once its items are gone');
      assert.equal(await kept(withItem.id), 0);
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

export const catalogInventory: Scenario[] = [
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

export const catalogSubscriptions: Scenario[] = [
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
