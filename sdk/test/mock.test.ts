// The SDK against the Prism mock of both interfaces: a real client over HTTP against a real
// mock serving the bundled contracts. Expected bodies are read from the contracts' examples,
// so a drift between the SDK, the documents and the mock fails here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrism } from '../../scripts/mock.mjs';
import {
  createCheckoutClient,
  createCommerceClient,
  TillAuthenticationError,
  TillError,
  TillInvalidRequestError,
  TillNotFoundError,
  TillNotImplementedError,
} from '../src/index.js';
import { bundled, documentedExample, documentedRequest } from './helpers.js';

const checkoutDoc = bundled('checkout');
const commerceDoc = bundled('commerce');
let mocks: Awaited<ReturnType<typeof startPrism>>[] = [];
let checkoutUrl = '';
let commerceUrl = '';

beforeAll(async () => {
  mocks = await Promise.all([startPrism({ api: 'checkout' }), startPrism({ api: 'commerce' })]);
  checkoutUrl = mocks[0]!.url;
  commerceUrl = mocks[1]!.url;
});
afterAll(async () => {
  await Promise.all(mocks.map((m) => m.stop()));
});

const sessionExample = () => documentedExample(checkoutDoc, 'GET', '/v1/checkout-sessions/{id}') as { id: string };

