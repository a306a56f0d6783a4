// What a publishable key (with the session's client secret) may call, and what the client secret
// alone may call (the hosted page): its fixed scopes, and 403 on every server-key-only operation.
import assert from 'node:assert/strict';
import type { ConformanceContext, HttpResult, Scenario } from '../../types.js';
import { call, describe, expectEnvelopeError, expectError, expectStatus } from '../fixtures/http.js';
import { publishableKey } from '../fixtures/keys.js';
import { PAYER_ONLY, SESSION } from '../fixtures/operations.js';
import { AUTH } from '../fixtures/sections.js';
import { getSession, newSession, retrieveSession, SANDBOX_CARD, type SessionAuth, type SessionRef } from '../fixtures/sessions.js';

/** A server-key-only operation: id, method, path, body, and whether it answers in the envelope. */
type Attempt = [operationId: string, method: string, path: string, body: unknown, envelope: boolean];

const SERVER_ONLY: Attempt[] = [
  [SESSION, 'POST', '/v1/checkout-sessions', { amount: 12.5, currency: 'USD', mode: 'embedded', paymentType: 'oneTime' }, false],
  ['refundCheckoutSession', 'POST', '/v1/checkout-sessions/{id}/refund', {}, true],
  ['capturePayment', 'POST', '/v1/payments/1/capture', {}, false],
  ['createInvoice', 'POST', '/v1/invoices', { customer: { email: 'payer@example.com' }, currency: 'USD', lineItems: [] }, false],
  ['listInvoices', 'GET', '/v1/invoices', undefined, false],
  ['createCustomer', 'POST', '/v1/customers', { email: 'payer@example.com' }, true],
  ['listCustomers', 'GET', '/v1/customers', undefined, true],
  ['createProduct', 'POST', '/v1/products', { name: 'Not allowed' }, false],
  ['listProducts', 'GET', '/v1/products', undefined, false],
  ['createPlan', 'POST', '/v1/plans', { productId: 1, name: 'Not allowed', amount: 1, currency: 'USD', interval: 'month' }, true],
  ['listPlans', 'GET', '/v1/plans', undefined, true],
  ['updatePlan', 'PATCH', '/v1/plans/1', { name: 'Not allowed' }, true],
  ['archivePlan', 'DELETE', '/v1/plans/1', undefined, true],
  ['listSubscriptions', 'GET', '/v1/subscriptions', undefined, true],
  ['cancelSubscription', 'POST', '/v1/subscriptions/1/cancel', {}, true],
  ['createPortalSession', 'POST', '/v1/portal-sessions', { clientId: 1 }, false],
];

const at = (s: SessionRef, suffix: string) => `/v1/checkout-sessions/${encodeURIComponent(s.id)}${suffix}`;

/** A request on the session with the publishable key and the session's client secret. */
const asPayer = (ctx: ConformanceContext, s: SessionRef, operationId: string, method: string, suffix: string, body?: unknown): Promise<HttpResult> =>
  call(ctx, 'checkout', operationId, {
    method,
    path: at(s, suffix),
    key: publishableKey(ctx),
    clientSecret: s.clientSecret,
    ...(body === undefined ? {} : { body }),
  });

/** Authorized: the answer is the operation's own (not 401 or 403, nor a server error). */
function expectAuthorized(res: HttpResult, what: string): void {
  assert.ok(
    res.status !== 401 && res.status !== 403 && res.status < 500,
    `${what} must be allowed to a publishable key with the client secret, got ${describe(res)}`,
  );
}

/** Calls each payer-side operation but confirm on the session `s` (opened with saved cards and SRC). */
async function payerCalls(ctx: ConformanceContext, s: SessionRef): Promise<void> {
  expectStatus(await asPayer(ctx, s, 'retrieveCheckoutSession', 'GET', ''), 200, 'read (checkout.session.read)');
  expectStatus(await asPayer(ctx, s, 'getCheckoutSessionStatus', 'GET', '/status'), 200, 'status (checkout.session.status)');
  const saved = await asPayer(ctx, s, 'listSavedCards', 'GET', '/saved-cards');
  expectStatus(saved, 200, 'saved cards (checkout.session.cards.read)');
  const lookup = await asPayer(ctx, s, 'lookupSrcCards', 'POST', '/src/lookup', { email: 'maria.lopez@example.com' });
  expectStatus(lookup, 200, 'SRC lookup (checkout.session.src.lookup)');
  assert.equal(typeof lookup.json.enrolled, 'boolean', 'the SRC lookup answers `enrolled`');
  const attempts: [string, string, unknown][] = [
    ['verifySavedCard', '/saved-cards/verify', { paymentMethodId: 'pm_conformance' }],
    ['confirmSavedCardOtp', '/saved-cards/confirm-otp', { verificationId: 'vrf_conformance', otp: '123456' }],
    ['authenticateSrcCard', '/src/authenticate', { srcCardId: 'src_conformance', validationData: '123456' }],
    ['withdrawCheckoutSessionQr', '/withdraw-qr', undefined],
  ];
  for (const [operationId, suffix, body] of attempts) expectAuthorized(await asPayer(ctx, s, operationId, 'POST', suffix, body), operationId);
}

