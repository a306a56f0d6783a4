// Customers (checkout-billing-api.md › Customers): fields, repeat-safe create by email or
// externalId, the list's filters and default limit, another merchant's customer, the two modes
// (customers shared, cards not), and customers sharing an email.
import assert from 'node:assert/strict';
import type { ConformanceContext, Scenario } from '../../types.js';
import { idsOf, listCustomers, newPlan, newProduct, postCustomer } from '../fixtures/catalog.js';
import { call, envelopeData, expectEnvelopeError, expectStatus, rawFetch } from '../fixtures/http.js';
import { emailFor, liveSecretKey, otherSecretKey, secretKey, tag } from '../fixtures/keys.js';
import { SUBSCRIBE } from '../fixtures/operations.js';
import { scenario } from '../fixtures/scenario.js';
import { CUSTOMER_ENDPOINTS, CUSTOMER_FIELDS, LIST_WRAPPER } from '../fixtures/sections.js';
import { SANDBOX_CARD } from '../fixtures/sessions.js';
import { listSubscriptionsPage, paidSubscription } from '../fixtures/subscriptions.js';

/** A customer, read with `key` (the envelope's `data`). */
const retrieveCustomer = async (ctx: ConformanceContext, id: number, key = secretKey(ctx)): Promise<any> =>
  envelopeData(await call(ctx, 'checkout', 'retrieveCustomer', { method: 'GET', path: `/v1/customers/${id}`, key }), 200, `retrieve customer ${id}`);

/** A new portal session of the customer, made with `key`: its page's path. */
async function portalPath(ctx: ConformanceContext, clientId: number, key = secretKey(ctx)): Promise<string> {
  const res = await call(ctx, 'checkout', 'createPortalSession', { method: 'POST', path: '/v1/portal-sessions', key, body: { clientId } });
  expectStatus(res, 201, 'create a portal session');
  return new URL(res.json.url).pathname;
}

/** The customer's portal page (HTML). */
async function portalPage(ctx: ConformanceContext, clientId: number): Promise<string> {
  const page = await rawFetch(ctx, 'GET', await portalPath(ctx, clientId));
  expectStatus(page, 200, 'open the portal');
  return page.text;
}

/** Adds the sandbox Visa card on file as the customer does, through the card form of a portal made with `key`. */
async function addCardInPortal(ctx: ConformanceContext, clientId: number, key: string): Promise<void> {
  const path = await portalPath(ctx, clientId, key);
  const page = await rawFetch(ctx, 'GET', path);
  expectStatus(page, 200, 'open the portal');
  const form = /name="form" value="([^"]+)"/.exec(page.text)?.[1];
  assert.ok(form, 'the portal page carries its form token');
  const { cardNumber, expiryMonth, expiryYear, cvc } = SANDBOX_CARD;
  const fields = new URLSearchParams({ form, cardNumber, expiryMonth: String(expiryMonth), expiryYear: String(expiryYear), cvc, cardName: 'Conformance' });
  const saved = await rawFetch(ctx, 'POST', `${path}/card`, { 'content-type': 'application/x-www-form-urlencoded' }, fields.toString());
  assert.ok(saved.status === 303 || saved.status === 200, `the portal saves the card: ${saved.status} ${saved.text.slice(0, 200)}`);
}

