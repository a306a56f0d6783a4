// Authentication scopes: which key may call what (publishable-only and server-only operations, polling
// and cancelling a session), and another merchant's objects. The modes are in modes.ts.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { newPlan, newProduct, postCustomer } from '../fixtures/catalog.js';
import { call, envelopeData, expectEnvelopeError, expectError, expectStatus } from '../fixtures/http.js';
import { emailFor, otherSecretKey, publishableKey, secretKey } from '../fixtures/keys.js';
import { PAYER_ONLY, SESSION } from '../fixtures/operations.js';
import { CHECKOUT_DOC, source } from '../fixtures/scenario.js';
import { AUTH } from '../fixtures/sections.js';
import { cancelSession, getSession, getSessionStatus, newSession, retrieveSession } from '../fixtures/sessions.js';

export const authScopes: Scenario[] = [
  {
    id: 'platform.auth.secret-key-on-publishable-only-403',
    title: 'A server key on a publishable-key-only operation (confirm, tokenize, saved cards, SRC) is refused with 403 permission_denied',
    source: AUTH,
    requires: [SESSION, ...PAYER_ONLY],
    serverOnly: true,
    async run(ctx) {
      const s = await newSession(ctx, { enableClickToPay: true, allowSavedCards: true });
      const at = (suffix: string) => `/v1/checkout-sessions/${encodeURIComponent(s.id)}${suffix}`;
      const key = secretKey(ctx);
      const attempts: [string, string, string, unknown][] = [
        ['confirmCheckoutSession', 'POST', '/confirm', { paymentMethodId: 'pm_conformance' }],
        ['tokenizeCard', 'POST', '/tokenize', { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 3, cvc: '123' }],
        ['listSavedCards', 'GET', '/saved-cards', undefined],
        ['verifySavedCard', 'POST', '/saved-cards/verify', { paymentMethodId: 'pm_conformance' }],
        ['confirmSavedCardOtp', 'POST', '/saved-cards/confirm-otp', { verificationId: 'vrf_conformance', otp: '123456' }],
        ['lookupSrcCards', 'POST', '/src/lookup', { email: 'maria.lopez@example.com' }],
        ['authenticateSrcCard', 'POST', '/src/authenticate', { srcCardId: 'src_conformance', validationData: '123456' }],
      ];
      for (const [operationId, method, suffix, body] of attempts) {
        expectError(
          await call(ctx, 'checkout', operationId, { method, path: at(suffix), key, ...(body === undefined ? {} : { body }) }),
          403,
          'permission_denied',
          'permission_denied',
        );
      }
    },
  },
  {
    id: 'platform.auth.status-server-key-may-poll',
    title: "The server key may poll a session's status and retrieve it, besides the publishable key",
    source: source(CHECKOUT_DOC, 'Endpoints', 'Checkout sessions'),
    requires: [SESSION, 'getCheckoutSessionStatus', 'retrieveCheckoutSession'],
    serverOnly: true,
    async run(ctx) {
      const s = await newSession(ctx);
      const polled = await getSessionStatus(ctx, s.id);
      expectStatus(polled, 200, 'poll the status with the server key');
      assert.equal(polled.json.status, 'created', 'a new session polls as created');
      const read = await getSession(ctx, s.id);
      expectStatus(read, 200, 'retrieve with the server key');
      assert.equal(read.json.sessionId, s.id);
      // Besides: the publishable key with the client secret, when the run has one.
      if (ctx.options.publishableKey) {
        const viaPk = await getSessionStatus(ctx, s.id, { key: ctx.options.publishableKey, clientSecret: s.clientSecret });
        expectStatus(viaPk, 200, 'poll the status with the publishable key');
        assert.equal(viaPk.json.status, polled.json.status, 'both keys see the same status');
      }
    },
  },
  {
    id: 'platform.auth.cancel-server-key-and-publishable',
    title: 'Cancel is callable with the server key, and with the publishable key plus client secret (scope `checkout.session.cancel`)',
    source: source(CHECKOUT_DOC, 'Endpoints', 'Checkout sessions'),
    requires: [SESSION, 'cancelCheckoutSession', 'retrieveCheckoutSession'],
    serverOnly: true,
    async run(ctx) {
      const pk = publishableKey(ctx);
      const bySk = await newSession(ctx);
      expectStatus(await cancelSession(ctx, bySk.id), 204, 'cancel with the server key');
      assert.equal((await retrieveSession(ctx, bySk.id)).status, 'cancelled', 'cancelled with the server key');
      const byPk = await newSession(ctx);
      // The publishable key needs the session's client secret: without it, or with another's, 401.
      expectError(await cancelSession(ctx, byPk.id, { key: pk }), 401, 'authentication');
      expectError(await cancelSession(ctx, byPk.id, { key: pk, clientSecret: bySk.clientSecret }), 401, 'authentication');
      assert.equal((await retrieveSession(ctx, byPk.id)).status, 'created', 'a refused cancel changes nothing');
      expectStatus(await cancelSession(ctx, byPk.id, { key: pk, clientSecret: byPk.clientSecret }), 204, 'cancel with the publishable key and client secret');
      assert.equal((await retrieveSession(ctx, byPk.id)).status, 'cancelled', 'cancelled with the publishable key');
    },
  },
  {
    id: 'platform.auth.other-merchant-404',
    title: "Another merchant's product, plan or customer answers 404, exactly as an id that does not exist (its existence is never revealed)",
    source: AUTH,
    requires: ['createProduct', 'retrieveProduct', 'createPlan', 'retrievePlan', 'createCustomer', 'retrieveCustomer'],
    serverOnly: true,
    async run(ctx) {
      const other = await otherSecretKey(ctx);
      const product = await newProduct(ctx, 'foreign product', other);
      const plan = await newPlan(ctx, product.id, 'foreign plan', {}, other);
      const customer = envelopeData(await postCustomer(ctx, { email: emailFor(ctx, 'foreign') }, other), 201, 'create a customer of the other merchant');
      const mine = secretKey(ctx);
      const foreignProduct = await call(ctx, 'checkout', 'retrieveProduct', { method: 'GET', path: `/v1/products/${product.id}`, key: mine });
      const missingProduct = await call(ctx, 'checkout', 'retrieveProduct', { method: 'GET', path: '/v1/products/2147483000', key: mine });
      expectError(foreignProduct, 404, 'not_found');
      expectError(missingProduct, 404, 'not_found');
      assert.equal(foreignProduct.json.error.code, missingProduct.json.error.code, 'a foreign product must answer like a missing one');
      const foreignPlan = await call(ctx, 'checkout', 'retrievePlan', { method: 'GET', path: `/v1/plans/${plan.id}`, key: mine });
      const missingPlan = await call(ctx, 'checkout', 'retrievePlan', { method: 'GET', path: '/v1/plans/2147483000', key: mine });
      expectEnvelopeError(foreignPlan, 404, 'not_found');
      assert.equal(foreignPlan.json.errorCode, missingPlan.json.errorCode, 'a foreign plan must answer like a missing one');
      const foreignCustomer = await call(ctx, 'checkout', 'retrieveCustomer', { method: 'GET', path: `/v1/customers/${customer.id}`, key: mine });
      const missingCustomer = await call(ctx, 'checkout', 'retrieveCustomer', { method: 'GET', path: '/v1/customers/2147483000', key: mine });
      expectEnvelopeError(foreignCustomer, 404, 'not_found');
      assert.equal(foreignCustomer.json.errorCode, missingCustomer.json.errorCode, 'a foreign customer must answer like a missing one');
    },
  },
];
