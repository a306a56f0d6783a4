// Idempotency-Key on POST: one execution, byte-for-byte replays, clear conflicts.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { createProduct } from '../../server/domain/catalog/catalog.service.js';
import { productView } from '../../server/api/checkout/views/catalog.view.js';
import { deleteExpiredIdempotencyKeys } from '../../server/http/idempotency.js';
import { useTestServer } from '../support/server.js';
import { countProducts } from './products-fixture.js';

/** Lets a test hold the slow handler open while it sends a repeat. */
let releaseSlow: (() => void) | undefined;
let slowCalls = 0;

const t = useTestServer({
  // createProduct that waits when asked to, so a repeat can arrive while the first still runs.
  checkoutHandlers: {
    async createProduct({ db, deps, auth, body }) {
      if (body.name === 'slow') {
        slowCalls++;
        await new Promise<void>((resolve) => {
          releaseSlow = resolve;
        });
      }
      const product = await createProduct(db, deps.clock, { merchantId: auth.merchantId! }, body);
      return { status: 201, body: productView(product) };
    },
  },
});
const sk = () => t.merchantA.keys.test.secret;

describe('Idempotency-Key', () => {
  it('a repeat returns the first response, status and body, byte for byte, without running again', async () => {
    const key = `replay-${Date.now()}`;
    const body = { name: 'Replayed product', description: 'once' };
    const first = await t.call('POST', '/v1/products', { key: sk(), body, headers: { 'Idempotency-Key': key } });
    const second = await t.call('POST', '/v1/products', { key: sk(), body, headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await countProducts(t.database, t.merchantA.merchantId, 'Replayed product')).toBe(1);
  });

  it('the same parameters in another key order are the same request', async () => {
    const key = `order-${Date.now()}`;
    const a = await t.call('POST', '/v1/products', { key: sk(), body: { name: 'Ordered', description: 'd' }, headers: { 'Idempotency-Key': key } });
    const b = await t.call('POST', '/v1/products', { key: sk(), rawBody: '{"description":"d","name":"Ordered"}', headers: { 'Idempotency-Key': key } });
    expect(b.text).toBe(a.text);
  });

  it('the same key with different parameters answers 409 idempotency_key_reused', async () => {
    const key = `mismatch-${Date.now()}`;
    await t.call('POST', '/v1/products', { key: sk(), body: { name: 'First' }, headers: { 'Idempotency-Key': key } });
    const res = await t.call('POST', '/v1/products', { key: sk(), body: { name: 'Second' }, headers: { 'Idempotency-Key': key } });
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ type: 'conflict', code: 'idempotency_key_reused', param: 'Idempotency-Key' });
    expect(await countProducts(t.database, t.merchantA.merchantId, 'Second')).toBe(0);
  });

  it('a repeat while the first is in flight answers 409, marked retryable', async () => {
    const key = `inflight-${Date.now()}`;
    const first = t.call('POST', '/v1/products', { key: sk(), body: { name: 'slow' }, headers: { 'Idempotency-Key': key } });
    await expect.poll(() => releaseSlow !== undefined && slowCalls > 0).toBe(true);
    const repeat = await t.call('POST', '/v1/products', { key: sk(), body: { name: 'slow' }, headers: { 'Idempotency-Key': key } });
    expect(repeat.status).toBe(409);
    expect(repeat.json.error).toMatchObject({ code: 'idempotency_request_in_progress', retryable: true });
    releaseSlow!();
    expect((await first).status).toBe(201);
    const after = await t.call('POST', '/v1/products', { key: sk(), body: { name: 'slow' }, headers: { 'Idempotency-Key': key } });
    expect(after.status).toBe(201);
    expect(after.text).toBe((await first).text);
    expect(slowCalls).toBe(1);
  });

  it('keys are per merchant and per mode', async () => {
    const key = `scoped-${Date.now()}`;
    const a = await t.call('POST', '/v1/products', { key: sk(), body: { name: 'Scoped' }, headers: { 'Idempotency-Key': key } });
    const live = await t.call('POST', '/v1/products', { key: t.merchantA.keys.live.secret, body: { name: 'Scoped' }, headers: { 'Idempotency-Key': key } });
    const b = await t.call('POST', '/v1/products', { key: t.merchantB.keys.test.secret, body: { name: 'Scoped' }, headers: { 'Idempotency-Key': key } });
    expect(new Set([a.json.id, live.json.id, b.json.id]).size).toBe(3);
  });

  it('a request that fails validation is not stored, so the key stays usable', async () => {
    const key = `invalid-${Date.now()}`;
    const bad = await t.call('POST', '/v1/products', { key: sk(), body: { name: 7 }, headers: { 'Idempotency-Key': key } });
    expect(bad.status).toBe(400);
    const good = await t.call('POST', '/v1/products', { key: sk(), body: { name: 'Valid after invalid' }, headers: { 'Idempotency-Key': key } });
    expect(good.status).toBe(201);
  });

  it('an error of the operation is stored and replayed like a success', async () => {
    const key = `error-${Date.now()}`;
    const body = { productId: 999999999, name: 'Orphan', amount: 5, currency: 'USD', interval: 'month' };
    const first = await t.call('POST', '/v1/plans', { key: sk(), body, headers: { 'Idempotency-Key': key } });
    const second = await t.call('POST', '/v1/plans', { key: sk(), body, headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(400);
    expect(first.json.errorCode).toBe('validation_error');
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
  });

  it("a key is remembered for 24 hours of the merchant's sandbox clock; after that the same key runs a new request, deleted or not", async () => {
    const m = await t.newMerchant('Idempotency clock');
    const key = `clocked-${Date.now()}`;
    const post = () => t.call('POST', '/v1/products', { key: m.keys.test.secret, body: { name: 'Clocked key' }, headers: { 'Idempotency-Key': key } });
    const advance = async (seconds: number) =>
      expect((await t.call('POST', '/v1/test-helpers/clock/advance', { key: m.keys.test.secret, body: { seconds } })).status).toBe(200);
    const first = await post();
    expect(first.status).toBe(201);
    await advance(23 * 3600);
    const within = await post();
    expect(within.headers.get('idempotent-replayed')).toBe('true');
    expect(within.json.id).toBe(first.json.id);
    await advance(3600 + 60);
    const after = await post();
    expect(after.status).toBe(201);
    expect(after.headers.get('idempotent-replayed')).toBeNull();
    expect(after.json.id).not.toBe(first.json.id);
    // The new answer is remembered in its turn.
    const again = await post();
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.id).toBe(after.json.id);
  });

  it('keys older than 24 hours are deleted by the cleanup work', async () => {
    const key = `old-${Date.now()}`;
    await t.call('POST', '/v1/products', { key: sk(), body: { name: 'Old key' }, headers: { 'Idempotency-Key': key } });
    const stored = () =>
      t.database.db.selectFrom('idempotency_keys').select('key').where('merchant_id', '=', t.merchantA.merchantId).where('key', '=', key).executeTakeFirst();
    expect(await stored()).toBeDefined();
    expect(await deleteExpiredIdempotencyKeys(t.database.db, new ManualClock(new Date(Date.now() + 23 * 3600_000)))).toBeGreaterThanOrEqual(0);
    expect(await stored()).toBeDefined();
    await deleteExpiredIdempotencyKeys(t.database.db, new ManualClock(new Date(Date.now() + 25 * 3600_000)));
    expect(await stored()).toBeUndefined();
  });
});