describe('checkout client against the mock', () => {
  it('retrieves a session with the secret key and gets the documented body and rate-limit headers', async () => {
    const till = createCheckoutClient({ baseUrl: checkoutUrl, secretKey: 'sk_test_4eC39HqLyjWDarjtT1zdp7dc' });
    const expected = sessionExample();
    const { data, error, response } = await till.GET('/v1/checkout-sessions/{id}', { params: { path: { id: expected.id } } });
    expect(error).toBeUndefined();
    expect(response.status).toBe(200);
    expect(data).toEqual(expected);
    expect(data?.refund.reason).toBeDefined();
    expect(response.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    expect(response.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    expect(response.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
  });

  it('creates a session from the documented request and sends the Idempotency-Key header', async () => {
    const till = createCheckoutClient({ baseUrl: checkoutUrl, secretKey: 'sk_test_4eC39HqLyjWDarjtT1zdp7dc' });
    const body = documentedRequest(checkoutDoc, 'POST', '/v1/checkout-sessions');
    const { data, error, response } = await till.POST('/v1/checkout-sessions', {
      params: { header: { 'Idempotency-Key': 'order-8841' } },
      body,
    });
    expect(error).toBeUndefined();
    expect([200, 201]).toContain(response.status);
    expect(data?.object).toBe('checkout_session');
    expect(data?.clientSecret).toMatch(/_secret_/);
    expect(data).toEqual(documentedExample(checkoutDoc, 'POST', '/v1/checkout-sessions', String(response.status)));
  });

  it('lists plans inside the envelope', async () => {
    const till = createCheckoutClient({ baseUrl: checkoutUrl, secretKey: 'sk_test_4eC39HqLyjWDarjtT1zdp7dc' });
    const { data, error } = await till.GET('/v1/plans', { params: { query: { limit: 10 } } });
    expect(error).toBeUndefined();
    expect(data?.success).toBe(true);
    expect(data?.data.object).toBe('list');
    expect(data).toEqual(documentedExample(checkoutDoc, 'GET', '/v1/plans'));
  });

  it('polls status with a publishable key and the client secret', async () => {
    const client = createCheckoutClient({
      baseUrl: checkoutUrl,
      publishableKey: 'pk_test_TYooMQauvdEDq54NiTphI7jx',
      clientSecret: 'cs_test_a1B2c3D4e5F6g7H8_secret_9Zx8Yw7Vu6Ts5Rq4',
    });
    const { data, error } = await client.GET('/v1/checkout-sessions/{id}/status', { params: { path: { id: sessionExample().id } } });
    expect(error).toBeUndefined();
    expect(data).toEqual(documentedExample(checkoutDoc, 'GET', '/v1/checkout-sessions/{id}/status'));
  });

  it('retrieves a session with the client secret alone, as the hosted page does', async () => {
    const page = createCheckoutClient({ baseUrl: checkoutUrl, clientSecret: 'cs_test_a1B2c3D4e5F6g7H8_secret_9Zx8Yw7Vu6Ts5Rq4' });
    const { data, error } = await page.GET('/v1/checkout-sessions/{id}', { params: { path: { id: sessionExample().id } } });
    expect(error).toBeUndefined();
    expect(data?.object).toBe('checkout_session');
  });

  it('returns { error } in the envelope shape when the key is not good enough, and never throws', async () => {
    const page = createCheckoutClient({ baseUrl: checkoutUrl, clientSecret: 'cs_test_a1B2c3D4e5F6g7H8_secret_9Zx8Yw7Vu6Ts5Rq4' });
    const { data, error, response } = await page.GET('/v1/plans');
    expect(data).toBeUndefined();
    expect(response.status).toBe(401);
    expect(error?.success).toBe(false);
    expect(error?.data.type).toBe('authentication');
  });

  it('throws typed errors when throwOnError is set, from either body shape', async () => {
    const strict = createCheckoutClient({
      baseUrl: checkoutUrl,
      clientSecret: 'cs_test_a1B2c3D4e5F6g7H8_secret_9Zx8Yw7Vu6Ts5Rq4',
      throwOnError: true,
    });
    const envelope = await strict.GET('/v1/plans').catch((e: unknown) => e);
    expect(envelope).toBeInstanceOf(TillAuthenticationError);
    expect(envelope).toMatchObject({ statusCode: 401, type: 'authentication' });

    const till = createCheckoutClient({ baseUrl: checkoutUrl, secretKey: 'sk_test_4eC39HqLyjWDarjtT1zdp7dc', throwOnError: true });
    const invalid = await till
      .POST('/v1/checkout-sessions', { body: { amount: 'lots', currency: 'USD', mode: 'hosted', paymentType: 'oneTime' } as never })
      .catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(TillInvalidRequestError);
    expect((invalid as TillError).param).toBeTruthy();

    const missing = await till
      .GET('/v1/checkout-sessions/{id}', { params: { path: { id: sessionExample().id } }, headers: { Prefer: 'code=404' } })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(TillNotFoundError);
    expect((missing as TillError).code).toBe('resource_not_found');

    // No Prefer header: the mock answers 501 by default, as the server always does.
    const token = await till.POST('/v1/client-token').catch((e: unknown) => e);
    expect(token).toBeInstanceOf(TillNotImplementedError);
    expect((token as TillError).code).toBe('not_implemented');
  });
});

describe('commerce client against the mock', () => {
  const apiKey = 'sk_test_4eC39HqLyjWDarjtT1zdp7dc';

  it('lists invoices with OData options', async () => {
    const commerce = createCommerceClient({ baseUrl: commerceUrl, apiKey });
    const { data, error, response } = await commerce.GET('/v1/invoice', { params: { query: { $top: 10, $orderby: 'id desc', $count: true } } });
    expect(error).toBeUndefined();
    expect(response.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    expect(Array.isArray(data?.value)).toBe(true);
    expect(data).toEqual(documentedExample(commerceDoc, 'GET', '/v1/invoice'));
  });

  it('iterates an OData list with list(), following the documented @odata.nextLink and stopping on a repeated page', async () => {
    const commerce = createCommerceClient({ baseUrl: commerceUrl, apiKey });
    const documented = documentedExample(commerceDoc, 'GET', '/v1/invoice') as { value: { id: unknown }[] };
    const invoices = await commerce.list('/v1/invoice', { params: { query: { $top: 10 } } }).toArray({ limit: 200 });
    expect(invoices.length).toBeGreaterThanOrEqual(documented.value.length);
    expect(invoices.slice(0, documented.value.length)).toEqual(documented.value);
  });

  it("reaches a public OData-style path with parentheses and no key: getByReference(code='...')", async () => {
    const publicClient = createCommerceClient({ baseUrl: commerceUrl });
    const { data, error, response } = await publicClient.GET("/v1/invoice/getByReference(code='{code}')", {
      params: { path: { code: 'b3Q8Zk1xR2pTa0w5cVd6Tg' } },
    });
    expect(error).toBeUndefined();
    expect(new URL(response.url).pathname).toBe("/v1/invoice/getByReference(code='b3Q8Zk1xR2pTa0w5cVd6Tg')");
    expect(data).toEqual(documentedExample(commerceDoc, 'GET', "/v1/invoice/getByReference(code='{code}')"));
  });

  it('creates a payment link from the documented request', async () => {
    const commerce = createCommerceClient({ baseUrl: commerceUrl, apiKey });
    const body = documentedRequest(commerceDoc, 'POST', '/v1/PaymentLink');
    const { data, error, response } = await commerce.POST('/v1/PaymentLink', { body });
    expect(error).toBeUndefined();
    expect(response.status).toBe(201);
    expect(data?.identifier).toMatch(/^[0-9a-f-]{36}$/);
    expect(data).toEqual(documentedExample(commerceDoc, 'POST', '/v1/PaymentLink', '201'));
  });

  it('downloads the invoice QR code as image/png', async () => {
    const publicClient = createCommerceClient({ baseUrl: commerceUrl });
    const { error, response } = await publicClient.GET('/v1/invoice/qrcode/{identifier}', {
      params: { path: { identifier: '3f6c2a9e-8b1d-4e7a-9c5f-2d4b6a8e1f07' } },
      parseAs: 'blob',
    });
    expect(error).toBeUndefined();
    expect(response.headers.get('content-type')).toBe('image/png');
  });

  it('answers 401 in the general error shape without a key on a keyed operation', async () => {
    const publicClient = createCommerceClient({ baseUrl: commerceUrl });
    const { error, response } = await publicClient.GET('/v1/account');
    expect(response.status).toBe(401);
    expect(error?.error.type).toBe('authentication');
    const strict = createCommerceClient({ baseUrl: commerceUrl, throwOnError: true });
    await expect(strict.GET('/v1/account')).rejects.toBeInstanceOf(TillAuthenticationError);
  });
});
