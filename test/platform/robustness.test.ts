// Inputs that used to answer 500 (issue 18's list): NUL characters in stored text and in query
// values, a badly percent-encoded id on an envelope operation, settling a fully refunded payment,
// and another merchant's customer on a one-time session with saved cards. The last block holds
// what the contract fuzz suite (test/fuzz/) found, each with its seed and case.
import { afterAll, describe, expect, it } from 'vitest';
import { ContractValidator, loadBundledContracts } from '../../conformance/validator.js';
import { closeConnections, send } from '../support/fuzz/send.js';
import { createTestSession, useTestServer } from '../support/server.js';

const t = useTestServer();
// The fuzz sender's kept-alive connections end with the file (before its server closes: after-hooks run last-registered first).
afterAll(() => {
  closeConnections();
});

const sk = () => t.merchantA.keys.test.secret;
const NUL = 'bad\u0000name';

describe('NUL characters', () => {
  it('in a stored text field answer 400 naming the field, in the documented shape', async () => {
    const product = await t.call('POST', '/v1/products', { key: sk(), body: { name: NUL } });
    expect(product.status).toBe(400);
    expect(product.json.error).toMatchObject({ code: 'parameter_invalid', param: 'name' });
    const customer = await t.call('POST', '/v1/customers', { key: sk(), body: { email: 'nul@example.com', name: NUL } });
    expect(customer.status).toBe(400);
    expect(customer.json).toMatchObject({ success: false, errorCode: 'parameter_invalid' });
    const session = await t.call('POST', '/v1/checkout-sessions', {
      key: sk(),
      body: { amount: 5, currency: 'USD', mode: 'embedded', paymentType: 'oneTime', lineItems: [{ name: NUL, quantity: 1, unitAmount: 5 }] },
    });
    expect(session.status).toBe(400);
    expect(session.json.error.param).toBe('lineItems.0.name');
    const metadata = await t.call('POST', '/v1/checkout-sessions', {
      key: sk(),
      body: { amount: 5, currency: 'USD', mode: 'embedded', paymentType: 'oneTime', metadata: { [NUL]: 'x' } },
    });
    expect(metadata.status).toBe(400);
  });

  it('in a query value answer 400', async () => {
    for (const path of [
      '/v1/customers?externalId=a%00b',
      '/v1/invoices?reference=a%00b',
      '/v1/test-helpers/messages?to=a%00b',
      '/v1/test-helpers/messages?startingAfter=msg_%00',
    ]) {
      const res = await t.call('GET', path, { key: sk() });
      expect(res.status, path).toBe(400);
      expect(res.text).not.toMatch(/stack|SELECT|invalid byte sequence/i);
    }
  });
});

describe('paths and states', () => {
  it('a badly percent-encoded id on an envelope operation answers in the envelope', async () => {
    const res = await t.call('GET', '/v1/plans/%E0%A4%A', { key: sk() });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ success: false, errorCode: 'parameter_invalid' });
  });

  it('settling a fully refunded payment answers 200 with its negative net (the fee is not returned)', async () => {
    const s = await createTestSession(t, t.merchantA);
    const client = { key: t.merchantA.keys.test.publishable, clientSecret: s.clientSecret };
    const pm = await t.call('POST', `/v1/checkout-sessions/${s.id}/tokenize`, {
      ...client,
      body: { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: 2031, cvc: '123' },
    });
    const paid = await t.call('POST', `/v1/checkout-sessions/${s.id}/confirm`, { ...client, body: { paymentMethodId: pm.json.id } });
    const paymentId = paid.json.paymentResult.id;
    expect((await t.call('POST', `/v1/checkout-sessions/${s.id}/refund`, { key: sk(), body: {} })).status).toBe(200);
    const settle = await t.call('POST', `/v1/test-helpers/payments/${paymentId}/settle`, { key: sk() });
    expect(settle.status, settle.text).toBe(200);
    expect(settle.json).toMatchObject({ settledAmount: 25, refundedAmount: 25 });
    expect(settle.json.feeAmount).toBeGreaterThan(0);
    expect(settle.json.netAmount).toBe(-settle.json.feeAmount);
    const again = await t.call('POST', `/v1/test-helpers/payments/${paymentId}/settle`, { key: sk() });
    expect(again.status).toBe(409);
  });

  it("a one-time session with allowSavedCards refuses another merchant's clientId", async () => {
    const other = await t.call('POST', '/v1/customers', { key: t.merchantB.keys.test.secret, body: { email: `b${Date.now()}@example.com`, name: 'B' } });
    const res = await t.call('POST', '/v1/checkout-sessions', {
      key: sk(),
      body: { amount: 5, currency: 'USD', mode: 'embedded', paymentType: 'oneTime', allowSavedCards: true, clientId: other.json.data.id },
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'validation_error', param: 'clientId' });
  });
});

