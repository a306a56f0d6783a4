// The two modes (test and live) with the same merchant's keys (`--live-secret-key`): each key sees
// only its own mode's sessions, subscriptions and invoices; customers, plans and products are
// shared. Nothing is charged in live mode: the live objects are an open session, an invoice and a
// free-trial subscription.
import assert from 'node:assert/strict';
import type { ConformanceContext, Scenario } from '../../types.js';
import { idsOf, newPlan, newProduct, postCustomer } from '../fixtures/catalog.js';
import { call, envelopeData, expectEnvelopeError, expectError, expectStatus } from '../fixtures/http.js';
import { newInvoice } from '../fixtures/invoices.js';
import { emailFor, liveSecretKey, secretKey } from '../fixtures/keys.js';
import { SESSION, SUBSCRIBE_TRIAL } from '../fixtures/operations.js';
import { AUTH, CONVENTIONS } from '../fixtures/sections.js';
import { getSession, newSession } from '../fixtures/sessions.js';
import { getSubscription, subscriptionAction, subscriptionParts, trialSubscription } from '../fixtures/subscriptions.js';

/** The same run acting with the merchant's live key (pending, naming the flag, without one). */
export function liveCtx(ctx: ConformanceContext): ConformanceContext {
  const key = liveSecretKey(ctx);
  assert.match(key, /^sk_live_/, '--live-secret-key must be a live secret key (sk_live_...)');
  return ctx.withKeys({ secretKey: key });
}

const getInvoice = (ctx: ConformanceContext, id: number) =>
  call(ctx, 'checkout', 'retrieveInvoice', { method: 'GET', path: `/v1/invoices/${id}`, key: secretKey(ctx) });

const invoicesByReference = async (ctx: ConformanceContext, reference: string): Promise<number[]> => {
  const res = await call(ctx, 'checkout', 'listInvoices', { method: 'GET', path: '/v1/invoices', key: secretKey(ctx), query: { reference } });
  expectStatus(res, 200, 'list invoices by reference');
  return idsOf(res.json);
};

const subscriptionsOf = async (ctx: ConformanceContext, clientId: number): Promise<number[]> =>
  idsOf(
    envelopeData(
      await call(ctx, 'checkout', 'listSubscriptions', { method: 'GET', path: '/v1/subscriptions', key: secretKey(ctx), query: { clientId } }),
      200,
      'list subscriptions',
    ),
  );

