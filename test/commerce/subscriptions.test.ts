// Commerce subscriptions (issue 16 §3) over HTTP on a real database: `GET /v1/subscription` lists
// the Checkout interface's subscriptions in the Commerce spelling (OData), and
// `POST /v1/subscription/{id}/cancel` cancels with the Checkout rules and the same events.
import { describe, expect, it } from 'vitest';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { ManualClock } from '../../server/shared/clock.js';
import { billingKit } from '../support/billing.js';
import { deliveredEvents } from '../support/event-contract.js';
import { useTestServer } from '../support/server.js';

const clock = new ManualClock('2026-04-10T08:00:00Z');
const t = useTestServer({ clock, rateLimitScale: 100 });
const kit = billingKit(t, clock);

const list = (m: MerchantCredentials, query: Record<string, string> = {}, key = m.keys.test.secret) =>
  t.call('GET', `/v1/subscription?${new URLSearchParams(query).toString()}`, { apiKey: key });
const cancel = (m: MerchantCredentials, id: number, body?: unknown, key = m.keys.test.secret) =>
  t.call('POST', `/v1/subscription/${id}/cancel`, { apiKey: key, body });

describe('listing subscriptions', () => {
  it('shows the Checkout subscriptions in the Commerce spelling, newest first', async () => {
    const m = await kit.merchant();
    const plan = await kit.plan(m, { amount: 29.99, interval: 'month', intervalCount: 3, name: 'Quarterly' });
    const { subscription, customer } = await kit.subscribe(m, plan.id);
    const { subscription: trial } = await kit.subscribe(m, plan.id, { trialDays: 14 });
    const res = await list(m, { $count: 'true' });
    expect(res.status, res.text).toBe(200);
    expect(res.json['@odata.count']).toBe(2);
    expect(res.json.value.map((s: any) => [s.id, s.status])).toEqual([
      [trial.id, 'Trialing'],
      [subscription.id, 'Active'],
    ]);
    expect(res.json.value[1]).toEqual({
      id: subscription.id,
      merchantId: m.merchantId,
      clientId: customer.id,
      clientEmail: customer.email,
      planId: plan.id,
      planName: 'Quarterly',
      productId: plan.productId,
      status: 'Active',
      amount: 29.99,
      currency: 'USD',
      timeUnit: 'Month',
      timeInterval: 3,
      startDate: subscription.startDate,
      currentPeriodStart: subscription.currentPeriodStart,
      currentPeriodEnd: subscription.currentPeriodEnd,
      trialEnd: null,
      cancelAtPeriodEnd: false,
      cancelAt: null,
      canceledAt: null,
      pausedAt: null,
      createdDateTime: subscription.startDate,
      subscriptionBillingType: 'Recurring',
      isMetered: false,
    });
  });

  it('filters, orders, selects and counts as OData; a key sees its own mode and merchant only', async () => {
    const m = await kit.merchant();
    const [a, b] = [await kit.plan(m), await kit.plan(m, { amount: 49 })];
    const { subscription: s1, customer } = await kit.subscribe(m, a.id);
    const { subscription: s2 } = await kit.subscribe(m, b.id);
    const { subscription: s3 } = await kit.subscribe(m, a.id, { trialDays: 7 });
    await kit.action(m, s2.id, 'pause');
    const byPlan = await list(m, { $filter: `planId eq ${a.id}`, $orderby: 'id asc', $count: 'true' });
    expect(byPlan.json.value.map((s: any) => s.id)).toEqual([s1.id, s3.id]);
    expect((await list(m, { $filter: "status eq 'Paused'" })).json.value.map((s: any) => s.id)).toEqual([s2.id]);
    expect((await list(m, { $filter: `clientId eq ${customer.id} and amount lt 30` })).json.value.map((s: any) => s.id)).toEqual([s1.id]);
    expect((await list(m, { $filter: 'trialEnd ne null' })).json.value.map((s: any) => s.id)).toEqual([s3.id]);
    const selected = await list(m, { $select: 'id,status', $top: '1' });
    expect(selected.json.value).toEqual([{ id: s3.id, status: 'Trialing' }]);
    expect(selected.json['@odata.nextLink']).toBe('/v1/subscription?$select=id%2Cstatus&$top=1&$skip=1&$count=false');
    expect((await list(m, {}, m.keys.live.secret)).json.value).toEqual([]);
    expect((await list(t.merchantB, { $count: 'true' })).json.value.map((s: any) => s.id)).not.toContain(s1.id);
    expect((await list(m, { $filter: "status eq 'Gone'" })).json.error).toMatchObject({ code: 'parameter_invalid', param: '$filter' });
  });
});

