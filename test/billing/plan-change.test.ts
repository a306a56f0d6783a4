// Plan changes (issue 14): upgrade and downgrade mid-period with exact proration, by the second,
// rounded half-up to the minor unit; the upgrade charged at once, the downgrade credited to the
// next invoice; refusals change nothing and send nothing.
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { billingKit, DAY } from '../support/billing.js';
import { deliveredEvents } from '../support/event-contract.js';
import { useTestServer } from '../support/server.js';

// 31 January to 28 February: a 28-day period; 7 days in, 21 of 28 days (3/4) are left.
const clock = new ManualClock('2026-01-31T10:00:00Z');
const t = useTestServer({ clock, rateLimitScale: 100 });
const kit = billingKit(t, clock);

async function subscribedAt(amount: number, card?: string) {
  const m = await kit.merchant();
  const from = await kit.plan(m, { amount, name: 'Basic monthly' });
  const { subscription } = await kit.subscribe(m, from.id, card ? { card } : {});
  await kit.advance(m, 7 * DAY);
  return { m, from, subscription };
}

describe('upgrade', () => {
  it('prorated by the second: the old plan credited, the new one charged for the rest of the period, each rounded half-up; the net is charged now', async () => {
    const { m, from, subscription } = await subscribedAt(30);
    const to = await kit.plan(m, { amount: 45.55, name: 'Team monthly' });
    // 45.55 × 3/4 = 34.1625 → 34.16; 30 × 3/4 = 22.50; net 11.66.
    const expected = {
      object: 'proration',
      previousPlanId: from.id,
      planId: to.id,
      credit: 22.5,
      charge: 34.16,
      proratedAmount: 11.66,
      currency: 'USD',
      periodEnd: subscription.currentPeriodEnd,
      settlement: 'charged_now',
    };
    const preview = await kit.previewPlanChange(m, subscription.id, to.id);
    expect(preview.status, preview.text).toBe(200);
    expect(preview.json.data).toMatchObject(expected);

    const changed = await kit.changePlan(m, subscription.id, to.id);
    expect(changed.status, changed.text).toBe(200);
    expect(changed.json.data.proration).toMatchObject(expected);
    expect(changed.json.data.subscription).toMatchObject({
      planId: to.id,
      planName: 'Team monthly',
      amount: 45.55,
      currentPeriodEnd: subscription.currentPeriodEnd,
      creditBalance: 0,
      items: [expect.objectContaining({ planId: to.id, amount: 45.55 })],
    });

    const [invoice] = await kit.invoices(m, subscription.id);
    expect(invoice).toMatchObject({ status: 'paid', amount: 11.66, amountPaid: 11.66 });
    const full = await t.call('GET', `/v1/invoices/${invoice.id}`, { key: m.keys.test.secret });
    expect(full.json).toMatchObject({ subtotal: 34.16, discount: 22.5, total: 11.66 });
    const payment = await t.database.db.selectFrom('payments').select(['amount', 'status']).where('invoice_id', '=', invoice.id).executeTakeFirstOrThrow();
    expect([new Decimal(payment.amount).toFixed(2), payment.status]).toEqual(['11.66', 'succeeded']);

    const [updated] = (await deliveredEvents(t.database.db, m.merchantId, 'subscription.updated')).map((e) => e.data.object);
    expect(updated).toMatchObject({
      status: 'Active',
      previousPlanId: from.id,
      proratedAmount: 11.66,
      reason: 'plan_changed',
      items: [expect.objectContaining({ planId: to.id })],
    });

    await kit.advanceTo(m, Date.parse(subscription.currentPeriodEnd));
    expect((await kit.invoices(m, subscription.id))[0]).toMatchObject({ status: 'paid', amount: 45.55 });
  });

  it('a card on file that declines: 400 card_declined and nothing changes, no event', async () => {
    const { m, from, subscription } = await subscribedAt(30, '4000000000000341');
    const to = await kit.plan(m, { amount: 50 });
    const refused = await kit.changePlan(m, subscription.id, to.id);
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ success: false, errorCode: 'card_declined' });
    expect(await kit.subscription(m, subscription.id)).toMatchObject({ planId: from.id, amount: 30 });
    expect(await kit.invoices(m, subscription.id)).toHaveLength(1);
    expect(await deliveredEvents(t.database.db, m.merchantId, 'subscription.updated')).toEqual([]);
  });
});

