// Subscription plans of the Commerce catalog (issue 16 §2) over HTTP on a real database: the same
// rows as the Checkout interface's /v1/plans, each interface with its spelling; PATCH changes only
// the fields sent; the price lock (amount, currency, period) and archived plans; the OData list;
// and what each billing type does at checkout and renewal, on the sandbox clock.
import { beforeAll, describe, expect, it } from 'vitest';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { ManualClock } from '../../server/shared/clock.js';
import { billingKit, DAY } from '../support/billing.js';
import { useTestServer } from '../support/server.js';

const clock = new ManualClock('2026-03-02T10:00:00Z');
const t = useTestServer({ clock, rateLimitScale: 100 });
const kit = billingKit(t, clock);
let m: MerchantCredentials;
beforeAll(async () => {
  m = await t.newMerchant('Plans merchant');
});

const sk = () => m.keys.test.secret;
const commerce = (method: string, path: string, body?: unknown, key = sk()) => t.call(method, path, { apiKey: key, body });
const odata = (query: Record<string, string>, key = sk()) => t.call('GET', `/v1/SubscriptionPlan?${new URLSearchParams(query).toString()}`, { apiKey: key });
const checkoutPlan = async (id: number) => (await t.call('GET', `/v1/plans/${id}`, { key: sk() })).json.data;

async function productId(name = 'Coffee Club', key = sk()): Promise<number> {
  const res = await commerce('POST', '/v1/SubscriptionProduct', { name, media: [{ mediaUrl: 'https://cdn.example.com/beans.jpg' }] }, key);
  expect(res.status, res.text).toBe(201);
  return res.json.id;
}
async function plan(body: Record<string, unknown> = {}, key = sk()) {
  const res = await commerce(
    'POST',
    '/v1/SubscriptionPlan',
    { productId: body.productId ?? (await productId(undefined, key)), name: 'Monthly beans', amount: '10.00', currency: 'USD', timeUnit: 'Month', ...body },
    key,
  );
  expect(res.status, res.text).toBe(201);
  return res.json;
}
const session = (planId: number, clientId: number, extra: Record<string, unknown> = {}, key = sk()) =>
  t.call('POST', '/v1/checkout-sessions', {
    key,
    body: { mode: 'embedded', paymentType: 'subscription', subscriptionPlanId: planId, clientId, ...extra },
  });

