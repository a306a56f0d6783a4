// Retries, backoff, timeouts and idempotency keys, against a local node:http server that
// injects the failures: connection resets, stalls, 503/429 with Retry-After, lock conflicts.
import { afterEach, describe, expect, it } from 'vitest';
import { createCheckoutClient, createCommerceClient, TillConnectionError, TillError, TillNotImplementedError, TillServerError } from '../src/index.js';
import { backoffMs, MAX_DELAY_MS, retryAfterMs } from '../src/retry.js';
import { json, reset, startLocalServer, type LocalServer, type Script } from './local-server.js';

const secretKey = 'sk_test_4eC39HqLyjWDarjtT1zdp7dc';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const planList = { success: true, errorCode: null, errorMessage: null, data: { object: 'list', data: [], hasMore: false } };
const sessionBody = { amount: 10, currency: 'USD', mode: 'hosted', paymentType: 'oneTime' } as const;
const conflict = (code: string) => ({ error: { type: 'conflict', code, message: 'Busy.' } });

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
async function serve(script: Script) {
  server = await startLocalServer(script);
  return server;
}

describe('connection failures', () => {
  it('retries a GET after a connection reset and answers normally', async () => {
    const s = await serve((_req, res, n) => (n === 1 ? reset(res) : json(res, 200, planList)));
    const till = createCheckoutClient({ baseUrl: s.url, secretKey });
    const { data, error } = await till.GET('/v1/plans');
    expect(error).toBeUndefined();
    expect(data?.success).toBe(true);
    expect(s.requests).toHaveLength(2);
  });

  it('throws a TillConnectionError, never a bare TypeError, when no attempt gets an answer', async () => {
    const s = await serve((_req, res) => reset(res));
    const till = createCheckoutClient({ baseUrl: s.url, secretKey, maxRetries: 1 });
    const err = await till.GET('/v1/plans').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TillConnectionError);
    expect(err).toBeInstanceOf(TillError);
    expect(err).toMatchObject({ type: 'connection_error', code: 'connection_failed', status: 0 });
    expect((err as Error).message).toMatch(/attempt 2 of 2/);
    expect((err as Error).cause).toBeDefined();
    expect(s.requests).toHaveLength(2);
  });

  it('times each attempt out after timeoutMs, per client and per call', async () => {
    // A slow server (simulated): every answer comes 1 s after its request.
    const s = await serve((_req, res) => setTimeout(() => json(res, 200, planList), 1_000));
    const till = createCheckoutClient({ baseUrl: s.url, secretKey, timeoutMs: 100, maxRetries: 1 });
    const started = Date.now();
    const err = await till.GET('/v1/plans').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TillConnectionError);
    expect((err as TillConnectionError).code).toBe('timeout');
    expect(s.requests).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(1_000 + 500);
    // Per call: a longer timeout lets the slow answer through.
    const { data } = await till.GET('/v1/plans', { timeoutMs: 3_000, maxRetries: 0 });
    expect(data?.success).toBe(true);
  });

  it("leaves the caller's own abort alone: no retry, the AbortError as it is", async () => {
    // The caller aborts once the server has the request, which it never answers.
    const caller = new AbortController();
    const s = await serve(() => caller.abort());
    const till = createCheckoutClient({ baseUrl: s.url, secretKey });
    const err = await till.GET('/v1/plans', { signal: caller.signal }).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(TillError);
    expect((err as Error).name).toMatch(/AbortError|TimeoutError/);
    expect(s.requests).toHaveLength(1);
  });
});