export const modes: Scenario[] = [
  {
    id: 'platform.auth.modes-separate',
    title: 'Test-mode and live-mode data are separate: a key only sees objects of its own mode (a live key gets 404 for a test session, and the reverse)',
    source: CONVENTIONS,
    requires: [SESSION, 'retrieveCheckoutSession'],
    serverOnly: true,
    async run(ctx) {
      const live = liveCtx(ctx);
      const testSession = await newSession(ctx);
      const liveSession = await newSession(live);
      assert.match(testSession.id, /^cs_test_/, 'a test key makes test sessions');
      assert.match(liveSession.id, /^cs_live_/, 'a live key makes live sessions');
      expectStatus(await getSession(ctx, testSession.id), 200, 'the test key reads its test session');
      expectStatus(await getSession(live, liveSession.id), 200, 'the live key reads its live session');
      const liveReadsTest = await getSession(live, testSession.id);
      expectError(liveReadsTest, 404, 'not_found');
      expectError(await getSession(ctx, liveSession.id), 404, 'not_found', liveReadsTest.json.error.code);
    },
  },
  {
    id: 'platform.auth.test-key-sees-test-subscriptions-and-invoices',
    title: 'A test key sees only test-mode subscriptions and invoices (lists leave out live ones; retrieving one answers 404)',
    source: AUTH,
    requires: ['listSubscriptions', 'retrieveSubscription', 'listInvoices', 'retrieveInvoice', 'createInvoice', ...SUBSCRIBE_TRIAL, 'cancelSubscription'],
    serverOnly: true,
    async run(ctx) {
      const live = liveCtx(ctx);
      const liveInvoice = await newInvoice(live);
      expectStatus(await getInvoice(live, liveInvoice.id), 200, 'the live key reads its invoice');
      expectError(await getInvoice(ctx, liveInvoice.id), 404, 'not_found');
      assert.deepEqual(await invoicesByReference(ctx, liveInvoice.reference), [], "the test key's invoice list leaves out the live invoice");
      assert.deepEqual(await invoicesByReference(live, liveInvoice.reference), [liveInvoice.id], 'the live key lists it');
      // A live subscription on a free trial (nothing charged), for a customer and plan the test key made (both modes share them).
      const parts = await subscriptionParts(ctx, 'modes');
      const { subscriptionId } = await trialSubscription(live, 'modes', 14, parts);
      ctx.onCleanup(() => subscriptionAction(live, subscriptionId, 'cancel', { cancelAtPeriodEnd: false }));
      assert.equal(envelopeData(await getSubscription(live, subscriptionId), 200, 'the live key reads it').livemode, true);
      expectEnvelopeError(await getSubscription(ctx, subscriptionId), 404, 'not_found');
      assert.deepEqual(await subscriptionsOf(ctx, parts.customer.id), [], "the test key's subscription list leaves out the live subscription");
      assert.deepEqual(await subscriptionsOf(live, parts.customer.id), [subscriptionId], 'the live key lists it');
      // And the reverse: a test subscription of the same customer stays out of the live key's sight.
      const testSub = await trialSubscription(ctx, 'modes test', 14, parts);
      expectEnvelopeError(await getSubscription(live, testSub.subscriptionId), 404, 'not_found');
      assert.deepEqual(await subscriptionsOf(ctx, parts.customer.id), [testSub.subscriptionId], 'the test key lists its own only');
    },
  },
  {
    id: 'platform.auth.customers-and-plans-shared-by-modes',
    title: 'Customers and plans (and their products) are shared by both modes: what a test key creates, a live key of the same merchant reads and lists',
    source: CONVENTIONS,
    requires: ['createCustomer', 'retrieveCustomer', 'listCustomers', 'createPlan', 'retrievePlan', 'listPlans', 'createProduct', 'retrieveProduct'],
    serverOnly: true,
    async run(ctx) {
      const live = liveCtx(ctx);
      const product = await newProduct(ctx, 'shared by modes');
      const plan = await newPlan(ctx, product.id, 'shared by modes');
      const email = emailFor(ctx, 'shared-by-modes');
      const customer = envelopeData(await postCustomer(ctx, { email }), 201, 'create a customer with the test key');
      const liveKey = secretKey(live);
      const liveProduct = await call(ctx, 'checkout', 'retrieveProduct', { method: 'GET', path: `/v1/products/${product.id}`, key: liveKey });
      expectStatus(liveProduct, 200, 'the live key reads the product');
      const livePlan = envelopeData(
        await call(ctx, 'checkout', 'retrievePlan', { method: 'GET', path: `/v1/plans/${plan.id}`, key: liveKey }),
        200,
        'live plan',
      );
      assert.equal(livePlan.name, plan.name);
      const livePlans = envelopeData(
        await call(ctx, 'checkout', 'listPlans', { method: 'GET', path: '/v1/plans', key: liveKey, query: { limit: 100 } }),
        200,
        'plans',
      );
      assert.ok(idsOf(livePlans).includes(plan.id), 'the live plan list holds the plan');
      const liveCustomer = envelopeData(
        await call(ctx, 'checkout', 'retrieveCustomer', { method: 'GET', path: `/v1/customers/${customer.id}`, key: liveKey }),
        200,
        'the live key reads the customer',
      );
      assert.equal(liveCustomer.email, email);
      const liveList = envelopeData(
        await call(ctx, 'checkout', 'listCustomers', { method: 'GET', path: '/v1/customers', key: liveKey, query: { email } }),
        200,
        'list',
      );
      assert.deepEqual(idsOf(liveList), [customer.id], 'the live customer list finds it by email');
      // Creating the same customer with the live key finds the test key's (repeat-safe, one customer for both modes).
      const again = await postCustomer(ctx, { email }, liveKey);
      assert.equal(envelopeData(again, again.status === 201 ? 201 : 200, 'create again with the live key').id, customer.id);
    },
  },
];
