// Per-key token buckets: Standard 100/s burst 200, shared by every process on the database.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RATE_PLANS } from '../../server/http/rate-limit.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();

/**
 * rate-limiter-flexible measures its windows with Date.now(). The server here runs in this
 * process, so freezing Date puts a whole burst in one window whatever this machine's speed:
 * the counts below are exact rather than racing the wall clock.
 */
function freezeTime() {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
}
afterEach(() => {
  vi.useRealTimers();
});

describe('rate limits', () => {
  it('the plans are as documented', () => {
    expect(RATE_PLANS.standard).toEqual({ perSecond: 100, burst: 200 });
    expect(RATE_PLANS.enterprise).toEqual({ perSecond: 500, burst: 1000 });
  });

  it('a burst over 200 in a second gets 429 rate_limit_exceeded with Retry-After and the headers', async () => {
    const merchant = await t.newMerchant('Bursty');
    const key = merchant.keys.test.secret;
    freezeTime();
    const responses = await Promise.all(Array.from({ length: 260 }, () => t.call('GET', '/v1/products?limit=1', { key })));
    const ok = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    // The burst of 200 passes within the second; the rest is refused.
    expect(ok.length).toBe(200);
    expect(limited.length).toBe(60);
    const one = limited[0]!;
    expect(one.json.error).toMatchObject({ type: 'rate_limit', code: 'rate_limit_exceeded' });
    expect(Number(one.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(one.headers.get('x-ratelimit-limit')).toBe('100');
    expect(one.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(one.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
  });

  it('one key being limited does not limit another', async () => {
    const noisy = await t.newMerchant('Noisy');
    const quiet = await t.newMerchant('Quiet');
    freezeTime();
    await Promise.all(Array.from({ length: 230 }, () => t.call('GET', '/v1/products?limit=1', { key: noisy.keys.test.secret })));
    const res = await t.call('GET', '/v1/products?limit=1', { key: quiet.keys.test.secret });
    expect(res.status).toBe(200);
    expect(Number(res.headers.get('x-ratelimit-remaining'))).toBeGreaterThan(90);
  });

  it('the bucket is shared by two app instances on one database', async () => {
    const merchant = await t.newMerchant('Shared bucket');
    const sibling = await t.startSibling();
    freezeTime();
    try {
      const { call } = await import('../support/server.js');
      const responses = await Promise.all(
        Array.from({ length: 260 }, (_, i) => call(i % 2 ? t.url : sibling.url, 'GET', '/v1/products?limit=1', { key: merchant.keys.test.secret })),
      );
      // Each instance takes tokens in leases of 5 (a twentieth of 100/s): never more than the
      // burst in all, and at most 4 per instance left unspent in a lease when the other runs out.
      const ok = responses.filter((r) => r.status === 200).length;
      expect(ok).toBeLessThanOrEqual(200);
      expect(ok).toBeGreaterThanOrEqual(200 - 2 * 4);
      expect(responses.filter((r) => r.status === 429).length).toBe(260 - ok);
    } finally {
      await sibling.close();
    }
  });

  it('takes tokens from the shared store five at a time, not one write per request', async () => {
    const merchant = await t.newMerchant('Leases');
    freezeTime();
    const remaining: number[] = [];
    for (let i = 0; i < 7; i++)
      remaining.push(Number((await t.call('GET', '/v1/products?limit=1', { key: merchant.keys.test.secret })).headers.get('x-ratelimit-remaining')));
    expect(remaining).toEqual([99, 98, 97, 96, 95, 94, 93]);
    const keyId = (await t.database.sql.query(`SELECT id FROM api_keys WHERE merchant_id = $1 AND kind = 'secret' AND NOT livemode`, [merchant.merchantId]))
      .rows[0].id;
    const row = await t.database.sql.query(`SELECT points FROM rate_limits WHERE key = $1`, [`rl_standard:key:${keyId}`]);
    // Two leases of 5 for 7 requests.
    expect(Number(row.rows[0].points)).toBe(10);
  });

  it('an enterprise key has the larger limit', async () => {
    const merchant = await t.newMerchant('Big', 'enterprise');
    const res = await t.call('GET', '/v1/products?limit=1', { key: merchant.keys.test.secret });
    expect(res.headers.get('x-ratelimit-limit')).toBe('500');
  });
});