describe('canceling a subscription', () => {
  it('at period end by default (no body): scheduled, the same on Checkout, subscription.cancelled now and when it takes effect', async () => {
    const m = await kit.merchant();
    const { subscription } = await kit.subscribe(m, (await kit.plan(m, { interval: 'day' })).id);
    const scheduled = await cancel(m, subscription.id);
    expect(scheduled.status, scheduled.text).toBe(200);
    expect(scheduled.json).toMatchObject({
      id: subscription.id,
      status: 'Active',
      cancelAtPeriodEnd: true,
      cancelAt: subscription.currentPeriodEnd,
      canceledAt: null,
    });
    expect(await kit.subscription(m, subscription.id)).toMatchObject({ status: 'active', cancelAtPeriodEnd: true, cancelAt: subscription.currentPeriodEnd });
    expect((await cancel(m, subscription.id, { reason: 'again' })).json).toEqual(scheduled.json);
    await kit.advanceTo(m, Date.parse(subscription.currentPeriodEnd));
    const [row] = (await list(m, { $filter: `id eq ${subscription.id}` })).json.value;
    expect(row).toMatchObject({ status: 'Canceled', canceledAt: subscription.currentPeriodEnd });
    const events = (await deliveredEvents(t.database.db, m.merchantId, 'subscription.cancelled')).map((e) => e.data.object);
    expect(events.map((s) => [s.status, s.reason])).toEqual([
      ['Active', null],
      ['Canceled', 'cancel_at_period_end'],
    ]);
    expect(await kit.invoices(m, subscription.id)).toHaveLength(1);
  });

  it('at once with cancelAtPeriodEnd false: Canceled with canceledAt and its reason in the event; canceling again changes nothing', async () => {
    const m = await kit.merchant();
    const { subscription } = await kit.subscribe(m, (await kit.plan(m)).id);
    const now = (await kit.clockNow(m)).toISOString();
    const canceled = await cancel(m, subscription.id, { cancelAtPeriodEnd: false, reason: 'moved away' });
    expect(canceled.json).toMatchObject({ status: 'Canceled', canceledAt: now, cancelAtPeriodEnd: false, cancelAt: null });
    expect((await cancel(m, subscription.id, { cancelAtPeriodEnd: false })).json).toEqual(canceled.json);
    const events = (await deliveredEvents(t.database.db, m.merchantId, 'subscription.cancelled')).map((e) => e.data.object);
    expect(events.map((s) => [s.status, s.previousStatus, s.reason])).toEqual([['Canceled', 'Active', 'moved away']]);
    expect((await kit.subscription(m, subscription.id)).status).toBe('canceled');
  });

  it("another merchant's or another mode's subscription answers 404 and stays as it was", async () => {
    const m = await kit.merchant();
    const { subscription } = await kit.subscribe(m, (await kit.plan(m)).id);
    for (const key of [t.merchantB.keys.test.secret, m.keys.live.secret]) {
      const res = await cancel(m, subscription.id, { cancelAtPeriodEnd: false }, key);
      expect(res.status).toBe(404);
      expect(res.json.error).toMatchObject({ code: 'resource_not_found' });
    }
    expect(await kit.subscription(m, subscription.id)).toMatchObject({ status: 'active', cancelAtPeriodEnd: false });
    expect(await deliveredEvents(t.database.db, m.merchantId, 'subscription.cancelled')).toEqual([]);
  });
});
