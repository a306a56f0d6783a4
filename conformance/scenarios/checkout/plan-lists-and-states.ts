// Plans, their list and states: archived plans left out, drafts listed, the status values, another
// merchant's plans, and which plans a subscription can start on.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { idsOf, listPlansPage, newPlan, newProduct, postCustomer, retrievePlan } from '../fixtures/catalog.js';
import { call, envelopeData, expectEnvelopeError, expectError } from '../fixtures/http.js';
import { emailFor, liveSecretKey, otherSecretKey, secretKey } from '../fixtures/keys.js';
import { SESSION, SUBSCRIBE } from '../fixtures/operations.js';
import { clocked } from '../fixtures/scenario.js';
import { PLAN_ENDPOINTS, PLAN_STATES } from '../fixtures/sections.js';
import { advancePast, dailySubscription, postSubscriptionSession, subscriptionInvoices, subscriptionOf } from '../fixtures/subscriptions.js';

export const planListsAndStates: Scenario[] = [
  {
    id: 'checkout.plans.list-excludes-archived',
    title: 'The plan list leaves discontinued plans out; `includeArchived=true` lists them too',
    source: PLAN_ENDPOINTS,
    requires: ['createProduct', 'createPlan', 'archivePlan', 'listPlans'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'list archived');
      const archivedPlan = await newPlan(ctx, product.id, 'archived one');
      const sentinel = await newPlan(ctx, product.id, 'sentinel');
      envelopeData(await call(ctx, 'checkout', 'archivePlan', { method: 'DELETE', path: `/v1/plans/${archivedPlan.id}`, key: secretKey(ctx) }), 200, 'archive');
      // Items after the sentinel are the older ones: the archived plan is among the first of them.
      const without = await listPlansPage(ctx, { startingAfter: sentinel.id, limit: 100 });
      assert.ok(!idsOf(without).includes(archivedPlan.id), 'a discontinued plan must be left out by default');
      const withArchived = await listPlansPage(ctx, { startingAfter: sentinel.id, limit: 100, includeArchived: true });
      const found = (withArchived.data as any[]).find((p) => p.id === archivedPlan.id);
      assert.ok(found, 'includeArchived=true must list the discontinued plan');
      assert.equal(found.status, 'discontinued');
    },
  },
  {
    id: 'checkout.plans.list-includes-drafts',
    title: 'Draft plans (`active` false) are listed',
    source: PLAN_STATES,
    requires: ['createProduct', 'createPlan', 'listPlans'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'list drafts');
      const draft = await newPlan(ctx, product.id, 'listed draft', { active: false });
      const sentinel = await newPlan(ctx, product.id, 'draft sentinel');
      const page = await listPlansPage(ctx, { startingAfter: sentinel.id, limit: 100 });
      assert.ok(idsOf(page).includes(draft.id), 'a draft plan must be listed');
    },
  },
  {
    id: 'checkout.plans.status-values',
    title: 'Plan status is `available` (active or draft) or `discontinued` (archived)',
    source: PLAN_STATES,
    requires: ['createProduct', 'createPlan', 'updatePlan', 'archivePlan'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'status values');
      const plan = await newPlan(ctx, product.id, 'status values');
      assert.equal(plan.status, 'available');
      const draft = envelopeData(
        await call(ctx, 'checkout', 'updatePlan', { method: 'PATCH', path: `/v1/plans/${plan.id}`, key: secretKey(ctx), body: { active: false } }),
        200,
        'draft',
      );
      assert.equal(draft.status, 'available', 'a draft is still available');
      const archived = envelopeData(
        await call(ctx, 'checkout', 'archivePlan', { method: 'DELETE', path: `/v1/plans/${plan.id}`, key: secretKey(ctx) }),
        200,
        'archive',
      );
      assert.equal(archived.status, 'discontinued');
    },
  },
  {
    id: 'checkout.plans.other-merchant-404',
    title: "Another merchant's plan answers 404 to retrieve, update and archive",
    source: PLAN_ENDPOINTS,
    requires: ['createProduct', 'createPlan', 'retrievePlan', 'updatePlan', 'archivePlan'],
    serverOnly: true,
    async run(ctx) {
      const other = await otherSecretKey(ctx);
      const product = await newProduct(ctx, 'their plan', other);
      const plan = await newPlan(ctx, product.id, 'theirs', {}, other);
      const path = `/v1/plans/${plan.id}`;
      expectEnvelopeError(await call(ctx, 'checkout', 'retrievePlan', { method: 'GET', path, key: secretKey(ctx) }), 404, 'not_found');
      expectEnvelopeError(
        await call(ctx, 'checkout', 'updatePlan', { method: 'PATCH', path, key: secretKey(ctx), body: { name: 'Mine now' } }),
        404,
        'not_found',
      );
      expectEnvelopeError(await call(ctx, 'checkout', 'archivePlan', { method: 'DELETE', path, key: secretKey(ctx) }), 404, 'not_found');
    },
  },
  {
    id: 'checkout.plans.shared-by-modes',
    title: 'Plans are shared by test and live keys: a plan made with either key is read, listed and updated with the other',
    source: PLAN_ENDPOINTS,
    requires: ['createProduct', 'createPlan', 'retrievePlan', 'listPlans', 'updatePlan'],
    serverOnly: true,
    async run(ctx) {
      const live = ctx.withKeys({ secretKey: liveSecretKey(ctx) });
      const product = await newProduct(ctx, 'plan modes');
      const byTest = await newPlan(ctx, product.id, 'made in test');
      const byLive = await newPlan(live, product.id, 'made in live');
      for (const [reader, plan, what] of [
        [live, byTest, 'the live key reads the test-made plan'],
        [ctx, byLive, 'the test key reads the live-made plan'],
      ] as const) {
        const read = await retrievePlan(reader, plan.id);
        assert.equal(read.name, plan.name, what);
        assert.equal(read.amount, plan.amount, what);
        assert.ok(idsOf(await listPlansPage(reader, { limit: 100 })).includes(plan.id), `${what}, and lists it`);
      }
      const renamed = `${byTest.name} renamed live`;
      envelopeData(
        await call(ctx, 'checkout', 'updatePlan', { method: 'PATCH', path: `/v1/plans/${byTest.id}`, key: secretKey(live), body: { name: renamed } }),
        200,
        'the live key updates the test-made plan',
      );
      assert.equal((await retrievePlan(ctx, byTest.id)).name, renamed, 'the test key sees the change: one plan for both modes');
    },
  },
  {
    id: 'checkout.plan-states.draft-no-new-subscriptions',
    title: 'No subscription can start on a draft plan (a subscription session on it is refused)',
    source: PLAN_STATES,
    requires: ['createProduct', 'createPlan', 'createCustomer', SESSION],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'draft plan session');
      const draft = await newPlan(ctx, product.id, 'draft for a session', { active: false });
      const customer = envelopeData(await postCustomer(ctx, { email: emailFor(ctx, 'draft-plan') }), 201, 'create a customer');
      // The customer is valid, so a refusal naming the plan is about the plan being a draft.
      expectError(
        await postSubscriptionSession(ctx, { subscriptionPlanId: draft.id, clientId: customer.id }),
        400,
        'invalid_request',
        undefined,
        'subscriptionPlanId',
      );
    },
  },
  {
    id: 'checkout.plan-states.archived-no-new-subscriptions',
    title: 'No new subscription can start on an archived plan (a subscription session on it is refused)',
    source: PLAN_STATES,
    requires: ['createProduct', 'createPlan', 'archivePlan', 'createCustomer', SESSION],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'archived plan session');
      const plan = await newPlan(ctx, product.id, 'archived for a session');
      const archived = envelopeData(
        await call(ctx, 'checkout', 'archivePlan', { method: 'DELETE', path: `/v1/plans/${plan.id}`, key: secretKey(ctx) }),
        200,
        'archive',
      );
      assert.equal(archived.status, 'discontinued');
      const customer = envelopeData(await postCustomer(ctx, { email: emailFor(ctx, 'archived-plan') }), 201, 'create a customer');
      expectError(
        await postSubscriptionSession(ctx, { subscriptionPlanId: plan.id, clientId: customer.id }),
        400,
        'invalid_request',
        undefined,
        'subscriptionPlanId',
      );
    },
  },
  clocked(
    'checkout.plan-states.archived-keeps-billing',
    'Existing subscriptions on an archived plan keep billing (renewal after archive)',
    PLAN_STATES,
    [...SUBSCRIBE, 'archivePlan', 'listSubscriptionInvoices'],
    {
      async run(ctx) {
        const { subscriptionId, plan } = await dailySubscription(ctx, 'archived keeps billing');
        const archived = envelopeData(
          await call(ctx, 'checkout', 'archivePlan', { method: 'DELETE', path: `/v1/plans/${plan.id}`, key: secretKey(ctx) }),
          200,
          'archive the plan',
        );
        assert.equal(archived.status, 'discontinued');
        const before = await subscriptionOf(ctx, subscriptionId);
        await advancePast(ctx, before.currentPeriodEnd);
        const invoices = await subscriptionInvoices(ctx, subscriptionId);
        assert.equal(invoices.length, 2, 'the period rolled on the archived plan: a renewal invoice besides the first');
        assert.equal(invoices[0].status, 'paid', 'the renewal is charged as before');
        assert.equal(invoices[0].amount, plan.amount, "at the archived plan's amount");
        const after = await subscriptionOf(ctx, subscriptionId);
        assert.equal(after.status, 'active', 'the subscription stays active');
        assert.equal(after.planId, plan.id, 'still on the archived plan');
        assert.ok(Date.parse(after.currentPeriodStart) >= Date.parse(before.currentPeriodEnd), 'a new period began');
      },
    },
  ),
];
