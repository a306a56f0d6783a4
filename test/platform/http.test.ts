// The HTTP contract every operation shares: paths, errors in the documented shapes, headers.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../server/shared/errors.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer({
  // Operations given deliberately failing handlers, to see what a caller gets from a crash.
  commerceHandlers: {
    // Every operation has a handler now: this one is taken away, to see the 501 of one without.
    listPaymentLinks: undefined,
    async getMerchant() {
      throw new Error('SELECT key_hash FROM api_keys WHERE key = sk_test_leak -- at db.ts:42');
    },
    async listScopes() {
      // 409 is not among listScopes' documented answers.
      throw new AppError('invalid_state', { message: 'Scopes are locked.' });
    },
  },
  checkoutHandlers: {
    async voidInvoice() {
      throw new AppError('invalid_state', { message: 'A paid invoice cannot be voided.' });
    },
  },
});
const sk = () => t.merchantA.keys.test.secret;

describe('paths', () => {
  it('/api/v1 answers exactly as /v1 on the Checkout interface', async () => {
    const product = await t.call('POST', '/api/v1/products', { key: sk(), body: { name: 'Alias' } });
    expect(product.status).toBe(201);
    const a = await t.call('GET', `/v1/products/${product.json.id}`, { key: sk() });
    const b = await t.call('GET', `/api/v1/products/${product.json.id}`, { key: sk() });
    expect(b.status).toBe(200);
    expect(b.json).toEqual(a.json);
  });

  it('the /api prefix is not an alias on the Commerce interface', async () => {
    expect((await t.call('GET', '/api/v1/SubscriptionPlan', { apiKey: sk() })).status).toBe(404);
  });

  it('Commerce paths match case-insensitively', async () => {
    for (const path of ['/v1/SubscriptionPlan', '/v1/subscriptionPlan', '/V1/SUBSCRIPTIONPLAN', '/v1/subscriptionplan']) {
      const res = await t.call('GET', path, { apiKey: sk() });
      expect(res.status, path).toBe(200); // listSubscriptionPlans, whatever the case
      expect(Array.isArray(res.json.value), path).toBe(true);
    }
  });

  it('Checkout paths stay case-sensitive', async () => {
    expect((await t.call('GET', '/v1/Products', { key: sk() })).status).toBe(404);
  });

  it('OData key paths route with literal or percent-encoded quotes and parentheses', async () => {
    const invoice = await t.call('POST', '/v1/invoice', {
      apiKey: sk(),
      body: { currencyCode: 'USD', items: [{ name: 'Routing', unitCost: 1, quantity: 1 }] },
    });
    expect(invoice.status, invoice.text).toBe(201);
    const code: string = invoice.json.code;
    for (const path of [
      `/v1/invoice/getByReference(code='${code}')`,
      `/v1/invoice/getByReference(code=%27${code}%27)`,
      `/v1/invoice/getByReference%28code%3D%27${code}%27%29`,
      `/v1/Invoice/GetByReference(code='${code}')`,
    ]) {
      const res = await t.call('GET', path);
      expect(res.status, path).toBe(200);
      expect(res.json.id, path).toBe(invoice.json.id);
    }
    // Two keys in parentheses reach their operation: no such link here, not an unknown route.
    const slug = await t.call('GET', "/v1/PaymentLink/GetByMerchantSlug(merchantSlug='demo',code='SPRING')");
    expect([slug.status, slug.json.error.code, slug.json.error.message]).toEqual([404, 'resource_not_found', 'No such payment link.']);
  });

  it('an unknown route answers 404 route_not_found in the general shape', async () => {
    const res = await t.call('GET', '/v1/nothing-here', { key: sk() });
    expect(res.status).toBe(404);
    expect(res.json.error).toMatchObject({ type: 'not_found', code: 'route_not_found' });
  });

  it('a path that is not valid percent-encoding answers 400 in the general shape, never 500', async () => {
    const res = await t.call('GET', '/qr/%00%ff.png');
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: 'invalid_request', code: 'parameter_invalid' });
  });

  it('a known path with another method answers 404 and names the methods it has', async () => {
    const res = await t.call('PUT', '/v1/plans', { key: sk() });
    expect(res.status).toBe(404);
    expect(res.json.error.message).toContain('GET, POST');
  });

  it('an operation without a handler answers 501 not_implemented', async () => {
    const res = await t.call('GET', '/v1/PaymentLink', { apiKey: sk() }); // listPaymentLinks, its handler taken away above
    expect(res.status).toBe(501);
    expect(res.json.error).toMatchObject({ type: 'not_implemented', code: 'not_implemented' });
  });

  it('POST /v1/client-token always answers 501, without a key', async () => {
    const res = await t.call('POST', '/v1/client-token');
    expect(res.status).toBe(501);
    expect(res.json.error.message).toContain('publishable key');
  });

  it('GET /healthz answers ok', async () => {
    const res = await t.call('GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'ok' });
  });
});