describe('Idempotency-Key after the processor refused (502)', () => {
  it('a confirm that answered 502 processing_error runs again on a retry with the same key (the refused attempt is recorded, the key is released)', async () => {
    const year = new Date().getUTCFullYear() + 3;
    const pk = t.merchantA.keys.test.publishable;
    const session = await t.call('POST', '/v1/checkout-sessions', {
      key: sk(),
      body: { amount: 12, currency: 'USD', mode: 'embedded', paymentType: 'oneTime' },
    });
    const { id, clientSecret } = session.json;
    const pm = await t.call('POST', `/v1/checkout-sessions/${id}/tokenize`, {
      key: pk,
      clientSecret,
      body: { cardNumber: '4000000000000119', expiryMonth: 12, expiryYear: year, cvc: '123' },
    });
    const key = `processor-${Date.now()}`;
    const confirm = () =>
      t.call('POST', `/v1/checkout-sessions/${id}/confirm`, {
        key: pk,
        clientSecret,
        body: { paymentMethodId: pm.json.id },
        headers: { 'Idempotency-Key': key },
      });
    const first = await confirm();
    expect(first.status).toBe(502);
    expect(first.json.error.code).toBe('processing_error');
    const retry = await confirm();
    expect(retry.status, retry.text).toBe(502);
    expect(retry.json.error.code).toBe('processing_error');
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    const attempts = await t.database.db.selectFrom('payments').select('status').where('session_id', '=', id).execute();
    expect(attempts.map((p) => p.status)).toEqual(['failed', 'failed']);
  });
});
