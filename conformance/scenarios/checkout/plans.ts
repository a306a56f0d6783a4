// Plans (checkout-billing-api.md › Plans): fields, intervals, the product a plan belongs to, drafts,
// retrieval, update and archive. The list and the plan states are in plan-lists-and-states.ts.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { newPlan, newProduct, retrievePlan } from '../fixtures/catalog.js';
import { call, envelopeData, expectEnvelopeError } from '../fixtures/http.js';
import { otherSecretKey, secretKey, tag } from '../fixtures/keys.js';
import { PLAN_ENDPOINTS, PLAN_FIELDS, PLAN_STATES, PRODUCT_ENDPOINTS } from '../fixtures/sections.js';

export const plans: Scenario[] = [
  {
    id: 'checkout.plans.create-fields',
    title:
      'Creating a plan answers it with id, object `plan`, productId, name, description, amount, currency, interval, intervalCount, status `available`, active true and createdAt',
    source: PLAN_FIELDS,
    requires: ['createProduct', 'createPlan'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'plan fields');
      const plan = await newPlan(ctx, product.id, 'fields', {
        description: 'Quarterly beans',
        amount: 25.5,
        currency: 'USD',
        interval: 'month',
        intervalCount: 3,
      });
      assert.equal(typeof plan.id, 'number');
      assert.equal(plan.object, 'plan');
      assert.equal(plan.productId, product.id, 'the plan belongs to its product');
      assert.equal(plan.name, `Conformance ${tag(ctx)} fields`);
      assert.equal(plan.description, 'Quarterly beans');
      assert.equal(plan.amount, 25.5);
      assert.equal(plan.currency, 'USD');
      assert.equal(plan.interval, 'month');
      assert.equal(plan.intervalCount, 3);
      assert.equal(plan.status, 'available', 'a new plan is available');
      assert.equal(plan.active, true, 'a new plan is active by default');
      assert.equal(typeof plan.createdAt, 'string');
    },
  },
  {
    id: 'checkout.plans.intervals',
    title: "A plan's interval is `day`, `week`, `month` or `year`; anything else is refused with 400",
    source: PLAN_ENDPOINTS,
    requires: ['createProduct', 'createPlan'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'intervals');
      for (const interval of ['day', 'week', 'month', 'year']) {
        const plan = await newPlan(ctx, product.id, `interval ${interval}`, { interval });
        assert.equal(plan.interval, interval);
      }
      const bad = await call(ctx, 'checkout', 'createPlan', {
        method: 'POST',
        path: '/v1/plans',
        key: secretKey(ctx),
        body: { productId: product.id, name: 'Fortnightly', amount: 5, currency: 'USD', interval: 'fortnight' },
      });
      expectEnvelopeError(bad, 400, 'invalid_request', undefined, 'interval');
    },
  },
  {
    id: 'checkout.plans.belongs-to-product',
    title: "Every plan belongs to one of the merchant's products: a missing or unknown `productId` is refused with 400",
    source: PRODUCT_ENDPOINTS,
    requires: ['createPlan'],
    serverOnly: true,
    async run(ctx) {
      const body = { name: `Conformance ${tag(ctx)} orphan`, amount: 5, currency: 'USD', interval: 'month' };
      expectEnvelopeError(
        await call(ctx, 'checkout', 'createPlan', { method: 'POST', path: '/v1/plans', key: secretKey(ctx), body }),
        400,
        'invalid_request',
        undefined,
        'productId',
      );
      expectEnvelopeError(
        await call(ctx, 'checkout', 'createPlan', { method: 'POST', path: '/v1/plans', key: secretKey(ctx), body: { ...body, productId: 2147483000 } }),
        400,
        'invalid_request',
        undefined,
        'productId',
      );
    },
  },
  {
    id: 'checkout.plans.foreign-product',
    title: "A plan on another merchant's product is refused with 400 (`productId`)",
    source: PLAN_FIELDS,
    requires: ['createProduct', 'createPlan'],
    serverOnly: true,
    async run(ctx) {
      const foreign = await newProduct(ctx, 'not yours', await otherSecretKey(ctx));
      const res = await call(ctx, 'checkout', 'createPlan', {
        method: 'POST',
        path: '/v1/plans',
        key: secretKey(ctx),
        body: { productId: foreign.id, name: `Conformance ${tag(ctx)} foreign`, amount: 5, currency: 'USD', interval: 'month' },
      });
      expectEnvelopeError(res, 400, 'invalid_request', undefined, 'productId');
    },
  },
  {
    id: 'checkout.plans.draft',
    title: 'Creating a plan with `active` false makes a draft: status `available`, active false',
    source: PLAN_STATES,
    requires: ['createProduct', 'createPlan', 'retrievePlan'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'draft');
      const plan = await newPlan(ctx, product.id, 'draft', { active: false });
      assert.equal(plan.active, false, 'a plan created with active false is a draft');
      assert.equal(plan.status, 'available', 'a draft is available (status values are available and discontinued)');
      const read = await retrievePlan(ctx, plan.id);
      assert.equal(read.active, false);
    },
  },
  {
    id: 'checkout.plans.retrieve',
    title: 'Retrieving a plan answers the plan as created',
    source: PLAN_ENDPOINTS,
    requires: ['createProduct', 'createPlan', 'retrievePlan'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'retrieve plan');
      const plan = await newPlan(ctx, product.id, 'retrieve');
      assert.deepEqual(await retrievePlan(ctx, plan.id), plan, 'retrieve must answer the created plan');
    },
  },
  {
    id: 'checkout.plans.update-mutable-fields',
    title: 'Updating a plan changes `name`, `description` and `active`; the other fields keep their values',
    source: PLAN_ENDPOINTS,
    requires: ['createProduct', 'createPlan', 'updatePlan', 'retrievePlan'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'update plan');
      const plan = await newPlan(ctx, product.id, 'before', { description: 'Before' });
      const path = `/v1/plans/${plan.id}`;
      const renamed = envelopeData(
        await call(ctx, 'checkout', 'updatePlan', {
          method: 'PATCH',
          path,
          key: secretKey(ctx),
          body: { name: `Conformance ${tag(ctx)} after`, description: 'After' },
        }),
        200,
        'rename the plan',
      );
      assert.equal(renamed.name, `Conformance ${tag(ctx)} after`);
      assert.equal(renamed.description, 'After');
      assert.equal(renamed.active, true, 'active is kept when not sent');
      const drafted = envelopeData(
        await call(ctx, 'checkout', 'updatePlan', { method: 'PATCH', path, key: secretKey(ctx), body: { active: false } }),
        200,
        'deactivate the plan',
      );
      assert.equal(drafted.active, false);
      assert.equal(drafted.name, `Conformance ${tag(ctx)} after`, 'name is kept when not sent');
      const read = await retrievePlan(ctx, plan.id);
      for (const field of ['amount', 'currency', 'interval', 'intervalCount', 'productId', 'createdAt']) {
        assert.deepEqual(read[field], plan[field], `${field} must not change on update`);
      }
    },
  },
  {
    id: 'checkout.plans.update-immutable-fields',
    title: '`amount`, `currency`, `interval` and `intervalCount` cannot be changed: sending any of them answers 400 and the plan is unchanged',
    source: PLAN_ENDPOINTS,
    requires: ['createProduct', 'createPlan', 'updatePlan', 'retrievePlan'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'immutable');
      const plan = await newPlan(ctx, product.id, 'immutable');
      const path = `/v1/plans/${plan.id}`;
      const attempts: [string, unknown][] = [
        ['amount', 29.99],
        ['amount', plan.amount],
        ['currency', 'EUR'],
        ['interval', 'year'],
        ['intervalCount', 2],
      ];
      for (const [field, value] of attempts) {
        const res = await call(ctx, 'checkout', 'updatePlan', { method: 'PATCH', path, key: secretKey(ctx), body: { name: 'Changed too', [field]: value } });
        expectEnvelopeError(res, 400, 'invalid_request', undefined, field);
      }
      const read = await retrievePlan(ctx, plan.id);
      assert.deepEqual(read, plan, 'a refused update must change nothing (the name sent alongside included)');
    },
  },
  {
    id: 'checkout.plans.archive',
    title: 'Archiving a plan answers it with status `discontinued`; it stays readable',
    source: PLAN_ENDPOINTS,
    requires: ['createProduct', 'createPlan', 'archivePlan', 'retrievePlan'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'archive');
      const plan = await newPlan(ctx, product.id, 'archive');
      const archived = envelopeData(
        await call(ctx, 'checkout', 'archivePlan', { method: 'DELETE', path: `/v1/plans/${plan.id}`, key: secretKey(ctx) }),
        200,
        'archive the plan',
      );
      assert.equal(archived.id, plan.id);
      assert.equal(archived.status, 'discontinued', 'archiving sets status discontinued');
      assert.equal((await retrievePlan(ctx, plan.id)).status, 'discontinued', 'the archived plan stays readable');
    },
  },
];