describe('errors in the documented shape', () => {
  it('a wrong type answers 400 parameter_invalid naming the field', async () => {
    const res = await t.call('POST', '/v1/products', { key: sk(), body: { name: 42 } });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: 'invalid_request', code: 'parameter_invalid', param: 'name' });
  });

  it('a missing field answers 400 parameter_missing naming it', async () => {
    const res = await t.call('POST', '/v1/products', { key: sk(), body: { description: 'no name' } });
    expect(res.json.error).toMatchObject({ code: 'parameter_missing', param: 'name' });
  });

  it('an unknown field answers 400 parameter_unknown naming it', async () => {
    const res = await t.call('POST', '/v1/products', { key: sk(), body: { name: 'x', colour: 'red' } });
    expect(res.json.error).toMatchObject({ code: 'parameter_unknown', param: 'colour' });
  });

  it('a bad query parameter names it', async () => {
    const res = await t.call('GET', '/v1/products?limit=500', { key: sk() });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'limit' });
  });

  it('an unknown query parameter is refused', async () => {
    const res = await t.call('GET', '/v1/products?colour=red', { key: sk() });
    expect(res.status).toBe(400);
    expect(res.json.error.param).toBe('colour');
  });

  it('a bad path parameter names it', async () => {
    const res = await t.call('GET', '/v1/products/abc', { key: sk() });
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'id' });
  });

  it('ids, cursors and amounts beyond what can be stored answer 400 naming the field, never 500', async () => {
    const cases: [string, string, unknown, string][] = [
      ['GET', '/v1/products/99999999999', undefined, 'id'],
      ['GET', '/v1/plans/3000000000', undefined, 'id'],
      ['GET', '/v1/products?startingAfter=99999999999999999999', undefined, 'startingAfter'],
      ['POST', '/v1/checkout-sessions', { amount: 1e20, currency: 'USD', mode: 'embedded', paymentType: 'oneTime' }, 'amount'],
      ['POST', '/v1/checkout-sessions', { amount: 5, currency: 'USD', mode: 'embedded', paymentType: 'oneTime', clientId: 99999999999 }, 'clientId'],
      ['POST', '/v1/plans', { productId: 1, name: 'x', amount: 1e18, currency: 'USD', interval: 'month' }, 'amount'],
    ];
    for (const [method, path, body, param] of cases) {
      const res = await t.call(method, path, { key: sk(), ...(body ? { body } : {}) });
      expect(res.status, path).toBe(400);
      expect(res.json.error?.param ?? res.json.data?.param, path).toBe(param);
    }
  });

  it('envelope endpoints give validator errors in the envelope with param', async () => {
    const res = await t.call('POST', '/v1/customers', { key: sk(), body: { email: 'not-an-email' } });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ success: false, errorCode: 'parameter_invalid', data: { type: 'invalid_request', param: 'email' } });
  });

  it('malformed JSON answers 400 invalid_json', async () => {
    const res = await t.call('POST', '/v1/products', { key: sk(), rawBody: '{"name": "x",' });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: 'invalid_request', code: 'invalid_json' });
  });

  it('a domain error renders from the catalog', async () => {
    const res = await t.call('POST', '/v1/invoices/7/void', { key: sk() });
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ type: 'conflict', code: 'invalid_state', message: 'A paid invoice cannot be voided.' });
  });

  it('an answer that breaks the contract is caught by response validation (500 in tests)', async () => {
    const res = await t.call('GET', '/v1/scope', { apiKey: sk() });
    expect(res.status).toBe(500);
    expect(res.json.error.code).toBe('internal_error');
  });

  it('a crash answers 500 internal_error with the request id and leaks no stack, SQL or key', async () => {
    const res = await t.call('GET', '/v1/merchant', { apiKey: sk(), headers: { 'x-request-id': 'req_test_crash_0001' } });
    expect(res.status).toBe(500);
    expect(res.json.error).toMatchObject({ type: 'server_error', code: 'internal_error', requestId: 'req_test_crash_0001' });
    expect(res.text).not.toMatch(/SELECT|api_keys|sk_test_leak|db\.ts|at /);
    expect(res.headers.get('x-request-id')).toBe('req_test_crash_0001');
  });
});

describe('headers', () => {
  it('every response carries the rate-limit headers and X-Request-Id, errors included', async () => {
    const responses = [
      await t.call('GET', '/v1/products', { key: sk() }),
      await t.call('GET', '/v1/products'),
      await t.call('GET', '/v1/nothing'),
      await t.call('POST', '/v1/products', { key: sk(), rawBody: '{' }),
      await t.call('POST', '/v1/client-token'),
    ];
    for (const res of responses) {
      expect(res.headers.get('x-ratelimit-limit'), String(res.status)).toMatch(/^\d+$/);
      expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
      expect(res.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    }
  });
});