describe('found by the contract fuzz suite (test/fuzz, seed 20260118)', () => {
  // Case "body deeply nested" (e.g. confirmSavedCardOtp #10): the NUL guard walked the body
  // recursively and ran out of stack, a 500 on every operation with a JSON body.
  it('a body nested 5,000 levels deep answers 400 not 500 (found by fuzz)', async () => {
    for (const body of [`${'['.repeat(5000)}1${']'.repeat(5000)}`, `{"name":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`]) {
      const res = await t.call('POST', '/v1/products', { key: sk(), rawBody: body });
      expect(res.status, res.text).toBe(400);
      expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'body' });
    }
    const envelope = await t.call('POST', '/v1/customers', { key: sk(), rawBody: `${'['.repeat(5000)}1${']'.repeat(5000)}` });
    expect(envelope.status).toBe(400);
    expect(envelope.json).toMatchObject({ success: false, errorCode: 'parameter_invalid' });
  });

  // Case confirmSavedCardOtp #4 (Idempotency-Key: fuzz-key-reused): the 409
  // idempotency_key_reused was not documented for the client-secret POSTs, so response
  // validation turned it into a 500. The contract now documents 409 on them.
  it('an Idempotency-Key reused on confirm-otp answers 409 not 500 (found by fuzz)', async () => {
    const s = await createTestSession(t, t.merchantA);
    const client = { key: t.merchantA.keys.test.publishable, clientSecret: s.clientSecret, headers: { 'idempotency-key': 'fuzz-key-reused' } };
    const first = await t.call('POST', `/v1/checkout-sessions/${s.id}/tokenize`, {
      ...client,
      body: { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: 2031, cvc: '123' },
    });
    expect(first.status).toBe(201);
    const res = await t.call('POST', `/v1/checkout-sessions/${s.id}/saved-cards/confirm-otp`, {
      ...client,
      body: { verificationId: 'vrf_test_5Gh8Jk2Lm4Np6Qr8', otp: '482913' },
    });
    expect(res.status, res.text).toBe(409);
    expect(res.json.error.code).toBe('idempotency_key_reused');
  });

  // Case createWebhookConfiguration #1 and #15: a URL with a raw `<` or `ü` passed the
  // validator's quick `uri` check, was stored, and the answer broke the contract's `uri` format.
  it('a webhook URL that is not an RFC 3986 URI answers 400 (found by fuzz)', async () => {
    for (const sandboxUrl of ['https://example.com/p?q=<script>', 'https://xn--bcher-kva.example/ü']) {
      const res = await t.call('POST', '/v1/WebhookConfiguration', { key: sk(), body: { sandboxUrl } });
      expect(res.status, res.text).toBe(400);
      expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'sandboxUrl' });
    }
  });

  // Long run, seed 777, createInvoice #269: two lines each below the amount cap whose quantity ×
  // unitAmount is above it; the answer's subtotal broke the contract's maximum (a 500).
  it('an invoice line whose quantity × unitAmount reaches 10^12 answers 400 not 500 (found by fuzz)', async () => {
    const res = await t.call('POST', '/v1/invoices', {
      key: sk(),
      body: {
        currency: 'USD',
        customer: { email: 'a@b.co' },
        lineItems: [
          { name: 'n', quantity: 74615.33, unitAmount: 49.99 },
          { name: 'big', quantity: 1000000, unitAmount: 9968920.42 },
        ],
      },
    });
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'lineItems.1' });
    const total = await t.call('POST', '/v1/invoices', {
      key: sk(),
      body: {
        currency: 'USD',
        customer: { email: 'a@b.co' },
        lineItems: [
          { name: 'a', quantity: 1000, unitAmount: 600000000 },
          { name: 'b', quantity: 1000, unitAmount: 600000000 },
        ],
      },
    });
    expect(total.status, total.text).toBe(400);
    expect(total.json.error).toMatchObject({ code: 'parameter_invalid', param: 'lineItems' });
  });

  // Cases "body not UTF-8 or not JSON" on getCheckoutSessionStatus, listSavedCards and the
  // Commerce listScopes: these operations answered 400 without documenting it.
  it('a GET whose path or body cannot be read answers a documented 400 (found by fuzz)', async () => {
    const contract = new ContractValidator(loadBundledContracts());
    for (const [operationId, path] of [
      ['getCheckoutSessionStatus', '/v1/checkout-sessions/%E0%A4%A/status'],
      ['retrieveCheckoutSession', '/v1/checkout-sessions/cs_test_x?unknown=1'],
    ]) {
      const res = await t.call('GET', path!, { key: sk() });
      expect(res.status, path).toBe(400);
      expect(contract.validateResponse(operationId!, res.status, res.headers, res.text), path).toEqual([]);
    }
    // fetch sends no body with a GET; node:http does.
    const scopes = await send(t.url, {
      kind: 'fuzz',
      auth: 'api key',
      method: 'GET',
      path: '/v1/scope',
      headers: { 'x-api-key': sk(), 'content-type': 'application/json' },
      body: Buffer.from('{'),
    });
    expect(scopes.status).toBe(400);
    expect(contract.validateResponse('listScopes', scopes.status, scopes.headers, scopes.text)).toEqual([]);
  });
});
