// Subscriptions read back (GET /v1/subscriptions/{id} and GET /v1/subscriptions), and the calendar
// arithmetic of the first period a subscription session starts.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { useTestServer } from '../support/server.js';
import { type PlanSpec, subscriptionSessions } from '../support/billing.js';

const clock = new ManualClock(new Date());
const t = useTestServer({ clock, rateLimitScale: 100 });
const kit = subscriptionSessions(t);

describe('billing periods are exact calendar arithmetic', () => {
  it('a monthly plan paid on 31 January renews on the last day of February; 3 months from 31 January is 30 April; a yearly plan from 29 February ends on 28 February; weeks and days are exact', async () => {
    const saved = clock.now();
    try {
      const periodEnd = async (at: string, spec: PlanSpec) => {
        clock.set(at);
        const { session } = await kit.subscriptionSession({ subscriptionPlanId: (await kit.newPlan(spec)).id });
        expect((await kit.payByCard(session)).status).toBe(200);
        return (await kit.getSubscription((await kit.retrieve(session.id)).json.subscriptionId)).json.data.currentPeriodEnd;
      };
      expect(await periodEnd('2027-01-31T10:15:00Z', { interval: 'month' })).toBe('2027-02-28T10:15:00.000Z');
      expect(await periodEnd('2028-01-31T10:15:00Z', { interval: 'month' })).toBe('2028-02-29T10:15:00.000Z');
      expect(await periodEnd('2027-01-31T10:15:00Z', { interval: 'month', intervalCount: 3 })).toBe('2027-04-30T10:15:00.000Z');
      expect(await periodEnd('2027-11-30T23:59:59Z', { interval: 'month', intervalCount: 3 })).toBe('2028-02-29T23:59:59.000Z');
      expect(await periodEnd('2028-02-29T08:00:00Z', { interval: 'year' })).toBe('2029-02-28T08:00:00.000Z');
      expect(await periodEnd('2027-03-01T08:00:00Z', { interval: 'week', intervalCount: 2 })).toBe('2027-03-15T08:00:00.000Z');
      expect(await periodEnd('2027-03-01T08:00:00Z', { interval: 'day', intervalCount: 45 })).toBe('2027-04-15T08:00:00.000Z');
    } finally {
      clock.set(saved);
    }
  });
});

describe('reading subscriptions: GET /v1/subscriptions/{id} and GET /v1/subscriptions', () => {
  it("another merchant's or the other mode's subscription answers 404 like a missing one, in the envelope", async () => {
    const { session } = await kit.subscriptionSession({ trialDays: 5 });
    const id = (await kit.retrieve(session.id)).json.subscriptionId;
    for (const key of [t.merchantB.keys.test.secret, t.merchantA.keys.live.secret]) {
      const res = await kit.getSubscription(id, key);
      expect(res.status).toBe(404);
      expect(res.json).toMatchObject({ success: false, errorCode: 'resource_not_found', data: { type: 'not_found', param: 'id' } });
      expect((await t.call('GET', `/v1/subscriptions/${id}/invoices`, { key })).status).toBe(404);
    }
    expect((await kit.getSubscription(2147483647)).json.errorCode).toBe('resource_not_found');
    const theirs = await t.call('GET', '/v1/subscriptions', { key: t.merchantB.keys.test.secret });
    expect(theirs.json.data.data.map((s: any) => s.id)).not.toContain(id);
  });

  it('lists newest first with limit and an integer startingAfter, and filters by clientId, status and planId', async () => {
    const merchant = await t.newMerchant('Lister');
    const key = merchant.keys.test.secret;
    const product = await t.call('POST', '/v1/products', { key, body: { name: 'P' } });
    const plans = await Promise.all(
      [1, 2].map(
        async () =>
          (await t.call('POST', '/v1/plans', { key, body: { productId: product.json.id, name: 'Basic', amount: 5, currency: 'USD', interval: 'week' } })).json
            .data,
      ),
    );
    const customer = (await t.call('POST', '/v1/customers', { key, body: { email: 'lister@example.com' } })).json.data;
    const other = (await t.call('POST', '/v1/customers', { key, body: { email: 'other@example.com' } })).json.data;
    const start = async (planId: number, clientId: number, trialDays: number) => {
      const s = await t.call('POST', '/v1/checkout-sessions', {
        key,
        body: { mode: 'embedded', paymentType: 'subscription', subscriptionPlanId: planId, clientId, trialDays },
      });
      if (trialDays === 0) await kit.payByCard(s.json, '4242424242424242', merchant.keys.test.publishable);
      return (await t.call('GET', `/v1/checkout-sessions/${s.json.id}`, { key })).json.subscriptionId as number;
    };
    const ids = [await start(plans[0].id, customer.id, 0), await start(plans[1].id, customer.id, 10), await start(plans[0].id, other.id, 10)];
    const list = (query = '') => t.call('GET', `/v1/subscriptions${query}`, { key });

    const all = await list();
    expect(all.status).toBe(200);
    expect(all.json).toMatchObject({ success: true, data: { object: 'list', hasMore: false } });
    expect(all.json.data.data.map((s: any) => s.id)).toEqual([...ids].reverse());
    const first = (await list('?limit=2')).json.data;
    expect(first.data.map((s: any) => s.id)).toEqual([ids[2], ids[1]]);
    expect(first.hasMore).toBe(true);
    const next = (await list(`?limit=2&startingAfter=${ids[1]}`)).json.data;
    expect(next).toMatchObject({ hasMore: false });
    expect(next.data.map((s: any) => s.id)).toEqual([ids[0]]);

    expect((await list(`?clientId=${customer.id}`)).json.data.data.map((s: any) => s.id)).toEqual([ids[1], ids[0]]);
    expect((await list('?status=active')).json.data.data.map((s: any) => s.id)).toEqual([ids[0]]);
    expect((await list('?status=trialing')).json.data.data.map((s: any) => s.id)).toEqual([ids[2], ids[1]]);
    expect((await list(`?planId=${plans[0].id}`)).json.data.data.map((s: any) => s.id)).toEqual([ids[2], ids[0]]);
    expect((await list(`?planId=${plans[1].id}&clientId=${other.id}`)).json.data.data).toEqual([]);
    expect((await list('?status=sleeping')).status).toBe(400);
    // The live key sees only live-mode subscriptions.
    expect((await t.call('GET', '/v1/subscriptions', { key: merchant.keys.live.secret })).json.data.data).toEqual([]);
  });
});
