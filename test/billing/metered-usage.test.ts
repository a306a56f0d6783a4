// Metered (`Usage`) plans (issue 35 §9): a checkout session on one starts the subscription at once
// (nothing is paid now), usage is recorded on either interface (once per usageId, in the current
// period, on metered items only) and each period's usage is billed at its end as an invoice line,
// units × the unit price, charged to the card on file. A year runs on the sandbox clock.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { useTestServer } from '../support/server.js';
import { billingKit } from '../support/billing.js';
import { delivered } from '../support/events.js';
import { cardFields, formTokenOf, getPage, newPortal, postForm } from '../support/portal.js';

const clock = new ManualClock('2026-01-15T10:00:00Z');
const t = useTestServer({ clock, rateLimitScale: 100 });
const kit = billingKit(t, clock);
const sk = (m: MerchantCredentials) => m.keys.test.secret;

/** A monthly Usage plan at `unitPrice` a unit, made through the Commerce catalog. */
async function usagePlan(m: MerchantCredentials, unitPrice = '0.05'): Promise<number> {
  const product = await t.call('POST', '/v1/SubscriptionProduct', { apiKey: sk(m), body: { name: 'API' } });
  const plan = await t.call('POST', '/v1/SubscriptionPlan', {
    apiKey: sk(m),
    body: { productId: product.json.id, name: 'API calls', amount: unitPrice, currency: 'USD', timeUnit: 'Month', subscriptionBillingType: 'Usage' },
  });
  expect(plan.status, plan.text).toBe(201);
  return plan.json.id;
}

/** A subscription on a Usage plan through a checkout session (it completes at creation); the customer adds a card in the portal. */
async function meteredSubscription(m: MerchantCredentials, planId: number, options: { card?: boolean } = {}) {
  const customer = await kit.customer(m);
  const session = await t.call('POST', '/v1/checkout-sessions', {
    key: sk(m),
    body: { mode: 'embedded', paymentType: 'subscription', subscriptionPlanId: planId, clientId: customer.id },
  });
  expect(session.status, session.text).toBe(201);
  expect(session.json).toMatchObject({ status: 'completed', paymentStatus: 'no_payment_required', amount: 0 });
  const subscriptionId = (await t.call('GET', `/v1/checkout-sessions/${session.json.id}`, { key: sk(m) })).json.subscriptionId;
  const portal = await newPortal(t, m, customer.id);
  if (options.card ?? true) {
    const page = await getPage(t, portal.path);
    const saved = await postForm(t, `${portal.path}/card`, { form: formTokenOf(page.html), ...cardFields('4242424242424242') });
    expect(saved.status, saved.html).toBe(303);
  }
  return { customer, sessionId: session.json.id as string, portal, subscription: await kit.subscription(m, subscriptionId) };
}

