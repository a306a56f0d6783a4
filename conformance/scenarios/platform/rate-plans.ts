// The rate plans: a key is limited by its merchant's plan (Standard 100/s, burst 200; Enterprise 500/s,
// burst 1000). The Enterprise plan is checked on whichever merchant of the run is on it: the one
// under test or the other one (CI makes its second merchant an Enterprise one).
import assert from 'node:assert/strict';
import type { ConformanceContext, HttpResult, Scenario } from '../../types.js';
import { call, describe, expectStatus } from '../fixtures/http.js';
import { otherSecretKey, secretKey } from '../fixtures/keys.js';
import { pendingBecause } from '../fixtures/scenario.js';
import { LIMITS } from '../fixtures/sections.js';

const PLANS = { standard: { perSecond: 100, burst: 200 }, enterprise: { perSecond: 500, burst: 1000 } } as const;

/** The merchant's rate plan, as the Commerce interface reports it (`GET /v1/merchant` with `x-api-key`). */
async function ratePlanOf(ctx: ConformanceContext, key: string): Promise<string> {
  const res = await call(ctx, 'commerce', 'getMerchant', { method: 'GET', path: '/v1/merchant', apiKey: key });
  expectStatus(res, 200, 'read the merchant');
  return res.json.ratePlan;
}

const listProducts = (ctx: ConformanceContext, key: string): Promise<HttpResult> =>
  ctx.request('checkout', 'listProducts', { method: 'GET', path: '/v1/products', key, query: { limit: 1 } });

export const ratePlans: Scenario[] = [
  {
    id: 'platform.limits.enterprise-rate',
    title: 'An Enterprise-plan key is limited at 500 requests/second with a burst of 1000',
    source: LIMITS,
    requires: ['listProducts', 'getMerchant'],
    serverOnly: true,
    async run(ctx) {
      const keys = [secretKey(ctx), await otherSecretKey(ctx)];
      const plans = await Promise.all(keys.map((k) => ratePlanOf(ctx, k)));
      for (const [i, plan] of plans.entries()) {
        assert.ok(plan in PLANS, `ratePlan is standard or enterprise, got ${JSON.stringify(plan)}`);
        const limit = (await listProducts(ctx, keys[i]!)).headers.get('x-ratelimit-limit');
        assert.equal(Number(limit), PLANS[plan as keyof typeof PLANS].perSecond, `a ${plan} key's X-RateLimit-Limit is its plan's rate`);
      }
      const enterprise = keys[plans.indexOf('enterprise')];
      if (!enterprise) pendingBecause('needs an Enterprise-plan merchant as --secret-key or --other-secret-key (both given are Standard)');
      // More than a Standard burst at once: an Enterprise key passes them all (its burst is 1000).
      const wave = PLANS.standard.burst + 100;
      const started = Date.now();
      const answers = await Promise.all(Array.from({ length: wave }, () => listProducts(ctx, enterprise)));
      const seconds = (Date.now() - started) / 1000;
      const refused = answers.filter((a) => a.status === 429);
      assert.deepEqual(refused.map(describe), [], `${wave} requests in ${seconds.toFixed(1)} s on an Enterprise key: none over its limit`);
      for (const a of answers) expectStatus(a, 200, 'an Enterprise burst answer');
      const remaining = Math.min(...answers.map((a) => Number(a.headers.get('x-ratelimit-remaining'))));
      assert.ok(remaining >= 0 && remaining < PLANS.enterprise.perSecond, `X-RateLimit-Remaining counts down from the plan's rate, got ${remaining}`);
    },
  },
];
