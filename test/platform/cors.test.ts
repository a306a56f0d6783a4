// CORS per kind of operation: publishable-key and client-secret operations, the Commerce PUBLIC
// operations, secret-key operations (general and envelope error shapes), and unknown paths.
import { describe, expect, it } from 'vitest';
import { createTestSession, useTestServer } from '../support/server.js';

const t = useTestServer();

const ORIGIN = 'https://shop.example.org';

async function preflight(method: string, path: string, headers = 'authorization,x-client-secret,content-type') {
  const res = await fetch(`${t.url}${path}`, {
    method: 'OPTIONS',
    headers: { origin: ORIGIN, 'access-control-request-method': method, 'access-control-request-headers': headers },
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
}

describe('preflight', () => {
  it('a publishable-key POST allows any origin, its method, and exactly the headers it reads', async () => {
    const res = await preflight('POST', '/v1/checkout-sessions/cs_test_x/tokenize');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-methods')).toBe('POST');
    expect(res.headers.get('access-control-allow-headers')).toBe('Authorization, X-Client-Secret, Idempotency-Key, Content-Type');
    expect(res.headers.get('access-control-max-age')).toBe('600');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('a bodiless GET of a session allows only the key and client-secret headers', async () => {
    const res = await preflight('GET', '/v1/checkout-sessions/cs_test_x');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-headers')).toBe('Authorization, X-Client-Secret');
  });

  it('the /api/v1 alias answers the same', async () => {
    const res = await preflight('POST', '/api/v1/checkout-sessions/cs_test_x/withdraw-qr');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-headers')).toBe('Authorization, X-Client-Secret, Idempotency-Key');
  });

  it('a Commerce PUBLIC operation allows any origin and no key header', async () => {
    const res = await preflight('POST', "/v1/PaymentLink/CreateInvoice(identifier='5b8e2f1c-7a4d-4e0b-9c61-2f3a8d9e1b47')", 'content-type');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')).toBe('Idempotency-Key, Content-Type');
    const get = await preflight('GET', '/v1/invoice/qrcode/5b8e2f1c-7a4d-4e0b-9c61-2f3a8d9e1b47', '');
    expect(get.status).toBe(204);
    expect(get.headers.get('access-control-allow-headers')).toBeNull();
  });

  it('a secret-key operation is refused with the reason and no CORS headers', async () => {
    const res = await preflight('POST', '/v1/checkout-sessions');
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.json.error).toMatchObject({ type: 'permission_denied', code: 'secret_key_in_browser' });
    expect(res.json.error.message).toContain('createCheckoutSession');
  });

  it('a secret-key operation of the envelope family answers in the envelope', async () => {
    const res = await preflight('GET', '/v1/plans');
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.json).toMatchObject({ success: false, errorCode: 'secret_key_in_browser' });
  });

  it('a Commerce x-api-key operation is refused', async () => {
    const res = await preflight('GET', '/v1/invoice', 'x-api-key');
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe('secret_key_in_browser');
  });

  it('an unknown path answers 404', async () => {
    const res = await preflight('GET', '/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.json.error.code).toBe('route_not_found');
  });
});

describe('requests from a browser origin', () => {
  it('a publishable-key call carries CORS headers, and so does its error', async () => {
    const s = await createTestSession(t, t.merchantA);
    const ok = await t.call('GET', `/v1/checkout-sessions/${s.id}`, {
      key: t.merchantA.keys.test.publishable,
      clientSecret: s.clientSecret,
      headers: { origin: ORIGIN },
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('*');
    expect(ok.headers.get('access-control-expose-headers')).toBe(
      'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, Idempotent-Replayed',
    );
    const bad = await t.call('GET', `/v1/checkout-sessions/${s.id}`, {
      key: t.merchantA.keys.test.publishable,
      clientSecret: `${s.id}_secret_wrong`,
      headers: { origin: ORIGIN },
    });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('a secret key from a browser is refused, readable where the operation allows browsers', async () => {
    const s = await createTestSession(t, t.merchantA);
    const res = await t.call('GET', `/v1/checkout-sessions/${s.id}`, { key: t.merchantA.keys.test.secret, headers: { origin: ORIGIN } });
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe('secret_key_in_browser');
    expect(res.json.error.message).toContain('publishable key');
    expect(res.text).not.toContain(t.merchantA.keys.test.secret);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('a secret key on a secret-key operation from a browser is refused without CORS headers; the same call from a server works', async () => {
    const browser = await t.call('GET', '/v1/plans', { key: t.merchantA.keys.test.secret, headers: { origin: ORIGIN } });
    expect(browser.status).toBe(403);
    expect(browser.json).toMatchObject({ success: false, errorCode: 'secret_key_in_browser' });
    expect(browser.headers.get('access-control-allow-origin')).toBeNull();
    const server = await t.call('GET', '/v1/plans', { key: t.merchantA.keys.test.secret });
    expect(server.status).toBe(200);
    expect(server.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('a secret key in x-api-key from a browser is refused on the Commerce interface', async () => {
    const res = await t.call('GET', '/v1/invoice', { apiKey: t.merchantA.keys.test.secret, headers: { origin: ORIGIN } });
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe('secret_key_in_browser');
  });

  it('a Commerce PUBLIC call carries CORS headers', async () => {
    const res = await t.call('GET', '/v1/invoice/qrcode/5b8e2f1c-7a4d-4e0b-9c61-2f3a8d9e1b47', { headers: { origin: ORIGIN } });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('no Origin, no CORS headers', async () => {
    const s = await createTestSession(t, t.merchantA);
    const res = await t.call('GET', `/v1/checkout-sessions/${s.id}`, { key: t.merchantA.keys.test.publishable, clientSecret: s.clientSecret });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});
