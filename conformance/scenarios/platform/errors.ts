// Error bodies: the general shape and the envelope, and the documented type of each status.
import assert from 'node:assert/strict';
import type { HttpResult, Scenario } from '../../types.js';
import { postCustomer } from '../fixtures/catalog.js';
import { call, expectEnvelopeError, expectError, expectStatus } from '../fixtures/http.js';
import { publishableKey, secretKey, tag } from '../fixtures/keys.js';
import { PAY_CARD, SESSION, SUBSCRIBE_TRIAL } from '../fixtures/operations.js';
import { CHECKOUT_DOC, source } from '../fixtures/scenario.js';
import { ERRORS } from '../fixtures/sections.js';
import { newSession, payByCard, refundSession, sessionBody } from '../fixtures/sessions.js';
import { getSubscription, subscriptionAction, trialSubscription } from '../fixtures/subscriptions.js';

/** Internals an error body must never show: an error's name and message, stack frames, file paths, SQL. */
const INTERNALS =
  /\b\w*Error:|\n\s+at |\bat \S+ \(|\/(?:work|home|app|usr|srv)\/|node_modules|\.(?:ts|js|mjs):\d+|\bselect\s.+\sfrom\b|\binsert\s+into\b|postgres|SQLSTATE/i;

/** 500 `server_error` in the general shape, marked retryable, with the request id, and nothing internal. */
function expectServerError(res: HttpResult): void {
  expectError(res, 500, 'server_error');
  const { error } = res.json;
  assert.equal(error.retryable, true, `a 500 is retryable with backoff: error.retryable must be true: ${res.text.slice(0, 300)}`);
  assert.equal(typeof error.requestId, 'string', `error.requestId: ${res.text.slice(0, 300)}`);
  assert.equal(error.requestId, res.headers.get('x-request-id'), 'error.requestId must be the X-Request-Id of the answer');
  const retryAfter = res.headers.get('retry-after');
  if (retryAfter !== null) assert.match(retryAfter, /^\d+$/, `Retry-After, when sent, must be seconds: ${retryAfter}`);
  const leaked = INTERNALS.exec(res.text);
  assert.equal(leaked, null, `the 500 leaks internals (${JSON.stringify(leaked?.[0])}): ${res.text.slice(0, 300)}`);
}

export const errors: Scenario[] = [
  {
    id: 'platform.errors.general-body',
    title: 'Errors answer `{error: {type, code, message, param}}`, `param` naming the offending parameter',
    source: ERRORS,
    requires: ['createProduct', 'listProducts'],
    serverOnly: true,
    async run(ctx) {
      const wrongType = await call(ctx, 'checkout', 'createProduct', { method: 'POST', path: '/v1/products', key: secretKey(ctx), body: { name: 42 } });
      expectError(wrongType, 400, 'invalid_request', undefined, 'name');
      assert.equal(typeof wrongType.json.error.code, 'string', 'error.code must be a string');
      const missing = await call(ctx, 'checkout', 'createProduct', {
        method: 'POST',
        path: '/v1/products',
        key: secretKey(ctx),
        body: { description: 'no name' },
      });
      expectError(missing, 400, 'invalid_request', undefined, 'name');
      const badQuery = await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: secretKey(ctx), query: { limit: 'many' } });
      expectError(badQuery, 400, 'invalid_request', undefined, 'limit');
    },
  },
  {
    id: 'platform.errors.envelope-body',
    title: 'Plan and customer endpoints answer errors in the envelope: `success` false, `errorCode`, `errorMessage` and `data` with the detail',
    source: source(CHECKOUT_DOC, 'Errors'),
    requires: ['createPlan', 'createCustomer', 'retrieveCustomer'],
    serverOnly: true,
    async run(ctx) {
      expectEnvelopeError(
        await call(ctx, 'checkout', 'createPlan', { method: 'POST', path: '/v1/plans', key: secretKey(ctx), body: { name: 'No product' } }),
        400,
        'invalid_request',
      );
      expectEnvelopeError(await postCustomer(ctx, { email: 'not-an-email' }), 400, 'invalid_request', undefined, 'email');
      expectEnvelopeError(
        await call(ctx, 'checkout', 'retrieveCustomer', { method: 'GET', path: '/v1/customers/2147483000', key: secretKey(ctx) }),
        404,
        'not_found',
      );
    },
  },
  {
    id: 'platform.errors.envelope-subscriptions-and-refunds',
    title: 'Subscription endpoints and refund failures answer errors in the envelope form',
    source: ERRORS,
    requires: ['retrieveSubscription', 'pauseSubscription', 'cancelSubscription', ...SUBSCRIBE_TRIAL, ...PAY_CARD, 'refundCheckoutSession'],
    serverOnly: true,
    async run(ctx) {
      expectEnvelopeError(await getSubscription(ctx, 2147483000), 404, 'not_found');
      const { subscriptionId } = await trialSubscription(ctx, 'envelope errors');
      expectStatus(await subscriptionAction(ctx, subscriptionId, 'cancel', { cancelAtPeriodEnd: false }), 200, 'cancel now');
      expectEnvelopeError(await subscriptionAction(ctx, subscriptionId, 'pause'), 400, 'invalid_request');
      // Refund failures: nothing paid yet, then more than is left.
      const s = await newSession(ctx);
      const nothing = await refundSession(ctx, s, {});
      expectEnvelopeError(nothing, 409, 'conflict', 'nothing_to_refund');
      await payByCard(ctx, s);
      const tooMuch = await refundSession(ctx, s, { amount: 1000 });
      expectEnvelopeError(tooMuch, 400, 'invalid_request', 'validation_error');
    },
  },
  {
    id: 'platform.errors.status-types',
    title: 'Each error status carries its documented type: 400 invalid_request, 401 authentication, 404 not_found, 409 conflict',
    source: ERRORS,
    requires: ['createProduct', 'listProducts', 'retrieveProduct'],
    serverOnly: true,
    async run(ctx) {
      expectError(
        await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: secretKey(ctx), query: { limit: 0 } }),
        400,
        'invalid_request',
      );
      expectError(await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: null }), 401, 'authentication');
      expectError(await call(ctx, 'checkout', 'retrieveProduct', { method: 'GET', path: '/v1/products/2147483000', key: secretKey(ctx) }), 404, 'not_found');
      const idem = `conf-${tag(ctx)}-status-types`;
      const first = await call(ctx, 'checkout', 'createProduct', {
        method: 'POST',
        path: '/v1/products',
        key: secretKey(ctx),
        headers: { 'Idempotency-Key': idem },
        body: { name: `Conformance ${tag(ctx)} A` },
      });
      expectStatus(first, 201, 'first create');
      const conflict = await call(ctx, 'checkout', 'createProduct', {
        method: 'POST',
        path: '/v1/products',
        key: secretKey(ctx),
        headers: { 'Idempotency-Key': idem },
        body: { name: `Conformance ${tag(ctx)} B` },
      });
      expectError(conflict, 409, 'conflict');
    },
  },
  {
    id: 'platform.errors.403-permission-denied',
    title: 'A key lacking access is refused with 403 permission_denied',
    source: ERRORS,
    requires: [SESSION, 'listProducts'],
    serverOnly: true,
    async run(ctx) {
      const pk = publishableKey(ctx);
      const s = await newSession(ctx);
      // A valid publishable key and client secret, on server-key-only operations.
      const products = await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: pk, clientSecret: s.clientSecret });
      expectError(products, 403, 'permission_denied');
      const create = await call(ctx, 'checkout', SESSION, {
        method: 'POST',
        path: '/v1/checkout-sessions',
        key: pk,
        clientSecret: s.clientSecret,
        body: sessionBody(ctx),
      });
      expectError(create, 403, 'permission_denied');
    },
  },
  {
    id: 'platform.errors.500-retry',
    title: 'An unexpected failure answers 500 server_error, retryable with backoff, without leaking internals',
    source: ERRORS,
    requires: ['simulateServerError'],
    serverOnly: true,
    async run(ctx) {
      // The test helper fails as any unexpected failure does; the same Idempotency-Key twice.
      const idem = `conf-${tag(ctx)}-500-retry`;
      const fail = () =>
        call(ctx, 'checkout', 'simulateServerError', {
          method: 'POST',
          path: '/v1/test-helpers/server-error',
          key: secretKey(ctx),
          headers: { 'Idempotency-Key': idem },
        });
      const first = await fail();
      expectServerError(first);
      const retry = await fail();
      expectServerError(retry);
      assert.notEqual(retry.headers.get('idempotent-replayed'), 'true', 'a retry after a 500 runs again: it must not be a replay of the stored 500');
      assert.notEqual(retry.json.error.requestId, first.json.error.requestId, 'a retry after a 500 is a new request, with its own request id');
    },
  },
  {
    id: 'platform.errors.404-unknown-resource',
    title: 'A resource that does not exist answers 404 not_found',
    source: ERRORS,
    requires: ['retrieveProduct', 'retrievePlan'],
    serverOnly: true,
    async run(ctx) {
      expectError(await call(ctx, 'checkout', 'retrieveProduct', { method: 'GET', path: '/v1/products/2147483000', key: secretKey(ctx) }), 404, 'not_found');
      expectEnvelopeError(await call(ctx, 'checkout', 'retrievePlan', { method: 'GET', path: '/v1/plans/2147483000', key: secretKey(ctx) }), 404, 'not_found');
    },
  },
];
