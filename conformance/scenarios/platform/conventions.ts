// Conventions: the object discriminator, the envelope, camelCase JSON with ISO timestamps, money as
// numbers, HTTPS.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { newPlan, newProduct, postCustomer } from '../fixtures/catalog.js';
import { call, envelopeData } from '../fixtures/http.js';
import { emailFor, secretKey } from '../fixtures/keys.js';
import { CHECKOUT_DOC, source } from '../fixtures/scenario.js';
import { CONVENTIONS } from '../fixtures/sections.js';

export const conventions: Scenario[] = [
  {
    id: 'platform.conventions.object-discriminator',
    title: 'A successful call returns the resource itself, with its `object` discriminator (`product`, `plan`, `customer`, `list`)',
    source: CONVENTIONS,
    requires: ['createProduct', 'listProducts', 'createPlan', 'listPlans', 'createCustomer', 'listCustomers'],
    serverOnly: true,
    async run(ctx) {
      const sk = secretKey(ctx);
      const product = await newProduct(ctx, 'discriminator');
      assert.equal(product.object, 'product', 'a product answers object "product" at the top level');
      const plan = await newPlan(ctx, product.id, 'discriminator');
      assert.equal(plan.object, 'plan', 'a plan carries object "plan"');
      const customer = envelopeData(await postCustomer(ctx, { email: emailFor(ctx, 'discriminator') }), 201, 'create a customer');
      assert.equal(customer.object, 'customer', 'a customer carries object "customer"');
      const products = await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: sk, query: { limit: 1 } });
      assert.equal(products.json.object, 'list', 'the product list carries object "list"');
      assert.equal(
        envelopeData(await call(ctx, 'checkout', 'listPlans', { method: 'GET', path: '/v1/plans', key: sk, query: { limit: 1 } }), 200, 'list plans').object,
        'list',
      );
      assert.equal(
        envelopeData(
          await call(ctx, 'checkout', 'listCustomers', { method: 'GET', path: '/v1/customers', key: sk, query: { limit: 1 } }),
          200,
          'list customers',
        ).object,
        'list',
      );
    },
  },
  {
    id: 'platform.conventions.envelope',
    title: 'Plan and customer endpoints answer inside the envelope `{success, errorCode, errorMessage, data}`; products answer the object directly',
    source: CONVENTIONS,
    requires: ['createProduct', 'retrieveProduct', 'createPlan', 'retrievePlan', 'createCustomer', 'retrieveCustomer'],
    serverOnly: true,
    async run(ctx) {
      const sk = secretKey(ctx);
      const product = await newProduct(ctx, 'envelope');
      const direct = await call(ctx, 'checkout', 'retrieveProduct', { method: 'GET', path: `/v1/products/${product.id}`, key: sk });
      assert.equal(direct.json.success, undefined, 'a product is not wrapped in the envelope');
      assert.equal(direct.json.id, product.id);
      const plan = await newPlan(ctx, product.id, 'envelope');
      assert.equal(
        envelopeData(await call(ctx, 'checkout', 'retrievePlan', { method: 'GET', path: `/v1/plans/${plan.id}`, key: sk }), 200, 'retrieve plan').id,
        plan.id,
      );
      const customer = envelopeData(await postCustomer(ctx, { email: emailFor(ctx, 'envelope') }), 201, 'create customer');
      assert.equal(
        envelopeData(
          await call(ctx, 'checkout', 'retrieveCustomer', { method: 'GET', path: `/v1/customers/${customer.id}`, key: sk }),
          200,
          'retrieve customer',
        ).id,
        customer.id,
      );
    },
  },
  {
    id: 'platform.conventions.json-camelcase-iso-timestamps',
    title: 'Bodies are JSON with camelCase field names; timestamps are ISO 8601 with a `Z` or `+00:00` suffix',
    source: CONVENTIONS,
    requires: ['createProduct', 'createPlan', 'createCustomer'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'conventions');
      const plan = await newPlan(ctx, product.id, 'conventions');
      const customer = envelopeData(await postCustomer(ctx, { email: emailFor(ctx, 'conventions'), metadata: { order: '1' } }), 201, 'create customer');
      for (const [what, obj] of [
        ['product', product],
        ['plan', plan],
        ['customer', customer],
      ] as const) {
        for (const field of Object.keys(obj)) assert.match(field, /^[a-z][a-zA-Z0-9]*$/, `${what} field ${field} must be camelCase`);
        assert.match(obj.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|\+00:00)$/, `${what}.createdAt must be ISO 8601 UTC`);
      }
    },
  },
  {
    id: 'platform.conventions.money-numbers',
    title: 'Money amounts are JSON numbers (decimals), kept exactly',
    source: CONVENTIONS,
    requires: ['createProduct', 'createPlan', 'retrievePlan'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'money');
      const plan = await newPlan(ctx, product.id, 'money', { amount: 49.99 });
      assert.equal(plan.amount, 49.99, 'the amount must come back as the number 49.99');
      const read = envelopeData(
        await call(ctx, 'checkout', 'retrievePlan', { method: 'GET', path: `/v1/plans/${plan.id}`, key: secretKey(ctx) }),
        200,
        'retrieve plan',
      );
      assert.equal(typeof read.amount, 'number', 'amount is a JSON number');
      assert.equal(read.amount, 49.99);
    },
  },
  {
    id: 'platform.conventions.https-only',
    title:
      "The service is served over HTTPS only: a deployment's plain-HTTP address does not serve the API (refused, or sent to https); a server on loopback, behind no TLS terminator, is the one exception",
    source: source(CHECKOUT_DOC, 'Checkout and Subscription Billing API'),
    requires: ['listProducts'],
    serverOnly: true,
    async run(ctx) {
      const base = new URL(ctx.options.baseUrl);
      const loopback = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/i.test(base.hostname);
      if (base.protocol === 'http:') {
        assert.ok(loopback, `${base.origin} serves the API over plain HTTP; a deployment must be https`);
        return;
      }
      assert.equal(base.protocol, 'https:', `the base URL must be https, got ${base.protocol}`);
      const plain = new URL(`/v1/products?limit=1`, `http://${base.hostname}`);
      let answer: Response | undefined;
      try {
        answer = await fetch(plain, { headers: { Authorization: `Bearer ${secretKey(ctx)}` }, redirect: 'manual', signal: AbortSignal.timeout(5000) });
      } catch {
        return; // Nothing listens on plain HTTP: refused.
      }
      if (answer.status >= 300 && answer.status < 400) {
        assert.match(answer.headers.get('location') ?? '', /^https:/, 'plain HTTP redirects to https');
        return;
      }
      assert.ok(answer.status >= 400, `plain HTTP must not serve the API: ${plain.href} answered ${answer.status}`);
    },
  },
];
