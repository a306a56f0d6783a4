// Payments by id through the Commerce interface (`/v1/payment`): a card payment, and a card hold with its capture.
import assert from 'node:assert/strict';
import type { ConformanceContext, HttpResult, Scenario } from '../../types.js';
import { call, expectStatus } from '../fixtures/http.js';
import { apiKey } from '../fixtures/keys.js';
import { card, OTHER_OPS, VISA } from '../fixtures/commerce-payments.js';

/** A card payment of `amount` USD made with `POST /v1/payment`. */
async function createPayment(ctx: ConformanceContext, body: Record<string, unknown>): Promise<HttpResult> {
  const res = await call(ctx, 'commerce', 'createCommercePayment', {
    method: 'POST',
    path: '/v1/payment',
    apiKey: apiKey(ctx),
    body: { currency: 'USD', ...body },
  });
  expectStatus(res, 201, 'create a payment');
  return res;
}

export const commerceDirectPayments: Scenario[] = [
  {
    id: 'commerce.other.create-payment',
    title: '`POST /v1/payment` accepts the create-payment example (amount, currency, paymentMethod, description)',
    source: OTHER_OPS,
    requires: ['createCommercePayment'],
    serverOnly: true,
    async run(ctx) {
      const res = await createPayment(ctx, { amount: 25, paymentMethod: 'CreditCard', description: 'Conformance order', paymentOptionId: 1, card: card(VISA) });
      assert.equal(res.json.amount, 25);
      assert.equal(res.json.currency, 'USD');
      assert.equal(res.json.description, 'Conformance order');
      assert.equal(res.json.status, 'Success');
    },
  },
  {
    id: 'commerce.other.create-payment-hosted-page',
    title:
      '`POST /v1/payment` without `paymentOptionId` (the example: amount, currency, paymentMethod, description) answers a `Pending` payment with `Redirect` to the hosted invoice page',
    source: OTHER_OPS,
    requires: ['createCommercePayment', 'getCommercePayment'],
    serverOnly: true,
    async run(ctx) {
      const res = await createPayment(ctx, { amount: 49.99, paymentMethod: 'CreditCard', description: 'Conformance hosted order' });
      assert.equal(res.json.status, 'Pending');
      assert.equal(res.json.approvalAction, 'Redirect');
      assert.equal(res.json.paymentOptionId, null, 'no option is chosen yet');
      const url = new URL(String(res.json.approvalDataOrUrl));
      assert.equal(url.pathname, `/invoice/${res.json.invoiceIdentifier}`, 'the redirect is the hosted page of the payment invoice');
      const page = await fetch(new URL(url.pathname, ctx.options.baseUrl));
      assert.equal(page.status, 200, 'the hosted invoice page is served');
      const shown = await call(ctx, 'commerce', 'getCommercePayment', { method: 'GET', path: `/v1/payment/${res.json.id}`, apiKey: apiKey(ctx) });
      expectStatus(shown, 200, 'read the payment back');
      assert.equal(shown.json.status, 'Pending');
    },
  },
  {
    id: 'commerce.other.get-payment',
    title: '`GET /v1/payment/{id}` answers a payment',
    source: OTHER_OPS,
    requires: ['createCommercePayment', 'getCommercePayment'],
    serverOnly: true,
    async run(ctx) {
      const made = await createPayment(ctx, { amount: 31.5, paymentOptionId: 1, card: card(VISA), clientReferenceNumber: 'CONF-1' });
      const res = await call(ctx, 'commerce', 'getCommercePayment', { method: 'GET', path: `/v1/payment/${made.json.id}`, apiKey: apiKey(ctx) });
      expectStatus(res, 200, 'read the payment');
      assert.equal(res.json.id, made.json.id);
      assert.equal(res.json.amount, 31.5);
      assert.equal(res.json.clientReferenceNumber, 'CONF-1');
      assert.equal(res.json.invoiceId, made.json.invoiceId);
    },
  },
  {
    id: 'commerce.other.capture-payment',
    title: '`POST /v1/payment/{id}/capture` captures a held payment',
    source: OTHER_OPS,
    requires: ['createCommercePayment', 'captureCommercePayment'],
    serverOnly: true,
    async run(ctx) {
      const hold = await createPayment(ctx, { amount: 50, paymentOptionId: 1, card: card(VISA), captureMethod: 'Manual' });
      assert.equal(hold.json.holdStatus, 'Authorized');
      const res = await call(ctx, 'commerce', 'captureCommercePayment', {
        method: 'POST',
        path: `/v1/payment/${hold.json.id}/capture`,
        apiKey: apiKey(ctx),
        body: { amount: 40 },
      });
      expectStatus(res, 200, 'capture the hold');
      assert.equal(res.json.holdStatus, 'Captured');
      assert.equal(res.json.capturedAmount, 40);
    },
  },
  {
    id: 'commerce.other.capture-repeat-already-done',
    title: 'Capturing a payment captured already answers 200 with `alreadyDone` true and the payment as captured, like the Checkout interface',
    source: OTHER_OPS,
    requires: ['createCommercePayment', 'captureCommercePayment'],
    serverOnly: true,
    async run(ctx) {
      const hold = await createPayment(ctx, { amount: 50, paymentOptionId: 1, card: card(VISA), captureMethod: 'Manual' });
      const capture = (body: Record<string, unknown>) =>
        call(ctx, 'commerce', 'captureCommercePayment', { method: 'POST', path: `/v1/payment/${hold.json.id}/capture`, apiKey: apiKey(ctx), body });
      const first = await capture({ amount: 40 });
      expectStatus(first, 200, 'capture the hold');
      assert.equal(first.json.alreadyDone, false, 'the capture itself answers alreadyDone false');
      const twice = await capture({});
      expectStatus(twice, 200, 'capture it again');
      assert.equal(twice.json.alreadyDone, true, 'a repeated capture answers alreadyDone true');
      assert.equal(twice.json.holdStatus, 'Captured');
      assert.equal(twice.json.capturedAmount, 40, 'nothing more is captured');
      assert.equal(twice.json.feePaid, first.json.feePaid, 'no second fee');
    },
  },
];
