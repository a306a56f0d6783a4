// Proration of a plan change, called directly (`prorate`, `changeSubscriptionPlan`) on subscriptions
// stored as checkout starts them. The document's rule: a plan change (upgrade or downgrade) moves the
// subscription to the new plan and sends `subscription.updated`, which carries `previousPlanId` and the
// net `proratedAmount` (charge positive, credit negative). How the net is reckoned (issue 14, Till's
// design): by the second of the current period, the unused part of the old plan credited and the rest
// on the new plan charged, each rounded half-up to the currency's minor unit on its own; an upgrade's
// net is charged at once to the card on file, a downgrade's is credited to the next invoices.
import { Decimal } from 'decimal.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { changeSubscriptionPlan, prorate } from '../../server/domain/billing/plan-change.js';
import { runDueSubscriptions } from '../../server/domain/billing/renewal.js';
import { ManualClock } from '../../server/shared/clock.js';
import { useBilling } from '../support/subscriptions.js';

// 31 January to 28 February: a period of 28 days, 2,419,200 seconds.
const START = new Date('2026-01-31T10:00:00Z');
const PERIOD_END = new Date('2026-02-28T10:00:00Z');
const DAY_MS = 86_400_000;
const clock = new ManualClock(START);
const billing = useBilling(clock);
beforeEach(() => clock.set(START));

const at = (ms: number) => new Date(START.getTime() + ms);
const cents = (amount: string) => new Decimal(amount).toFixed(2);

describe('prorate: what a plan change costs', () => {
  it('is reckoned by the second: the time left counts in whole seconds, so at a cent a second, one second in is one cent less, and a second begun is not credited', async () => {
    const centASecond = await billing.plan({ amount: '24192.00' }); // 2,419,200 seconds × 0.01
    const twoCents = await billing.plan({ amount: '48384.00' });
    const s = await billing.subscribe(centASecond);
    expect(s.current_period_end).toEqual(PERIOD_END);
    expect(prorate(s, twoCents, START)).toMatchObject({ credit: '24192.00', charge: '48384.00', proratedAmount: '24192.00', periodEnd: PERIOD_END });
    expect(prorate(s, twoCents, at(1000))).toMatchObject({ credit: '24191.99', charge: '48383.98', proratedAmount: '24191.99' });
    expect(prorate(s, twoCents, at(1500))).toMatchObject({ credit: '24191.98', charge: '48383.96', proratedAmount: '24191.98' });
    expect(prorate(s, twoCents, PERIOD_END)).toMatchObject({ credit: '0.00', charge: '0.00', proratedAmount: '0.00' });
  });

  it("rounds the credit and the charge half-up to the currency's minor unit, each on its own: the net is the difference of the rounded parts", async () => {
    const half = at(14 * DAY_MS);
    const s = await billing.subscribe(await billing.plan({ amount: '10.01' }));
    // 10.01 / 2 = 5.005 → 5.01; 20.00 / 2 = 10.00; the net 4.99 (rounding the difference, 9.99 / 2 = 4.995, would make 5.00).
    expect(prorate(s, await billing.plan({ amount: '20.00' }), half)).toMatchObject({
      credit: '5.01',
      charge: '10.00',
      proratedAmount: '4.99',
      currency: 'USD',
    });
    // 45.55 / 2 = 22.775 → 22.78.
    expect(prorate(s, await billing.plan({ amount: '45.55' }), half)).toMatchObject({ credit: '5.01', charge: '22.78', proratedAmount: '17.77' });
    // No minor unit: 1001 JPY / 2 = 500.5 → 501; 3001 / 2 → 1501.
    const yen = await billing.subscribe(await billing.plan({ amount: '1001', currency: 'JPY' }));
    expect(prorate(yen, await billing.plan({ amount: '3001', currency: 'JPY' }), half)).toMatchObject({
      credit: '501',
      charge: '1501',
      proratedAmount: '1000',
      currency: 'JPY',
    });
  });

  it('prorates nothing during a free trial: nothing was paid', async () => {
    const trial = await billing.subscribe(await billing.plan({ amount: '30.00' }), { trialDays: 14 });
    expect(trial.status).toBe('trialing');
    expect(prorate(trial, await billing.plan({ amount: '45.55' }), at(7 * DAY_MS))).toMatchObject({ credit: '0', charge: '0', proratedAmount: '0' });
  });
});

