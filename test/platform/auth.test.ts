// Authentication and authorization, exactly as the contracts say per operation.
import { describe, expect, it } from 'vitest';
import { createTestSession, useTestServer } from '../support/server.js';

const t = useTestServer();

const expectError = (res: { status: number; json: any }, status: number, type: string, code: string) => {
  expect(res.status).toBe(status);
  const body = res.json;
  if (body.error) expect(body.error).toMatchObject({ type, code });
  else expect(body).toMatchObject({ success: false, errorCode: code, data: { type } });
};

describe('secret keys', () => {
  it('a missing key answers 401 authentication_required', async () => {
    expectError(await t.call('GET', '/v1/products'), 401, 'authentication', 'authentication_required');
  });

  it('an unknown key answers 401 invalid_api_key and the key is never echoed', async () => {
    const res = await t.call('GET', '/v1/products', { key: 'sk_test_0000000000000000000000000000dead' });
    expectError(res, 401, 'authentication', 'invalid_api_key');
    expect(res.text).not.toContain('0000dead');
  });

  it('a malformed Authorization header answers 401', async () => {
    const res = await t.call('GET', '/v1/products', { headers: { authorization: 'Basic abc' } });
    expectError(res, 401, 'authentication', 'invalid_api_key');
  });

  it('a test secret key works, and the envelope endpoints answer 401 in the envelope', async () => {
    expect((await t.call('GET', '/v1/products', { key: t.merchantA.keys.test.secret })).status).toBe(200);
    const res = await t.call('GET', '/v1/plans');
    expect(res.json).toMatchObject({ success: false, errorCode: 'authentication_required', data: { type: 'authentication' } });
  });

  it('a live secret key works too', async () => {
    expect((await t.call('GET', '/v1/products', { key: t.merchantA.keys.live.secret })).status).toBe(200);
  });
});

describe('publishable keys and client secrets', () => {
  it('a publishable key without X-Client-Secret answers 401 invalid_client_secret', async () => {
    const session = await createTestSession(t, t.merchantA, false);
    const res = await t.call('GET', `/v1/checkout-sessions/${session.id}`, { key: t.merchantA.keys.test.publishable });
    expectError(res, 401, 'authentication', 'invalid_client_secret');
  });

  it("a publishable key with another session's secret answers 401", async () => {
    const mine = await createTestSession(t, t.merchantA, false);
    const other = await createTestSession(t, t.merchantA, false);
    const res = await t.call('GET', `/v1/checkout-sessions/${mine.id}`, { key: t.merchantA.keys.test.publishable, clientSecret: other.clientSecret });
    expectError(res, 401, 'authentication', 'invalid_client_secret');
  });

  it("a publishable key with another merchant's session answers 401", async () => {
    const theirs = await createTestSession(t, t.merchantB, false);
    const res = await t.call('GET', `/v1/checkout-sessions/${theirs.id}`, { key: t.merchantA.keys.test.publishable, clientSecret: theirs.clientSecret });
    expectError(res, 401, 'authentication', 'invalid_client_secret');
  });

  it("a test publishable key with a live session's secret answers 401", async () => {
    const live = await createTestSession(t, t.merchantA, true);
    const res = await t.call('GET', `/v1/checkout-sessions/${live.id}`, { key: t.merchantA.keys.test.publishable, clientSecret: live.clientSecret });
    expectError(res, 401, 'authentication', 'invalid_client_secret');
  });

  it('a publishable key with the right secret passes authentication (the operation then answers)', async () => {
    const session = await createTestSession(t, t.merchantA, false);
    const res = await t.call('GET', `/v1/checkout-sessions/${session.id}/status`, {
      key: t.merchantA.keys.test.publishable,
      clientSecret: session.clientSecret,
    });
    expect(res.status).toBe(200);
    expect(res.json.status).toBe('created');
  });

  it('a publishable key on a server-only operation answers 403 permission_denied', async () => {
    const session = await createTestSession(t, t.merchantA, false);
    const res = await t.call('GET', '/v1/products', { key: t.merchantA.keys.test.publishable, clientSecret: session.clientSecret });
    expectError(res, 403, 'permission_denied', 'permission_denied');
    expect(res.json.error.message).toContain('subscriptionproduct.read');
  });

  it('a secret key on a publishable-only operation answers 403 permission_denied', async () => {
    const session = await createTestSession(t, t.merchantA, false);
    const res = await t.call('POST', `/v1/checkout-sessions/${session.id}/tokenize`, {
      key: t.merchantA.keys.test.secret,
      body: { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: 2030, cvc: '123' },
    });
    expectError(res, 403, 'permission_denied', 'permission_denied');
  });

  it('the client secret alone is accepted only where the hosted page may use it', async () => {
    const session = await createTestSession(t, t.merchantA, false);
    const retrieve = await t.call('GET', `/v1/checkout-sessions/${session.id}`, { clientSecret: session.clientSecret });
    expect(retrieve.status).toBe(200);
    expect(retrieve.json.id).toBe(session.id);
    const status = await t.call('GET', `/v1/checkout-sessions/${session.id}/status`, { clientSecret: session.clientSecret });
    expectError(status, 401, 'authentication', 'authentication_required');
  });

  it('a publishable key is not accepted as x-api-key on the Commerce interface', async () => {
    const res = await t.call('GET', '/v1/account', { apiKey: t.merchantA.keys.test.publishable });
    expectError(res, 401, 'authentication', 'invalid_api_key');
  });
});