export const authPublishable: Scenario[] = [
  {
    id: 'platform.auth.publishable-server-only-scopes-403',
    title:
      'A publishable key with a valid client secret is refused with 403 permission_denied on every server-key-only operation (session create, refund, capture, invoices, customers, products, plans, subscriptions, portal)',
    source: AUTH,
    requires: SERVER_ONLY.map(([operationId]) => operationId),
    serverOnly: true,
    async run(ctx) {
      const pk = publishableKey(ctx);
      const s = await newSession(ctx);
      for (const [operationId, method, path, body, envelope] of SERVER_ONLY) {
        const res = await call(ctx, 'checkout', operationId, {
          method,
          path: path.replace('{id}', encodeURIComponent(s.id)),
          key: pk,
          clientSecret: s.clientSecret,
          ...(body === undefined ? {} : { body }),
        });
        if (envelope) expectEnvelopeError(res, 403, 'permission_denied');
        else expectError(res, 403, 'permission_denied');
      }
      assert.equal((await retrieveSession(ctx, s.id)).status, 'created', 'nothing the publishable key tried changed the session');
    },
  },
  {
    id: 'platform.auth.publishable-scope-set',
    title:
      "A publishable key plus the session's client secret can call exactly its fixed scopes: read, confirm, withdraw-qr, tokenize, cancel, status, saved cards (list, verify, confirm-otp) and SRC (lookup, authenticate)",
    source: AUTH,
    requires: [SESSION, ...PAYER_ONLY, 'retrieveCheckoutSession', 'withdrawCheckoutSessionQr', 'cancelCheckoutSession', 'getCheckoutSessionStatus'],
    serverOnly: true,
    async run(ctx) {
      const s = await newSession(ctx, { enableClickToPay: true, allowSavedCards: true });
      await payerCalls(ctx, s);
      const token = await asPayer(ctx, s, 'tokenizeCard', 'POST', '/tokenize', SANDBOX_CARD);
      expectStatus(token, 201, 'tokenize (checkout.session.tokenize)');
      const confirmed = await asPayer(ctx, s, 'confirmCheckoutSession', 'POST', '/confirm', { paymentMethodId: token.json.id });
      expectStatus(confirmed, 200, 'confirm (checkout.session.confirm)');
      assert.equal(confirmed.json.paymentStatus, 'paid', 'the publishable key paid the session');
      const other = await newSession(ctx);
      expectStatus(await asPayer(ctx, other, 'cancelCheckoutSession', 'POST', '/cancel'), 204, 'cancel (checkout.session.cancel)');
      assert.equal((await retrieveSession(ctx, other.id)).status, 'cancelled');
    },
  },
  {
    id: 'platform.auth.client-secret-alone-hosted-page',
    title:
      'The client secret alone (hosted page) may retrieve the session and withdraw its QR code, and nothing else (confirm with it alone is refused with 401)',
    source: AUTH,
    requires: [SESSION, 'retrieveCheckoutSession', 'withdrawCheckoutSessionQr', 'confirmCheckoutSession', 'getCheckoutSessionStatus'],
    serverOnly: true,
    async run(ctx) {
      const s = await newSession(ctx);
      const alone: SessionAuth = { key: null, clientSecret: s.clientSecret };
      const read = await getSession(ctx, s.id, alone);
      expectStatus(read, 200, 'retrieve with the client secret alone');
      assert.equal(read.json.sessionId, s.id);
      const withdraw = await call(ctx, 'checkout', 'withdrawCheckoutSessionQr', { method: 'POST', path: at(s, '/withdraw-qr'), ...alone });
      expectAuthorized(withdraw, 'withdraw-qr with the client secret alone');
      expectStatus(withdraw, 200, 'withdraw-qr with the client secret alone');
      const confirm = await call(ctx, 'checkout', 'confirmCheckoutSession', {
        method: 'POST',
        path: at(s, '/confirm'),
        ...alone,
        body: { paymentMethodId: 'pm_conformance' },
      });
      expectError(confirm, 401, 'authentication');
      const status = await call(ctx, 'checkout', 'getCheckoutSessionStatus', { method: 'GET', path: at(s, '/status'), ...alone });
      expectError(status, 401, 'authentication');
      // Another session's secret opens nothing.
      const other = await newSession(ctx);
      expectError(await getSession(ctx, s.id, { key: null, clientSecret: other.clientSecret }), 401, 'authentication');
    },
  },
];