describe('changeSubscriptionPlan: upgrade and downgrade', () => {
  it('an upgrade: the positive net proratedAmount is charged at once to the card on file, by an invoice of the rest of the period less the credit; subscription.updated carries previousPlanId', async () => {
    const basic = await billing.plan({ amount: '30.00', name: 'Basic monthly' });
    const team = await billing.plan({ amount: '45.55', name: 'Team monthly' });
    const s = await billing.subscribe(basic);
    clock.set(at(7 * DAY_MS)); // 21 of 28 days left: 3/4
    const { subscription, proration } = await changeSubscriptionPlan(billing.db, clock, billing.tenant, s.id, { planId: team.id });
    // 30 × 3/4 = 22.50 credited; 45.55 × 3/4 = 34.1625 → 34.16 charged; 11.66 net.
    expect(proration).toMatchObject({ previousPlanId: basic.id, planId: team.id, credit: '22.50', charge: '34.16', proratedAmount: '11.66' });
    expect(subscription).toMatchObject({ plan_id: team.id, current_period_start: START, current_period_end: PERIOD_END });
    expect([subscription.amount, subscription.credit_balance].map(cents)).toEqual(['45.55', '0.00']);
    expect(subscription.items.map((i) => [i.plan_id, cents(i.amount)])).toEqual([[team.id, '45.55']]);

    const [, charged] = await billing.invoices(s.id);
    expect(charged).toMatchObject({ status: 'paid', period_start: clock.now(), period_end: PERIOD_END });
    expect([charged!.subtotal, charged!.discount, charged!.total, charged!.amount_paid].map(cents)).toEqual(['34.16', '22.50', '11.66', '11.66']);
    expect(charged!.line_items).toMatchObject([{ name: 'Team monthly, rest of the period', quantity: 1, unitAmount: '34.16', total: '34.16' }]);
    const payments = await billing.payments(s.id);
    expect(payments).toHaveLength(2);
    expect(payments[1]).toMatchObject({ status: 'succeeded', session_id: null, payment_method_id: s.payment_method_id });
    expect(cents(payments[1]!.amount)).toBe('11.66');

    const updated = (await billing.events(s.id)).filter((e) => e.type === 'subscription.updated').map((e) => e.data.object);
    expect(updated).toEqual([expect.objectContaining({ previousPlanId: basic.id, proratedAmount: 11.66, reason: 'plan_changed' })]);
  });

  it('a downgrade: the negative net proratedAmount moves no money now; it is kept as the credit of the subscription and taken off its next invoice', async () => {
    const team = await billing.plan({ amount: '45.55', name: 'Team monthly' });
    const basic = await billing.plan({ amount: '30.00', name: 'Basic monthly' });
    const s = await billing.subscribe(team);
    clock.set(at(7 * DAY_MS));
    const { subscription, proration } = await changeSubscriptionPlan(billing.db, clock, billing.tenant, s.id, { planId: basic.id });
    expect(proration).toMatchObject({ credit: '34.16', charge: '22.50', proratedAmount: '-11.66' });
    expect(subscription).toMatchObject({ plan_id: basic.id, current_period_end: PERIOD_END });
    expect(cents(subscription.credit_balance)).toBe('11.66');
    expect(await billing.invoices(s.id)).toHaveLength(1);
    expect(await billing.payments(s.id)).toHaveLength(1);
    const updated = (await billing.events(s.id)).filter((e) => e.type === 'subscription.updated').map((e) => e.data.object);
    expect(updated).toEqual([expect.objectContaining({ previousPlanId: team.id, proratedAmount: -11.66 })]);

    // The renewal at the period's end: 30.00 less the 11.66 credit.
    clock.set(PERIOD_END);
    await runDueSubscriptions(billing.db, clock);
    const renewal = (await billing.invoices(s.id))[1]!;
    expect(renewal.status).toBe('paid');
    expect([renewal.subtotal, renewal.discount, renewal.total].map(cents)).toEqual(['30.00', '11.66', '18.34']);
    expect(cents((await billing.payments(s.id))[1]!.amount)).toBe('18.34');
    expect(cents((await billing.row(s.id)).credit_balance)).toBe('0.00');
  });

  it('an upgrade whose card on file declines is refused with card_declined and changes nothing: no plan change, no charge, no event', async () => {
    const basic = await billing.plan({ amount: '30.00' });
    const team = await billing.plan({ amount: '45.55' });
    const s = await billing.subscribe(basic, { card: '4000000000000341' }); // pays at checkout, declines later
    clock.set(at(7 * DAY_MS));
    await expect(changeSubscriptionPlan(billing.db, clock, billing.tenant, s.id, { planId: team.id })).rejects.toMatchObject({
      code: 'card_declined',
      param: 'planId',
    });
    expect(await billing.row(s.id)).toMatchObject({ plan_id: basic.id, credit_balance: s.credit_balance });
    expect(await billing.invoices(s.id)).toHaveLength(1);
    expect(await billing.payments(s.id)).toHaveLength(1);
    expect((await billing.events(s.id)).map((e) => e.type)).toEqual(['subscription.created', 'subscription.activated']);
  });
});