describe('plans on both interfaces', () => {
  it('a Commerce plan reads on Checkout: "10.00" is 10, Month/3 is month/3, Active is available and active', async () => {
    const p = await plan({ timeInterval: 3, description: 'Quarterly', details: '3 bags' });
    expect(p).toMatchObject({
      merchantId: m.merchantId,
      productName: 'Coffee Club',
      amount: '10.00',
      currency: 'USD',
      timeUnit: 'Month',
      timeInterval: 3,
      subscriptionBillingType: 'Recurring',
      status: 'Active',
      details: '3 bags',
      validTo: null,
    });
    expect(p.validFrom).toBe(p.createdDateTime);
    expect(await checkoutPlan(p.id)).toMatchObject({
      id: p.id,
      productId: p.productId,
      amount: 10,
      currency: 'USD',
      interval: 'month',
      intervalCount: 3,
      status: 'available',
      active: true,
      description: 'Quarterly',
      createdAt: p.createdDateTime,
    });
    const draft = await plan({ status: 'Inactive', amount: '19.99', timeUnit: 'Year' });
    expect(await checkoutPlan(draft.id)).toMatchObject({ amount: 19.99, interval: 'year', active: false, status: 'available' });
    const archived = await plan({ status: 'Archived' });
    expect(await checkoutPlan(archived.id)).toMatchObject({ status: 'discontinued', active: false });
  });

  it('a Checkout plan reads on Commerce, exactly: 1234.56 is "1234.56", JPY has no decimals; archiving there shows Archived here', async () => {
    const pid = await productId();
    const made = await t.call('POST', '/v1/plans', {
      key: sk(),
      body: { productId: pid, name: 'Weekly', amount: 1234.56, currency: 'usd', interval: 'week', intervalCount: 2 },
    });
    expect(made.status, made.text).toBe(201);
    const [row] = (await odata({ $filter: `id eq ${made.json.data.id}` })).json.value;
    expect(row).toMatchObject({ amount: '1234.56', currency: 'USD', timeUnit: 'Week', timeInterval: 2, status: 'Active', productId: pid });
    await t.call('DELETE', `/v1/plans/${made.json.data.id}`, { key: sk() });
    expect((await odata({ $filter: `id eq ${made.json.data.id}` })).json.value[0].status).toBe('Archived');
    expect((await plan({ productId: pid, amount: '1500', currency: 'JPY' })).amount).toBe('1500');
    const tooFine = await commerce('POST', '/v1/SubscriptionPlan', { productId: pid, name: 'x', amount: '10.005', currency: 'USD', timeUnit: 'Day' });
    expect(tooFine.json.error).toMatchObject({ code: 'validation_error', param: 'amount' });
    const zero = await commerce('POST', '/v1/SubscriptionPlan', { productId: pid, name: 'x', amount: '0.00', currency: 'USD', timeUnit: 'Day' });
    expect(zero.json.error).toMatchObject({ code: 'parameter_invalid', param: 'amount' });
    const foreign = await commerce(
      'POST',
      '/v1/SubscriptionPlan',
      { productId: pid, name: 'x', amount: '5.00', currency: 'USD', timeUnit: 'Day' },
      t.merchantB.keys.test.secret,
    );
    expect(foreign.json.error).toMatchObject({ code: 'validation_error', param: 'productId' });
    const backwards = await commerce('POST', '/v1/SubscriptionPlan', {
      productId: pid,
      name: 'x',
      amount: '5.00',
      currency: 'USD',
      timeUnit: 'Day',
      validFrom: '2026-06-01T00:00:00Z',
      validTo: '2026-05-01T00:00:00Z',
    });
    expect(backwards.json.error).toMatchObject({ code: 'validation_error', param: 'validTo' });
  });

  it('PATCH changes only the fields sent; status moves Active and Inactive freely', async () => {
    const p = await plan({ description: 'Keep me', details: 'Two bags' });
    const renamed = await commerce('PATCH', `/v1/SubscriptionPlan/${p.id}`, { name: 'Beans monthly' });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.json).toEqual({ ...p, name: 'Beans monthly' });
    const drafted = await commerce('PATCH', `/v1/SubscriptionPlan/${p.id}`, { status: 'Inactive', details: null, validTo: '2027-01-01T00:00:00.000Z' });
    expect(drafted.json).toEqual({ ...p, name: 'Beans monthly', status: 'Inactive', details: null, validTo: '2027-01-01T00:00:00.000Z' });
    expect(await checkoutPlan(p.id)).toMatchObject({ name: 'Beans monthly', description: 'Keep me', active: false, status: 'available' });
    expect((await commerce('PATCH', `/v1/SubscriptionPlan/${p.id}`, { status: 'Active' })).json.status).toBe('Active');
    const early = await commerce('PATCH', `/v1/SubscriptionPlan/${p.id}`, { validTo: p.validFrom });
    expect(early.json.error).toMatchObject({ code: 'validation_error', param: 'validTo' });
    expect((await commerce('PATCH', `/v1/SubscriptionPlan/${p.id}`, { name: 'Taken' }, t.merchantB.keys.test.secret)).status).toBe(404);
  });

  it('keeps its price once subscribed: amount, currency, timeUnit and timeInterval answer field_immutable, on both interfaces', async () => {
    const p = await plan({ amount: '29.00' });
    const { subscription } = await kit.subscribe(m, p.id);
    for (const [field, value] of [
      ['amount', '35.00'],
      ['currency', 'EUR'],
      ['timeUnit', 'Year'],
      ['timeInterval', 2],
      ['amount', '29.00'],
    ] as const) {
      const res = await commerce('PATCH', `/v1/SubscriptionPlan/${p.id}`, { name: 'Cheaper', [field]: value });
      expect(res.status, res.text).toBe(400);
      expect(res.json.error).toMatchObject({ code: 'field_immutable', param: field });
    }
    const checkout = await t.call('PATCH', `/v1/plans/${p.id}`, { key: sk(), body: { interval: 'year' } });
    expect(checkout.json).toMatchObject({ success: false, errorCode: 'field_immutable' });
    expect((await odata({ $filter: `id eq ${p.id}` })).json.value[0]).toMatchObject({
      name: 'Monthly beans',
      amount: '29.00',
      timeUnit: 'Month',
      timeInterval: 1,
    });
    expect(await kit.subscription(m, subscription.id)).toMatchObject({ amount: 29, interval: 'month' });
  });

  it('DELETE archives (subscriptions keep billing, no new one starts); an archived plan cannot be changed but by its status', async () => {
    const p = await plan({ timeUnit: 'Day', amount: '5.00' });
    const { subscription, customer } = await kit.subscribe(m, p.id);
    const archived = await commerce('DELETE', `/v1/SubscriptionPlan/${p.id}`);
    expect(archived.json).toEqual({ ...p, status: 'Archived' });
    expect((await commerce('DELETE', `/v1/SubscriptionPlan/${p.id}`)).json).toEqual(archived.json);
    expect((await commerce('PATCH', `/v1/SubscriptionPlan/${p.id}`, { status: 'Archived' })).json).toEqual(archived.json);
    for (const body of [{ name: 'Back again' }, { validTo: null }]) {
      const res = await commerce('PATCH', `/v1/SubscriptionPlan/${p.id}`, body);
      expect(res.status).toBe(409);
      expect(res.json.error).toMatchObject({ code: 'invalid_state' });
    }
    expect((await session(p.id, customer.id)).json.error).toMatchObject({ code: 'validation_error', param: 'subscriptionPlanId' });
    await kit.advance(m, DAY + 60);
    expect(await kit.invoices(m, subscription.id)).toHaveLength(2); // renewed on the archived plan
    expect((await kit.subscription(m, subscription.id)).status).toBe('active');
  });

  it('an archived plan is made Inactive or Active again by PATCH of status (other fields with it); new subscriptions start again', async () => {
    const p = await plan();
    const path = `/v1/SubscriptionPlan/${p.id}`;
    expect((await commerce('DELETE', path)).json.status).toBe('Archived');
    const inactive = await commerce('PATCH', path, { status: 'Inactive', name: 'Back as a draft' });
    expect(inactive.status, inactive.text).toBe(200);
    expect(inactive.json).toEqual({ ...p, status: 'Inactive', name: 'Back as a draft' });
    expect(await checkoutPlan(p.id)).toMatchObject({ status: 'available', active: false });
    expect((await commerce('PATCH', path, { status: 'Archived' })).json.status).toBe('Archived');
    const active = await commerce('PATCH', path, { status: 'Active' });
    expect(active.status, active.text).toBe(200);
    expect(active.json.status).toBe('Active');
    expect(await checkoutPlan(p.id)).toMatchObject({ status: 'available', active: true });
    expect((await kit.subscribe(m, p.id)).subscription.status).toBe('active');
    // The Checkout interface shows no way back: there an archived plan stays unchangeable.
    expect((await commerce('DELETE', path)).json.status).toBe('Archived');
    const checkout = await t.call('PATCH', `/v1/plans/${p.id}`, { key: sk(), body: { active: true } });
    expect(checkout.status).toBe(409);
    expect((await odata({ $filter: `id eq ${p.id}` })).json.value[0].status).toBe('Archived');
  });

  it('list as OData: $filter by productId and status, $orderby amount, $count, $expand=Product with its media', async () => {
    const pid = await productId('Tea Club');
    const ids = [
      (await plan({ productId: pid, amount: '7.50' })).id,
      (await plan({ productId: pid, amount: '12.00', status: 'Inactive' })).id,
      (await plan({ productId: pid, amount: '9.00' })).id,
    ];
    const active = await odata({ $filter: `productId eq ${pid} and status eq 'Active'`, $orderby: 'amount desc', $count: 'true', $expand: 'Product' });
    expect(active.json['@odata.count']).toBe(2);
    expect(active.json.value.map((p: any) => [p.id, p.amount])).toEqual([
      [ids[2], '9.00'],
      [ids[0], '7.50'],
    ]);
    expect(active.json.value[0].product).toMatchObject({
      id: pid,
      name: 'Tea Club',
      subscriptionProductType: 'Service',
      media: [{ mediaUrl: 'https://cdn.example.com/beans.jpg', isPrimary: true }],
    });
    expect((await odata({ $filter: `productId eq ${pid}` })).json.value[0].product).toBeUndefined();
    expect(
      (await odata({ $filter: `productId eq ${pid} and amount ge 9 and timeUnit eq 'Month' and subscriptionBillingType eq 'Recurring'`, $count: 'true' })).json[
        '@odata.count'
      ],
    ).toBe(2);
    expect((await odata({ $filter: `productId eq ${pid}`, $count: 'true' }, m.keys.live.secret)).json['@odata.count']).toBe(3);
    expect((await odata({ $filter: `productId eq ${pid}`, $count: 'true' }, t.merchantB.keys.test.secret)).json['@odata.count']).toBe(0);
    expect((await odata({ $filter: "status eq 'Deleted'" })).json.error).toMatchObject({ code: 'parameter_invalid', param: '$filter' });
    expect(
      (
        await t.call('POST', '/v1/subscriptionPlan', {
          apiKey: sk(),
          body: { productId: pid, name: 'Lower case path', amount: '1.00', currency: 'USD', timeUnit: 'Day' },
        })
      ).status,
    ).toBe(201);
  });
});