describe('answers worth repeating', () => {
  it('waits for the Retry-After of a 503, then succeeds', async () => {
    const s = await serve((_req, res, n) =>
      n === 1
        ? json(res, 503, { error: { type: 'server_error', code: 'service_unavailable', message: 'Later.' } }, { 'retry-after': '1' })
        : json(res, 200, planList),
    );
    const till = createCheckoutClient({ baseUrl: s.url, secretKey });
    const started = Date.now();
    const { data } = await till.GET('/v1/plans');
    expect(data?.success).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(s.requests).toHaveLength(2);
  });

  it('retries a 429 after Retry-After, and gives up at once when it asks for more than a minute', async () => {
    const limited = (res: Parameters<Script>[1], after: string) =>
      json(res, 429, { error: { type: 'rate_limit', code: 'rate_limit_exceeded', message: 'Slow down.' } }, { 'retry-after': after });
    let s = await serve((_req, res, n) => (n === 1 ? limited(res, '0') : json(res, 200, planList)));
    expect((await createCheckoutClient({ baseUrl: s.url, secretKey }).GET('/v1/plans')).data?.success).toBe(true);
    expect(s.requests).toHaveLength(2);
    await s.close();

    s = await serve((_req, res) => limited(res, '120'));
    const { error, response } = await createCheckoutClient({ baseUrl: s.url, secretKey }).GET('/v1/plans');
    expect(response.status).toBe(429);
    expect(error).toBeDefined();
    expect(s.requests).toHaveLength(1);
  });

  it('returns the last 5xx once the retries are spent; with throwOnError, throws it once', async () => {
    const s = await serve((_req, res) =>
      json(res, 500, { error: { type: 'server_error', code: 'internal_error', message: 'Oops.' } }, { 'x-request-id': 'req_1' }),
    );
    const till = createCheckoutClient({ baseUrl: s.url, secretKey, maxRetries: 1 });
    const { response } = await till.GET('/v1/plans');
    expect(response.status).toBe(500);
    expect(s.requests).toHaveLength(2);
    const strict = createCheckoutClient({ baseUrl: s.url, secretKey, maxRetries: 1, throwOnError: true });
    const err = await strict.GET('/v1/plans').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TillServerError);
    expect(err).toMatchObject({ status: 500, statusCode: 500, code: 'internal_error', requestId: 'req_1' });
    expect(s.requests).toHaveLength(4);
  });

  it('never retries 501 or an ordinary 409', async () => {
    const s = await serve((req, res) =>
      req.url.startsWith('/v1/client-token')
        ? json(res, 501, { error: { type: 'not_implemented', code: 'not_implemented', message: 'No.' } })
        : json(res, 409, conflict('invalid_state')),
    );
    const till = createCheckoutClient({ baseUrl: s.url, secretKey, throwOnError: true });
    await expect(till.POST('/v1/client-token')).rejects.toBeInstanceOf(TillNotImplementedError);
    const { response } = await createCheckoutClient({ baseUrl: s.url, secretKey }).POST('/v1/checkout-sessions/{id}/cancel', {
      params: { path: { id: 'cs_test_x' } },
    });
    expect(response.status).toBe(409);
    expect(s.requests).toHaveLength(2);
  });

  it('retries the lock conflicts: a key still in progress, the sandbox clock being advanced', async () => {
    const s = await serve((req, res) => {
      const earlier = s.requests.filter((r) => r.url === req.url).length;
      if (earlier > 1) return json(res, 200, req.url.includes('clock') ? { object: 'test_clock' } : { id: 'cs_test_1' });
      return json(res, 409, conflict(req.url.includes('clock') ? 'invalid_state' : 'idempotency_request_in_progress'));
    });
    const till = createCheckoutClient({ baseUrl: s.url, secretKey });
    const session = await till.POST('/v1/checkout-sessions', { body: sessionBody });
    expect(session.response.status).toBe(200);
    const clock = await till.POST('/v1/test-helpers/clock/advance', { body: { seconds: 60 } });
    expect(clock.response.status).toBe(200);
    expect(s.requests.map((r) => r.url)).toEqual([
      '/v1/checkout-sessions',
      '/v1/checkout-sessions',
      '/v1/test-helpers/clock/advance',
      '/v1/test-helpers/clock/advance',
    ]);
  });
});

