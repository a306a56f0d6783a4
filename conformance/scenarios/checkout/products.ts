// Products (checkout-billing-api.md › Products): create and retrieve, the required name, the
// plan's product, and another merchant's product.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { idsOf, newPlan, newProduct } from '../fixtures/catalog.js';
import { call, expectError, expectStatus } from '../fixtures/http.js';
import { otherSecretKey, secretKey, tag } from '../fixtures/keys.js';
import { PRODUCT_ENDPOINTS, PRODUCT_FIELDS } from '../fixtures/sections.js';

export const products: Scenario[] = [
  {
    id: 'checkout.products.create-and-retrieve',
    title: 'Creating a product with `name` and `description` answers it; retrieving answers the same product',
    source: PRODUCT_FIELDS,
    requires: ['createProduct', 'retrieveProduct'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'create');
      assert.equal(typeof product.id, 'number');
      assert.equal(product.name, `Conformance ${tag(ctx)} create`);
      assert.equal(product.description, `Made by conformance run ${ctx.runId}`);
      const read = await call(ctx, 'checkout', 'retrieveProduct', { method: 'GET', path: `/v1/products/${product.id}`, key: secretKey(ctx) });
      expectStatus(read, 200, 'retrieve');
      assert.deepEqual(read.json, product);
    },
  },
  {
    id: 'checkout.products.name-required',
    title: 'A product needs a `name`; without one it is refused with 400 naming it',
    source: PRODUCT_ENDPOINTS,
    requires: ['createProduct'],
    serverOnly: true,
    async run(ctx) {
      expectError(
        await call(ctx, 'checkout', 'createProduct', { method: 'POST', path: '/v1/products', key: secretKey(ctx), body: { description: 'Nameless' } }),
        400,
        'invalid_request',
        undefined,
        'name',
      );
    },
  },
  {
    id: 'checkout.products.plan-product-id',
    title: "Every plan belongs to a product: the plan's `productId` is the product's id",
    source: PRODUCT_ENDPOINTS,
    requires: ['createProduct', 'createPlan'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'owner');
      const plan = await newPlan(ctx, product.id, 'owned');
      assert.equal(plan.productId, product.id);
    },
  },
  {
    id: 'checkout.products.other-merchant-404',
    title: "Another merchant's product answers 404 and is not listed",
    source: PRODUCT_ENDPOINTS,
    requires: ['createProduct', 'retrieveProduct', 'listProducts'],
    serverOnly: true,
    async run(ctx) {
      const theirs = await newProduct(ctx, 'their product', await otherSecretKey(ctx));
      const mine = await newProduct(ctx, 'my sentinel');
      expectError(await call(ctx, 'checkout', 'retrieveProduct', { method: 'GET', path: `/v1/products/${theirs.id}`, key: secretKey(ctx) }), 404, 'not_found');
      const page = await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: secretKey(ctx), query: { limit: 100 } });
      assert.ok(idsOf(page.json).includes(mine.id), 'my newest product is listed');
      assert.ok(!idsOf(page.json).includes(theirs.id), "another merchant's product must not be listed");
    },
  },
];