describe('billing types and validity at checkout and renewal', () => {
  it('Recurring renews every period', async () => {
    const p = await plan({ timeUnit: 'Day', amount: '3.00' });
    const { subscription } = await kit.subscribe(m, p.id);
    expect(subscription).toMatchObject({ status: 'active', cancelAtPeriodEnd: false, cancelAt: null });
    await kit.advance(m, 2 * DAY + 60);
    expect(await kit.invoices(m, subscription.id)).toHaveLength(3);
  });

  it('OneTime is charged once, covers one period with its end scheduled, never renews, and takes no trial', async () => {
    // A merchant of its own: its clock's 30 days then run this subscription's work only, not the
    // daily renewals (and their settlements and payouts) of the other tests' subscriptions.
    const own = await t.newMerchant('OneTime merchant');
    const key = own.keys.test.secret;
    const p = await plan({ timeUnit: 'Week', amount: '15.00', subscriptionBillingType: 'OneTime' }, key);
    expect(p.subscriptionBillingType).toBe('OneTime');
    const { subscription, customer } = await kit.subscribe(own, p.id);
    expect(subscription).toMatchObject({ status: 'active', amount: 15, cancelAtPeriodEnd: true, cancelAt: subscription.currentPeriodEnd });
    const trial = await session(p.id, customer.id, { trialDays: 7 }, key);
    expect(trial.json.error).toMatchObject({ code: 'validation_error', param: 'trialDays' });
    await kit.advance(own, 30 * DAY);
    expect(await kit.subscription(own, subscription.id)).toMatchObject({ status: 'canceled', canceledAt: subscription.currentPeriodEnd });
    expect(await kit.invoices(own, subscription.id)).toHaveLength(1);
    const recurring = await plan({ timeUnit: 'Week', amount: '15.00' }, key);
    const { subscription: other } = await kit.subscribe(own, recurring.id);
    expect((await kit.changePlan(own, other.id, p.id)).json).toMatchObject({ success: false, errorCode: 'validation_error' });
  });

  it('a Usage plan starts a subscription at once, nothing paid now (metered-usage.test.ts bills it); none starts outside validFrom..validTo', async () => {
    const customer = await kit.customer(m);
    const usage = await plan({ subscriptionBillingType: 'Usage', amount: '0.05' });
    expect((await session(usage.id, customer.id)).json).toMatchObject({ status: 'completed', paymentStatus: 'no_payment_required', amount: 0 });
    const now = (await kit.clockNow(m)).getTime();
    const later = await plan({ validFrom: new Date(now + 10 * DAY * 1000).toISOString() });
    expect((await session(later.id, customer.id)).json.error).toMatchObject({ code: 'validation_error', param: 'subscriptionPlanId' });
    const ended = await plan({ validFrom: new Date(now - 20 * DAY * 1000).toISOString(), validTo: new Date(now - DAY * 1000).toISOString() });
    expect((await session(ended.id, customer.id)).json.error).toMatchObject({ code: 'validation_error', param: 'subscriptionPlanId' });
    const open = await plan({ validTo: new Date(now + 10 * DAY * 1000).toISOString() });
    expect((await session(open.id, customer.id)).status).toBe(201);
  });
});
