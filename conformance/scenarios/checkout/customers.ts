// Customers (checkout-billing-api.md › Customers): fields, repeat-safe create by email or
// externalId, the list's filters and default limit, and another merchant's customer.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { idsOf, listCustomers, postCustomer } from '../fixtures/catalog.js';
import { call, envelopeData, expectEnvelopeError } from '../fixtures/http.js';
import { emailFor, otherSecretKey, secretKey, tag } from '../fixtures/keys.js';
import { PAY_CARD, SUBSCRIBE } from '../fixtures/operations.js';
import { pending } from '../fixtures/scenario.js';
import { CUSTOMER_ENDPOINTS, CUSTOMER_FIELDS, LIST_WRAPPER } from '../fixtures/sections.js';

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
  pending(
    'checkout.customers.no-mode',
    'Customers have no test/live mode: a live key sees the customers a test key created (needs a live key)',
    CUSTOMER_ENDPOINTS,
    ['createCustomer', 'retrieveCustomer', 'listCustomers'],
  ),
  pending(
    'checkout.customers.payment-method-per-mode',
    '`hasPaymentMethod` is per mode: a card kept in test mode never makes it true for a live key, and a live card never for a test key (needs a live key)',
    CUSTOMER_FIELDS,
    ['createCustomer', 'retrieveCustomer', 'listCustomers', ...PAY_CARD],
  ),
  pending('checkout.customers.separate-subscriptions-and-portal', 'Customers sharing an email keep their own subscriptions and portal', CUSTOMER_ENDPOINTS, [
    ...SUBSCRIBE,
    'listSubscriptions',
    'createPortalSession',
  ]),
];