export const customers: Scenario[] = [
  {
    id: 'checkout.customers.create-fields',
    title: 'Creating a customer answers id (number), object `customer`, email, name, phone, externalId, metadata, hasPaymentMethod false and createdAt',
    source: CUSTOMER_FIELDS,
    requires: ['createCustomer', 'retrieveCustomer'],
    serverOnly: true,
    async run(ctx) {
      const body = {
        email: emailFor(ctx, 'fields'),
        name: 'Ana Lopez',
        phone: '+15551234567',
        externalId: `conf-${tag(ctx)}-fields`,
        metadata: { plan: 'gold' },
      };
      const customer = envelopeData(await postCustomer(ctx, body), 201, 'create a customer');
      assert.equal(typeof customer.id, 'number');
      assert.equal(customer.object, 'customer');
      for (const field of ['email', 'name', 'phone', 'externalId'] as const) assert.equal(customer[field], body[field], `${field} is kept`);
      assert.deepEqual(customer.metadata, body.metadata);
      assert.equal(customer.hasPaymentMethod, false, 'a new customer has no card on file');
      const read = envelopeData(
        await call(ctx, 'checkout', 'retrieveCustomer', { method: 'GET', path: `/v1/customers/${customer.id}`, key: secretKey(ctx) }),
        200,
        'retrieve',
      );
      assert.deepEqual(read, customer, 'retrieve answers the created customer');
    },
  },
  {
    id: 'checkout.customers.repeat-safe-by-email',
    title: 'Creating is repeat-safe: without `externalId` it returns the existing customer with the same email',
    source: CUSTOMER_ENDPOINTS,
    requires: ['createCustomer'],
    serverOnly: true,
    async run(ctx) {
      const email = emailFor(ctx, 'repeat');
      const first = envelopeData(await postCustomer(ctx, { email, name: 'First' }), 201, 'first create');
      const againRes = await postCustomer(ctx, { email, name: 'Second' });
      const again = envelopeData(againRes, againRes.status === 201 ? 201 : 200, 'repeat create');
      assert.equal(again.id, first.id, 'the same email must return the existing customer');
    },
  },
  {
    id: 'checkout.customers.external-id-never-matches-email',
    title: 'With `externalId` create returns the customer with that id and never matches by email: accounts sharing an email stay separate customers',
    source: CUSTOMER_ENDPOINTS,
    requires: ['createCustomer'],
    serverOnly: true,
    async run(ctx) {
      const email = emailFor(ctx, 'shared');
      const a = envelopeData(await postCustomer(ctx, { email, externalId: `conf-${tag(ctx)}-acct-a` }), 201, 'account A');
      const b = envelopeData(await postCustomer(ctx, { email, externalId: `conf-${tag(ctx)}-acct-b` }), 201, 'account B (same email, other externalId)');
      assert.notEqual(b.id, a.id, 'another externalId with the same email must be another customer');
      const byEmailOnly = envelopeData(
        await postCustomer(ctx, { email: emailFor(ctx, 'unmatched'), externalId: `conf-${tag(ctx)}-acct-a` }),
        200,
        'account A again, other email',
      );
      assert.equal(byEmailOnly.id, a.id, 'the same externalId returns that customer, whatever email is sent');
    },
  },
  {
    id: 'checkout.customers.list-filter-email',
    title: 'The customer list filters by `email`',
    source: CUSTOMER_ENDPOINTS,
    requires: ['createCustomer', 'listCustomers'],
    serverOnly: true,
    async run(ctx) {
      const email = emailFor(ctx, 'filter');
      const mine = envelopeData(await postCustomer(ctx, { email }), 201, 'create');
      envelopeData(await postCustomer(ctx, { email: emailFor(ctx, 'filter-other') }), 201, 'create another');
      const page = await listCustomers(ctx, { email });
      assert.deepEqual(idsOf(page), [mine.id], 'only the customer with that email is listed');
    },
  },
  {
    id: 'checkout.customers.list-filter-external-id',
    title: 'The customer list filters by `externalId`',
    source: CUSTOMER_ENDPOINTS,
    requires: ['createCustomer', 'listCustomers'],
    serverOnly: true,
    async run(ctx) {
      const externalId = `conf-${tag(ctx)}-filter-ext`;
      const mine = envelopeData(await postCustomer(ctx, { email: emailFor(ctx, 'filter-ext'), externalId }), 201, 'create');
      const page = await listCustomers(ctx, { externalId });
      assert.deepEqual(idsOf(page), [mine.id], 'only the customer with that externalId is listed');
    },
  },
  {
    id: 'checkout.customers.list-default-limit-10',
    title: 'The customer list has its own default `limit` of 10',
    source: LIST_WRAPPER,
    requires: ['createCustomer', 'listCustomers'],
    serverOnly: true,
    async run(ctx) {
      const existing = await listCustomers(ctx, { limit: 11 });
      for (let i = existing.data.length; i < 11; i++) envelopeData(await postCustomer(ctx, { email: emailFor(ctx, `bulk${i}`) }), 201, 'create');
      const page = await listCustomers(ctx, {});
      assert.equal(page.data.length, 10, 'without limit the customer list answers 10 items');
      assert.equal(page.hasMore, true, 'more customers follow');
    },
  },
  {
    id: 'checkout.customers.other-merchant-404',
    title: "Another merchant's customer answers 404 and is never matched by create",
    source: CUSTOMER_ENDPOINTS,
    requires: ['createCustomer', 'retrieveCustomer', 'listCustomers'],
    serverOnly: true,
    async run(ctx) {
      const other = await otherSecretKey(ctx);
      const email = emailFor(ctx, 'theirs');
      const theirs = envelopeData(await postCustomer(ctx, { email }, other), 201, "the other merchant's customer");
      expectEnvelopeError(
        await call(ctx, 'checkout', 'retrieveCustomer', { method: 'GET', path: `/v1/customers/${theirs.id}`, key: secretKey(ctx) }),
        404,
        'not_found',
      );
      assert.deepEqual(idsOf(await listCustomers(ctx, { email })), [], "another merchant's customer is not listed");
      const mine = envelopeData(await postCustomer(ctx, { email }), 201, 'my customer with the same email is a new one');
      assert.notEqual(mine.id, theirs.id);
    },
  },
  scenario(
    'checkout.customers.no-mode',
    'Customers have no test/live mode: a live key sees the customers a test key created',
    CUSTOMER_ENDPOINTS,
    ['createCustomer', 'retrieveCustomer', 'listCustomers'],
    async (ctx) => {
      const live = liveSecretKey(ctx);
      const body = { email: emailFor(ctx, 'both-modes'), externalId: `conf-${tag(ctx)}-both-modes`, name: 'Both Modes' };
      const made = envelopeData(await postCustomer(ctx, body), 201, 'create a customer with the test key');
      assert.deepEqual(await retrieveCustomer(ctx, made.id, live), made, 'the live key reads the same customer');
      assert.deepEqual(idsOf(await listCustomers(ctx, { email: body.email }, live)), [made.id], 'the live key lists it');
      const again = envelopeData(await postCustomer(ctx, body, live), 200, 'create it again with the live key');
      assert.equal(again.id, made.id, 'creating it with the live key finds the same customer');
    },
  ),
  scenario(
    'checkout.customers.payment-method-per-mode',
    '`hasPaymentMethod` is per mode: a card kept in test mode never makes it true for a live key, and a live card never for a test key',
    CUSTOMER_FIELDS,
    ['createCustomer', 'retrieveCustomer', 'listCustomers', ...SUBSCRIBE, 'createPortalSession'],
    async (ctx) => {
      const live = liveSecretKey(ctx);
      const { customer } = await paidSubscription(ctx, 'card in test mode');
      assert.equal((await retrieveCustomer(ctx, customer.id)).hasPaymentMethod, true, 'the test key sees the card kept in test mode');
      assert.equal((await retrieveCustomer(ctx, customer.id, live)).hasPaymentMethod, false, 'the live key does not');
      assert.equal((await listCustomers(ctx, { email: customer.email }, live)).data[0]?.hasPaymentMethod, false, 'nor in the live list');
      const other = envelopeData(await postCustomer(ctx, { email: emailFor(ctx, 'card-in-live-mode') }), 201, 'a customer without a card');
      await addCardInPortal(ctx, other.id, live);
      assert.equal((await retrieveCustomer(ctx, other.id, live)).hasPaymentMethod, true, 'the live key sees the card added in live mode');
      assert.equal((await retrieveCustomer(ctx, other.id)).hasPaymentMethod, false, 'the test key does not');
    },
  ),
  scenario(
    'checkout.customers.separate-subscriptions-and-portal',
    'Customers sharing an email keep their own subscriptions and portal',
    CUSTOMER_ENDPOINTS,
    [...SUBSCRIBE, 'listSubscriptions', 'createPortalSession'],
    async (ctx) => {
      const email = emailFor(ctx, 'shared-accounts');
      const started = [];
      for (const account of ['a', 'b']) {
        const customer = envelopeData(await postCustomer(ctx, { email, externalId: `conf-${tag(ctx)}-account-${account}` }), 201, `account ${account}`);
        const plan = await newPlan(ctx, (await newProduct(ctx, `account ${account}`)).id, `plan of account ${account}`);
        started.push({ ...(await paidSubscription(ctx, '', { plan, customer })), customer });
      }
      assert.notEqual(started[0]!.customer.id, started[1]!.customer.id, 'two customers');
      for (const [mine, theirs] of [started, [...started].reverse()]) {
        const list = await listSubscriptionsPage(ctx, { clientId: mine!.customer.id });
        assert.deepEqual(idsOf(list), [mine!.subscriptionId], "each customer lists its own subscription only, not the other's with the same email");
        const page = await portalPage(ctx, mine!.customer.id);
        assert.ok(page.includes(mine!.plan.name), `the portal shows the customer's own plan ${mine!.plan.name}`);
        assert.ok(!page.includes(theirs!.plan.name), `the portal does not show the other customer's plan ${theirs!.plan.name}`);
      }
    },
  ),
];