const checkoutUsage = (m: MerchantCredentials, itemId: number, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  t.call('POST', `/v1/subscription-items/${itemId}/usage-records`, { key: sk(m), body, headers });
const commerceUsage = (m: MerchantCredentials, subscriptionId: number, body: Record<string, unknown>) =>
  t.call('POST', `/v1/subscription/${subscriptionId}/usage`, { apiKey: sk(m), body });

describe('metered (Usage) plans', () => {
  it(
    'runs a year: each month the usage recorded on either interface is billed at the period end as one line, units × 0.05, paid by the card on file',
    { timeout: 90_000 },
    async () => {
      const m = await kit.merchant();
      const { subscription, sessionId } = await meteredSubscription(m, await usagePlan(m));
      expect(subscription).toMatchObject({ status: 'active', hasPaymentMethod: true, amount: 0.05, items: [{ isMetered: true, quantity: 1, amount: 0.05 }] });
      const item = subscription.items[0].id;

      const anchor = new Date(subscription.currentPeriodStart);
      const used: number[] = [];
      for (let month = 0; month < 12; month++) {
        const units = 1000 + 37 * month;
        used.push(units);
        const usageId = `month-${month}`;
        const first =
          month % 2 === 0 ? await checkoutUsage(m, item, { quantity: units, usageId }) : await commerceUsage(m, subscription.id, { quantity: units, usageId });
        expect(first.status, first.text).toBe(201);
        if (month < 2) {
          // The same report again, through the other interface: not counted twice.
          const repeat =
            month === 0 ? await commerceUsage(m, subscription.id, { quantity: units, usageId }) : await checkoutUsage(m, item, { quantity: units, usageId });
          expect(repeat.status, repeat.text).toBe(200);
        }
        const periodEnd = new Date(anchor);
        periodEnd.setUTCMonth(anchor.getUTCMonth() + month + 1);
        await kit.advanceTo(m, periodEnd.getTime());
      }
      const invoices = [...(await kit.invoices(m, subscription.id))].reverse();
      expect(invoices).toHaveLength(12);
      for (const [month, invoice] of invoices.entries()) {
        const full = (await t.call('GET', `/v1/invoices/${invoice.id}`, { key: sk(m) })).json;
        expect(full.status).toBe('paid');
        expect(full.lineItems).toHaveLength(1);
        expect(full.lineItems[0]).toMatchObject({
          name: 'API calls (usage)',
          quantity: used[month],
          unitAmount: 0.05,
          total: Number((used[month]! * 0.05).toFixed(2)),
        });
        expect(full.total).toBe(Number((used[month]! * 0.05).toFixed(2)));
      }
      const events = (
        await t.database.db
          .selectFrom('events')
          .select(['type', 'data'])
          .where('merchant_id', '=', m.merchantId)
          .where('type', 'like', 'subscription.%')
          .orderBy('seq')
          .execute()
      ).map(delivered);
      expect(events.filter((e) => e.type === 'subscription.renewed')).toHaveLength(12);
      for (const e of events) expect(e.data.items).toEqual([expect.objectContaining({ id: item, isMetered: true })]);
      const sessionEvents = await t.database.db.selectFrom('events').select('type').where('session_id', '=', sessionId).orderBy('seq').execute();
      expect(sessionEvents.map((e) => e.type)).toEqual(['subscription.created', 'checkout.session.completed']);
    },
  );

  it('refuses usage on a non-metered item (both interfaces), outside the current period, or twice under one usageId with other figures; the portal lists usage so far; a cancellation bills it', async () => {
    const m = await kit.merchant();
    const recurring = await kit.subscribe(m, (await kit.plan(m)).id);
    expect(recurring.subscription.items[0].isMetered).toBe(false);
    const notMetered = await checkoutUsage(m, recurring.subscription.items[0].id, { quantity: 1 });
    expect(notMetered.status).toBe(400);
    expect(notMetered.json).toMatchObject({ success: false, errorCode: 'subscription_item_not_metered', data: { type: 'invalid_request', param: 'id' } });
    const commerceNotMetered = await commerceUsage(m, recurring.subscription.id, { quantity: 1 });
    expect(commerceNotMetered.status).toBe(400);
    expect(commerceNotMetered.json.error).toMatchObject({ type: 'invalid_request', code: 'subscription_item_not_metered' });
    expect((await checkoutUsage(m, 2_000_000_000, { quantity: 1 })).status).toBe(404);

    const planId = await usagePlan(m, '0.25');
    const trial = await t.call('POST', '/v1/checkout-sessions', {
      key: sk(m),
      body: { mode: 'embedded', paymentType: 'subscription', subscriptionPlanId: planId, clientId: recurring.customer.id, trialDays: 7 },
    });
    expect(trial.status).toBe(400);
    expect(trial.json.error).toMatchObject({ code: 'validation_error', param: 'trialDays' });
    const { subscription, portal, customer } = await meteredSubscription(m, planId, { card: false });
    expect(subscription.hasPaymentMethod).toBe(false);
    const item = subscription.items[0].id;
    const start = Date.parse(subscription.currentPeriodStart);
    const before = await checkoutUsage(m, item, { quantity: 1, timestamp: new Date(start - 1000).toISOString() });
    expect(before.status).toBe(400);
    expect(before.json).toMatchObject({ errorCode: 'validation_error', data: { param: 'timestamp' } });
    const future = await commerceUsage(m, subscription.id, { quantity: 1, timestamp: new Date(start + 86_400_000).toISOString() });
    expect(future.status).toBe(400);
    expect(future.json.error).toMatchObject({ code: 'validation_error', param: 'timestamp' });

    const keyed = await checkoutUsage(m, item, { quantity: 3, usageId: 'job-1' }, { 'Idempotency-Key': 'usage-job-1' });
    expect(keyed.status, keyed.text).toBe(201);
    const replay = await checkoutUsage(m, item, { quantity: 3, usageId: 'job-1' }, { 'Idempotency-Key': 'usage-job-1' });
    expect(replay.json).toEqual(keyed.json);
    const clash = await checkoutUsage(m, item, { quantity: 4, usageId: 'job-1' });
    expect(clash.status).toBe(409);
    expect(clash.json).toMatchObject({ errorCode: 'idempotency_key_reused', data: { param: 'usageId' } });
    expect((await commerceUsage(m, subscription.id, { quantity: 9 })).json).toMatchObject({ periodUsage: 12, periodAmount: '3.00' });

    const page = await getPage(t, portal.path);
    expect(page.html).toContain('data-field="usage">12 units · ');
    expect(page.html).toContain('data-notice="add-card"');
    const commerceList = await t.call('GET', `/v1/subscription?$filter=id eq ${subscription.id}`, { apiKey: sk(m) });
    expect(commerceList.json.value).toEqual([expect.objectContaining({ isMetered: true, subscriptionBillingType: 'Usage' })]);
    const change = await kit.changePlan(m, subscription.id, (await kit.plan(m)).id);
    expect(change.json.errorCode).toBe('subscription_not_changeable');

    const canceled = await kit.action(m, subscription.id, 'cancel', { cancelAtPeriodEnd: false });
    expect(canceled.status, canceled.text).toBe(200);
    const [final] = await kit.invoices(m, subscription.id);
    const lines = (await t.call('GET', `/v1/invoices/${final.id}`, { key: sk(m) })).json.lineItems;
    expect(lines).toEqual([expect.objectContaining({ name: 'API calls (usage)', quantity: 12, unitAmount: 0.25, total: 3 })]);
    expect(final.status).not.toBe('paid'); // no card on file: the invoice stays open
    const after = await commerceUsage(m, subscription.id, { quantity: 1 });
    expect(after.status).toBe(409);
    expect(after.json.error.code).toBe('invalid_state');
    expect(customer.id).toBe(subscription.clientId);
  });
});