describe('x-api-key on the Commerce interface', () => {
  it('is required', async () => {
    expectError(await t.call('GET', '/v1/SubscriptionPlan'), 401, 'authentication', 'authentication_required');
  });
  it('must be a known secret key', async () => {
    expectError(await t.call('GET', '/v1/SubscriptionPlan', { apiKey: 'sk_test_unknownunknownunknown1234' }), 401, 'authentication', 'invalid_api_key');
  });
  it('a bearer key is not read on the Commerce interface', async () => {
    expectError(await t.call('GET', '/v1/SubscriptionPlan', { key: t.merchantA.keys.test.secret }), 401, 'authentication', 'authentication_required');
  });
  it('public operations need no key', async () => {
    const res = await t.call('GET', "/v1/invoice/getByReference(code='NO-SUCH-REF')");
    expect(res.status).not.toBe(401);
  });
});

describe('other merchants and the other mode', () => {
  it("another merchant's product answers 404, exactly like a missing one", async () => {
    const created = await t.call('POST', '/v1/products', { key: t.merchantB.keys.test.secret, body: { name: 'B only' } });
    expect(created.status).toBe(201);
    const theirs = await t.call('GET', `/v1/products/${created.json.id}`, { key: t.merchantA.keys.test.secret });
    const missing = await t.call('GET', '/v1/products/999999999', { key: t.merchantA.keys.test.secret });
    expect(theirs.status).toBe(404);
    expect(theirs.json.error.code).toBe(missing.json.error.code);
    expect(theirs.json.error.message).not.toContain('B only');
  });

  it("another merchant's plan and customer answer 404 in the envelope", async () => {
    const product = await t.call('POST', '/v1/products', { key: t.merchantB.keys.test.secret, body: { name: 'B product' } });
    const plan = await t.call('POST', '/v1/plans', {
      key: t.merchantB.keys.test.secret,
      body: { productId: product.json.id, name: 'B plan', amount: 10, currency: 'USD', interval: 'month' },
    });
    const customer = await t.call('POST', '/v1/customers', { key: t.merchantB.keys.test.secret, body: { email: 'b-only@example.com' } });
    for (const path of [`/v1/plans/${plan.json.data.id}`, `/v1/customers/${customer.json.data.id}`]) {
      const res = await t.call('GET', path, { key: t.merchantA.keys.test.secret });
      expectError(res, 404, 'not_found', 'resource_not_found');
    }
  });

  it('customers and plans are shared by both modes of a merchant', async () => {
    const customer = await t.call('POST', '/v1/customers', { key: t.merchantA.keys.test.secret, body: { email: 'both-modes@example.com' } });
    const viaLive = await t.call('GET', `/v1/customers/${customer.json.data.id}`, { key: t.merchantA.keys.live.secret });
    expect(viaLive.status).toBe(200);
    const product = await t.call('POST', '/v1/products', { key: t.merchantA.keys.test.secret, body: { name: 'Shared' } });
    const plan = await t.call('POST', '/v1/plans', {
      key: t.merchantA.keys.test.secret,
      body: { productId: product.json.id, name: 'Shared plan', amount: 5, currency: 'USD', interval: 'week' },
    });
    expect((await t.call('GET', `/v1/plans/${plan.json.data.id}`, { key: t.merchantA.keys.live.secret })).status).toBe(200);
  });

  it('test helpers refuse live keys with 403 livemode_not_allowed', async () => {
    const res = await t.call('POST', '/v1/test-helpers/clock/advance', { key: t.merchantA.keys.live.secret, body: { seconds: 60 } });
    expectError(res, 403, 'permission_denied', 'livemode_not_allowed');
  });
});