describe('idempotency keys', () => {
  it("returns a POST's 5xx answer when its retry only hears that the key is still in progress", async () => {
    const s = await serve((_req, res, n) =>
      n === 1
        ? json(res, 502, { error: { type: 'processor_error', code: 'processing_error', message: 'The processor did not answer.' } })
        : json(res, 409, conflict('idempotency_request_in_progress')),
    );
    const till = createCheckoutClient({ baseUrl: s.url, secretKey });
    const { error, response } = await till.POST('/v1/checkout-sessions/{id}/confirm', {
      params: { path: { id: 'cs_test_x' } },
      body: { paymentMethodId: 'pm_x' } as never,
    });
    expect(response.status).toBe(502);
    expect((error as { error: { code: string } }).error.code).toBe('processing_error');
    expect(s.requests).toHaveLength(2);
  });

  it('generates one key per logical POST and sends the same key on every retry', async () => {
    const s = await serve((_req, res, n) => (n <= 2 || n === 4 ? reset(res) : json(res, 201, { id: 'cs_test_1' })));
    const till = createCheckoutClient({ baseUrl: s.url, secretKey });
    expect((await till.POST('/v1/checkout-sessions', { body: sessionBody })).response.status).toBe(201);
    expect((await till.POST('/v1/checkout-sessions', { body: sessionBody })).response.status).toBe(201);
    const keys = s.requests.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(5);
    expect(keys[0]).toMatch(UUID);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).toBe(keys[0]);
    expect(keys[3]).toMatch(UUID);
    expect(keys[3]).not.toBe(keys[0]);
    expect(keys[4]).toBe(keys[3]);
    // The body is sent whole on every attempt.
    expect(new Set(s.requests.map((r) => r.body))).toEqual(new Set([JSON.stringify(sessionBody)]));
  });

  it("keeps the caller's key, from the header parameter or the idempotencyKey option", async () => {
    const s = await serve((_req, res, n) => (n % 2 === 1 ? reset(res) : json(res, 201, { id: 'cs_test_1' })));
    const till = createCheckoutClient({ baseUrl: s.url, secretKey });
    await till.POST('/v1/checkout-sessions', { params: { header: { 'Idempotency-Key': 'order-1' } }, body: sessionBody });
    await till.POST('/v1/checkout-sessions', { idempotencyKey: 'order-2', body: sessionBody });
    expect(s.requests.map((r) => r.headers['idempotency-key'])).toEqual(['order-1', 'order-1', 'order-2', 'order-2']);
  });

  it('never retries a POST without a key: retries off, or a Commerce client without a merchant key', async () => {
    const s = await serve((_req, res) => reset(res));
    const till = createCheckoutClient({ baseUrl: s.url, secretKey, maxRetries: 0 });
    await expect(till.POST('/v1/checkout-sessions', { body: sessionBody })).rejects.toBeInstanceOf(TillConnectionError);
    expect(s.requests[0]!.headers['idempotency-key']).toBeUndefined();
    const publicCommerce = createCommerceClient({ baseUrl: s.url });
    await expect(publicCommerce.POST('/v1/PaymentLink', { body: {} as never })).rejects.toBeInstanceOf(TillConnectionError);
    expect(s.requests).toHaveLength(2);
    expect(s.requests[1]!.headers['idempotency-key']).toBeUndefined();
    // With a key of its own, the same call is retried.
    await expect(publicCommerce.POST('/v1/PaymentLink', { body: {} as never, idempotencyKey: 'link-1' })).rejects.toBeInstanceOf(TillConnectionError);
    expect(s.requests).toHaveLength(5);
  });

  it('retries a Commerce POST with a generated key when the client has the merchant key', async () => {
    const s = await serve((_req, res, n) => (n === 1 ? reset(res) : json(res, 201, { identifier: 'x' })));
    const commerce = createCommerceClient({ baseUrl: s.url, apiKey: secretKey });
    const { response } = await commerce.POST('/v1/PaymentLink', { body: {} as never });
    expect(response.status).toBe(201);
    expect(s.requests[0]!.headers['idempotency-key']).toMatch(UUID);
    expect(s.requests[1]!.headers['idempotency-key']).toBe(s.requests[0]!.headers['idempotency-key']);
  });
});

describe('backoff arithmetic', () => {
  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-11-25T10:00:00Z');
    expect(retryAfterMs('2', now)).toBe(2_000);
    expect(retryAfterMs('0.5', now)).toBe(500);
    expect(retryAfterMs('Wed, 25 Nov 2026 10:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('Wed, 25 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs(null, now)).toBeUndefined();
    expect(retryAfterMs('soon', now)).toBeUndefined();
  });

  it('grows exponentially with full jitter, up to a maximum', () => {
    expect(backoffMs(0, () => 0)).toBe(0);
    expect(backoffMs(0, () => 0.999)).toBeLessThan(500);
    expect(backoffMs(2, () => 0.999)).toBeGreaterThan(1_900);
    expect(backoffMs(2, () => 0.999)).toBeLessThan(2_000);
    expect(backoffMs(20, () => 0.999)).toBeLessThan(MAX_DELAY_MS);
  });
});
