// Sandbox merchants (issue #19): `POST /v1/test-helpers/merchants` makes a throwaway merchant with
// test keys only, owned by the caller, alive an hour of real time, so an automated test (the
// conformance suite's clock scenarios) never moves the caller's own sandbox clock.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { SANDBOX_MERCHANT_LIMIT } from '../../server/domain/merchants/merchant.service.js';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();

const make = (key: string, body?: unknown, headers?: Record<string, string>) => t.call('POST', '/v1/test-helpers/merchants', { key, body, headers });

describe('createTestMerchant', () => {
  it('answers a new sandbox merchant with test keys that work, an hour of real time to live', async () => {
    const before = Date.now();
    const res = await make(t.merchantA.keys.test.secret, { name: 'conformance run 1' });
    expect(res.status).toBe(201);
    const m = res.json;
    expect(m).toMatchObject({ object: 'test_merchant', livemode: false });
    expect(m.name).toMatch(/^Merchant A .* sandbox: conformance run 1$/);
    expect(m.secretKey).toMatch(/^sk_test_/);
    expect(m.publishableKey).toMatch(/^pk_test_/);
    const lifetime = Date.parse(m.expiresAt) - Date.parse(m.createdAt);
    expect(lifetime).toBe(3600_000);
    expect(Date.parse(m.createdAt)).toBeGreaterThanOrEqual(before - 5000);

    // Its key works, on an empty merchant of its own.
    const products = await t.call('GET', '/v1/products', { key: m.secretKey });
    expect(products.status).toBe(200);
    expect(products.json.data).toEqual([]);
    const made = await t.call('POST', '/v1/products', { key: m.secretKey, body: { name: 'Sandbox only' } });
    expect(made.status).toBe(201);
    // The caller never sees it, nor it the caller's.
    expect((await t.call('GET', `/v1/products/${made.json.id}`, { key: t.merchantA.keys.test.secret })).status).toBe(404);
  });

  it("keeps the caller's sandbox clock where it was when the sandbox merchant advances its own", async () => {
    const m = (await make(t.merchantA.keys.test.secret)).json;
    const own = await t.call('POST', '/v1/test-helpers/clock/advance', { key: m.secretKey, body: { seconds: 86_400 } });
    expect(own.status).toBe(200);
    const parent = await t.call('POST', '/v1/test-helpers/clock/advance', { key: t.merchantA.keys.test.secret, body: { seconds: 1 } });
    expect(Date.parse(parent.json.now)).toBeLessThan(Date.parse(own.json.now) - 80_000_000);
  });

  it('cardHolds false makes a merchant none of whose card options can hold: a hold session answers 400 validation_error', async () => {
    const session = (key: string, extra: Record<string, unknown> = {}) =>
      t.call('POST', '/v1/checkout-sessions', { key, body: { amount: 20, currency: 'USD', mode: 'embedded', paymentType: 'oneTime', ...extra } });
    const noHolds = (await make(t.merchantA.keys.test.secret, { name: 'no holds', cardHolds: false })).json;
    const refused = await session(noHolds.secretKey, { captureMethod: 'manual' });
    expect(refused.status).toBe(400);
    expect(refused.json.error).toMatchObject({ code: 'validation_error', param: 'captureMethod' });
    expect((await session(noHolds.secretKey)).status).toBe(201);
    const holds = (await make(t.merchantA.keys.test.secret, { cardHolds: true })).json;
    expect((await session(holds.secretKey, { captureMethod: 'manual' })).status).toBe(201);
  });

  it("refuses a live key, a publishable key, no key, an unknown field, and a sandbox merchant's own key", async () => {
    expect((await make(t.merchantA.keys.live.secret)).json.error.code).toBe('livemode_not_allowed');
    expect((await make(t.merchantA.keys.test.publishable)).status).toBe(401); // a secret-key operation
    expect((await t.call('POST', '/v1/test-helpers/merchants', { body: {} })).status).toBe(401);
    const bad = await make(t.merchantA.keys.test.secret, { name: 'x', color: 'red' });
    expect(bad.status).toBe(400);
    const m = (await make(t.merchantA.keys.test.secret)).json;
    const nested = await make(m.secretKey);
    expect(nested.status).toBe(403);
    expect(nested.json.error.code).toBe('permission_denied');
  });

  it('does not store the answer for an Idempotency-Key: a retry makes another one', async () => {
    const headers = { 'Idempotency-Key': `sandbox-${Date.now()}` };
    const a = await make(t.merchantA.keys.test.secret, {}, headers);
    const b = await make(t.merchantA.keys.test.secret, {}, headers);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.json.id).not.toBe(a.json.id);
    const stored = await sql<{ n: string }>`SELECT count(*) AS n FROM idempotency_keys WHERE response_body LIKE ${`%${a.json.secretKey}%`}`.execute(
      t.database.db,
    );
    expect(Number(stored.rows[0]!.n)).toBe(0);
  });

  it(`allows ${SANDBOX_MERCHANT_LIMIT} alive per merchant; an expired one stops authenticating and frees its place`, async () => {
    const owner: MerchantCredentials = await t.newMerchant('Sandbox owner');
    const made = [];
    for (let i = 0; i < SANDBOX_MERCHANT_LIMIT; i++) {
      const res = await make(owner.keys.test.secret);
      expect(res.status).toBe(201);
      made.push(res.json);
    }
    const over = await make(owner.keys.test.secret);
    expect(over.status).toBe(409);
    expect(over.json.error.code).toBe('invalid_state');

    const first = made[0]!;
    await sql`UPDATE merchants SET sandbox_expires_at = now() - interval '1 second' WHERE id = ${first.id}`.execute(t.database.db);
    const expired = await t.call('GET', '/v1/products', { key: first.secretKey });
    expect(expired.status).toBe(401);
    expect((await make(owner.keys.test.secret)).status).toBe(201);
  });
});