describe('downgrade', () => {
  it('the negative net becomes credit, taken off the next invoice; no money moves now', async () => {
    const { m, subscription } = await subscribedAt(50);
    const to = await kit.plan(m, { amount: 30 });
    const changed = await kit.changePlan(m, subscription.id, to.id);
    // 30 × 3/4 = 22.50 charged, 50 × 3/4 = 37.50 credited: net -15.00.
    expect(changed.json.data.proration).toMatchObject({ credit: 37.5, charge: 22.5, proratedAmount: -15, settlement: 'credited' });
    expect(changed.json.data.subscription).toMatchObject({ amount: 30, creditBalance: 15 });
    expect(await kit.invoices(m, subscription.id)).toHaveLength(1);
    const [updated] = (await deliveredEvents(t.database.db, m.merchantId, 'subscription.updated')).map((e) => e.data.object);
    expect(updated.proratedAmount).toBe(-15);

    await kit.advanceTo(m, Date.parse(subscription.currentPeriodEnd));
    const [renewal] = await kit.invoices(m, subscription.id);
    expect(renewal).toMatchObject({ status: 'paid', amount: 15, amountPaid: 15 });
    expect(await kit.subscription(m, subscription.id)).toMatchObject({ creditBalance: 0 });
  });
});

describe('refused or no change', () => {
  it('another currency or interval: 400 validation_error naming planId; a past-due subscription: 400 subscription_not_changeable; the same plan: 200 and no event', async () => {
    const { m, from, subscription } = await subscribedAt(30);
    const euro = await kit.plan(m, { amount: 30, currency: 'EUR' });
    const weekly = await kit.plan(m, { amount: 10, interval: 'week' });
    for (const plan of [euro, weekly]) {
      const refused = await kit.changePlan(m, subscription.id, plan.id);
      expect(refused.status).toBe(400);
      expect(refused.json).toMatchObject({ success: false, errorCode: 'validation_error' });
      expect(refused.json.data.param).toBe('planId');
    }
    const same = await kit.changePlan(m, subscription.id, from.id);
    expect(same.status).toBe(200);
    expect(same.json.data.proration).toMatchObject({ proratedAmount: 0, settlement: 'none' });
    const other = await kit.merchant();
    const foreign = await kit.plan(other, { amount: 40 });
    expect((await kit.changePlan(m, subscription.id, foreign.id)).json.data.param).toBe('planId');
    expect((await kit.changePlan(other, subscription.id, foreign.id)).status).toBe(404);
    expect(await deliveredEvents(t.database.db, m.merchantId, 'subscription.updated')).toEqual([]);

    const { m: m2, subscription: late } = await subscribedAt(30, '4000000000000341');
    await kit.advanceTo(m2, Date.parse(late.currentPeriodEnd));
    const pricier = await kit.plan(m2, { amount: 60 });
    const notChangeable = await kit.changePlan(m2, late.id, pricier.id);
    expect(notChangeable.status).toBe(400);
    expect(notChangeable.json).toMatchObject({ success: false, errorCode: 'subscription_not_changeable' });
  });

  it('during a free trial nothing is prorated: the trial converts on the new plan', async () => {
    const m = await kit.merchant();
    const from = await kit.plan(m, { amount: 30 });
    const { subscription } = await kit.subscribe(m, from.id, { trialDays: 7 });
    const to = await kit.plan(m, { amount: 70 });
    const changed = await kit.changePlan(m, subscription.id, to.id);
    expect(changed.json.data.proration).toMatchObject({ credit: 0, charge: 0, proratedAmount: 0 });
    expect(changed.json.data.subscription).toMatchObject({ status: 'trialing', planId: to.id, amount: 70 });
    await kit.advance(m, 7 * DAY);
    expect((await kit.invoices(m, subscription.id))[0]).toMatchObject({ amount: 70 });
  });
});
