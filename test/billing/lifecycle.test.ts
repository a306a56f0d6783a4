// The billing lifecycle (issue 14, section 1), end to end over HTTP on the sandbox clock: renewals
// on the card on file, dunning, trials, pause and resume, cancel. Plan changes are in
// plan-change.test.ts, renewals racing (PostgreSQL) in lifecycle.pg.test.ts, and the rules these
// follow, called directly, in the *.domain.test.ts files. Every event a test reads is validated against the contract.
import { Decimal } from 'decimal.js';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { deliveredEvents } from '../support/event-contract.js';
import { MERCHANT_BALANCES } from '../support/ledger.js';
import { useTestServer } from '../support/server.js';
import { billingKit, DAY } from '../support/billing.js';

// A period that starts on the 31st: monthly renewals keep the day (or the month's last day).
const clock = new ManualClock('2026-01-31T10:00:00Z');
const t = useTestServer({ clock, rateLimitScale: 100 });
const kit = billingKit(t, clock);

const types = (events: any[]) => events.map((e) => e.type);

describe('renewal on the card on file', () => {
  it('a year of monthly renewals in one advance: 12 invoices and 12 payments in order, periods anchored on the 31st, an exact ledger, a receipt each', async () => {
    const m = await kit.merchant();
    const plan = await kit.plan(m, { amount: 29.99 });
    const { subscription, customer } = await kit.subscribe(m, plan.id);
    expect(subscription).toMatchObject({ status: 'active', currentPeriodEnd: '2026-02-28T10:00:00.000Z', creditBalance: 0, nextPaymentAttempt: null });

    expect((await kit.advance(m, 365 * DAY)).status).toBe(200);

    const after = await kit.subscription(m, subscription.id);
    expect(after).toMatchObject({ status: 'active', currentPeriodStart: '2027-01-31T10:00:00.000Z', currentPeriodEnd: '2027-02-28T10:00:00.000Z' });
    const invoices = (await kit.invoices(m, subscription.id)).reverse();
    expect(invoices).toHaveLength(13);
    expect(invoices.map((i: any) => i.periodStart.slice(0, 10))).toEqual([
      '2026-01-31',
      '2026-02-28',
      '2026-03-31',
      '2026-04-30',
      '2026-05-31',
      '2026-06-30',
      '2026-07-31',
      '2026-08-31',
      '2026-09-30',
      '2026-10-31',
      '2026-11-30',
      '2026-12-31',
      '2027-01-31',
    ]);
    expect(invoices.every((i: any) => i.status === 'paid' && i.amount === 29.99 && i.amountPaid === 29.99)).toBe(true);

    const payments = await t.database.db
      .selectFrom('payments')
      .select(['id', 'amount', 'fee', 'status', 'session_id'])
      .where('merchant_id', '=', m.merchantId)
      .orderBy('id')
      .execute();
    expect(payments).toHaveLength(13);
    expect(payments.every((p) => p.status === 'succeeded' && new Decimal(p.amount).equals('29.99'))).toBe(true);
    expect(payments.filter((p) => p.session_id === null)).toHaveLength(12); // merchant-initiated
    // What the merchant earned: its balances, and what the year's daily payouts sent to its bank.
    const earned = [...MERCHANT_BALANCES, 'in_transit', 'paid_out'] as const;
    const entries = await t.database.db
      .selectFrom('ledger_entries')
      .select(['amount'])
      .where('merchant_id', '=', m.merchantId)
      .where('account', 'in', earned)
      .execute();
    const net = payments.reduce((sum, p) => sum.plus(p.amount).minus(p.fee), new Decimal(0));
    expect(entries.reduce((sum, e) => sum.plus(e.amount), new Decimal(0)).toFixed(2)).toBe(net.toFixed(2));
    expect(net.toFixed(2)).toBe(new Decimal('29.99').times(13).minus(new Decimal('1.17').times(13)).toFixed(2)); // fee 2.9% + 0.30 = 1.17

    const events = await deliveredEvents(t.database.db, m.merchantId);
    expect(types(events).filter((x) => x === 'subscription.renewed')).toHaveLength(12);
    expect(types(events).filter((x) => x === 'invoice.paid')).toHaveLength(13);
    expect(types(events).filter((x) => x === 'payment.succeeded')).toHaveLength(13);
    const firstRenewal = types(events).indexOf('subscription.renewed');
    expect(types(events).slice(firstRenewal - 2, firstRenewal + 1)).toEqual(['payment.succeeded', 'invoice.paid', 'subscription.renewed']);
    expect(events.find((e) => e.type === 'subscription.renewed').data.object).toMatchObject({
      status: 'Active',
      reason: 'renewal',
      currentPeriodStart: '2026-02-28T10:00:00.000Z',
    });
    expect(await kit.receipts(customer.email)).toBeGreaterThanOrEqual(12);
  });
});

describe('failure and dunning', () => {
  it('a declined renewal: past_due with every event, two failed retries on the schedule, then the customer pays the open invoice and it is active again', async () => {
    const m = await kit.merchant();
    const plan = await kit.plan(m, { amount: 20 });
    const { subscription } = await kit.subscribe(m, plan.id, { card: '4000000000000341' }); // pays at checkout, declines later
    const periodEnd = Date.parse(subscription.currentPeriodEnd);
    await kit.advanceTo(m, periodEnd);

    const pastDue = await kit.subscription(m, subscription.id);
    expect(pastDue).toMatchObject({ status: 'past_due', nextPaymentAttempt: new Date(periodEnd + DAY * 1000).toISOString() });
    const renewalEvents = types(await deliveredEvents(t.database.db, m.merchantId)).slice(-5);
    expect(renewalEvents).toEqual(['payment.failed', 'invoice.payment_failed', 'subscription.payment_failed', 'subscription.past_due', 'invoice.past_due']);
    const [open] = await kit.invoices(m, subscription.id);
    expect(open).toMatchObject({ status: 'overdue', amount: 20, amountPaid: 0 });

    await kit.advance(m, 3 * DAY); // the retries after 1 and 3 days
    const twice = await kit.subscription(m, subscription.id);
    expect(twice).toMatchObject({ status: 'past_due', nextPaymentAttempt: new Date(periodEnd + 5 * DAY * 1000).toISOString() });
    const failed = (await deliveredEvents(t.database.db, m.merchantId, 'subscription.payment_failed')).map((e) => e.data.object);
    expect(failed).toHaveLength(3);
    expect(failed.slice(1).map((s) => [s.status, s.previousStatus, s.reason])).toEqual([
      ['PastDue', undefined, 'payment_failed'],
      ['PastDue', undefined, 'payment_failed'],
    ]);

    await kit.payInvoice(m, open.id); // a checkout session paying the open invoice with a good card
    const recovered = await kit.subscription(m, subscription.id);
    expect(recovered).toMatchObject({ status: 'active', nextPaymentAttempt: null });
    const activated = (await deliveredEvents(t.database.db, m.merchantId, 'subscription.activated')).at(-1).data.object;
    expect(activated).toMatchObject({ status: 'Active', previousStatus: 'PastDue', reason: 'payment_recovered' });
    await kit.advance(m, 5 * DAY); // no retry is left
    expect(await deliveredEvents(t.database.db, m.merchantId, 'subscription.payment_failed')).toHaveLength(3);
  });

  it('dunning exhausted: four failed retries (1, 3, 5, 7 days), then unpaid, and no new invoice after that', async () => {
    const m = await kit.merchant();
    const plan = await kit.plan(m, { amount: 15 });
    const { subscription } = await kit.subscribe(m, plan.id, { card: '4000000000009987' }); // insufficient funds later
    await kit.advanceTo(m, Date.parse(subscription.currentPeriodEnd) + 8 * DAY * 1000);
    const unpaid = await kit.subscription(m, subscription.id);
    expect(unpaid).toMatchObject({ status: 'unpaid', nextPaymentAttempt: null });
    const events = await deliveredEvents(t.database.db, m.merchantId, 'subscription.');
    expect(types(events).filter((x) => x === 'subscription.payment_failed')).toHaveLength(5);
    expect(events.filter((e) => e.type === 'subscription.unpaid').map((e) => e.data.object)).toEqual([
      expect.objectContaining({ status: 'Unpaid', previousStatus: 'PastDue', reason: 'dunning_exhausted' }),
    ]);
    const failures = await t.database.db
      .selectFrom('payments')
      .select(['failure_code'])
      .where('merchant_id', '=', m.merchantId)
      .where('status', '=', 'failed')
      .execute();
    expect(failures.map((f) => f.failure_code)).toEqual(Array(5).fill('insufficient_funds'));
    await kit.advance(m, 60 * DAY);
    expect(await kit.invoices(m, subscription.id)).toHaveLength(2);
    expect(await deliveredEvents(t.database.db, m.merchantId, 'subscription.')).toHaveLength(events.length);
  });
});

describe('trials', () => {
  it('a trial without a card: at its end the first invoice is raised, nothing can be charged, past_due and into dunning', async () => {
    const m = await kit.merchant();
    const plan = await kit.plan(m, { amount: 12 });
    const { subscription } = await kit.subscribe(m, plan.id, { trialDays: 14 });
    expect(subscription).toMatchObject({ status: 'trialing', hasPaymentMethod: false });
    await kit.advance(m, 14 * DAY);
    const after = await kit.subscription(m, subscription.id);
    expect(after).toMatchObject({ status: 'past_due', currentPeriodStart: subscription.trialEnd });
    const [invoice] = await kit.invoices(m, subscription.id);
    expect(invoice).toMatchObject({ status: 'overdue', amount: 12, periodStart: subscription.trialEnd });
    const events = (await deliveredEvents(t.database.db, m.merchantId, 'subscription.'))
      .slice(-2)
      .map((e) => [e.type, e.data.object.previousStatus, e.data.object.reason]);
    expect(events).toEqual([
      ['subscription.payment_failed', 'Trialing', 'no_payment_method'],
      ['subscription.past_due', 'Trialing', 'no_payment_method'],
    ]);
    expect(await t.database.db.selectFrom('payments').select('id').where('merchant_id', '=', m.merchantId).execute()).toEqual([]);
  });
});

describe('pause and resume', () => {
  it('paused across a renewal date: nothing is billed; resumed after it, a new period starts at the resume and is charged at once', async () => {
    const m = await kit.merchant();
    const plan = await kit.plan(m, { amount: 40 });
    const { subscription } = await kit.subscribe(m, plan.id);
    await kit.advance(m, 10 * DAY);
    const paused = await kit.action(m, subscription.id, 'pause', { reason: 'vacation' });
    expect(paused.status).toBe(200);
    expect(paused.json.data).toMatchObject({ status: 'paused' });
    expect(paused.json.data.pausedAt).not.toBeNull();
    expect((await kit.action(m, subscription.id, 'pause')).json).toMatchObject({ success: false, errorCode: 'subscription_not_pausable' });

    await kit.advance(m, 40 * DAY);
    expect(await kit.invoices(m, subscription.id)).toHaveLength(1);
    const resumedAt = (await kit.clockNow(m)).toISOString();
    const resumed = await kit.action(m, subscription.id, 'resume');
    expect(resumed.json.data).toMatchObject({ status: 'active', pausedAt: null, currentPeriodStart: resumedAt });
    expect(resumed.json.data.currentPeriodEnd.slice(0, 10)).toBe(new Date(Date.parse(resumedAt) + 31 * DAY * 1000).toISOString().slice(0, 10));
    const invoices = await kit.invoices(m, subscription.id);
    expect(invoices).toHaveLength(2);
    expect(invoices[0]).toMatchObject({ status: 'paid', periodStart: resumedAt });
    const events = (await deliveredEvents(t.database.db, m.merchantId, 'subscription.'))
      .slice(-3)
      .map((e) => [e.type, e.data.object.status, e.data.object.previousStatus, e.data.object.reason]);
    expect(events).toEqual([
      ['subscription.paused', 'Paused', 'Active', 'vacation'],
      ['subscription.resumed', 'Active', 'Paused', 'resumed'],
      ['subscription.renewed', 'Active', undefined, 'resumed'],
    ]);
    expect((await kit.action(m, subscription.id, 'resume')).json).toMatchObject({ success: false, errorCode: 'subscription_not_resumable' });
    expect(await deliveredEvents(t.database.db, m.merchantId, 'subscription.')).toHaveLength(5); // created, activated, paused, resumed, renewed: refusals sent nothing
  });

  it('resumed before its period ended: it keeps its period and renews at the end as usual', async () => {
    const m = await kit.merchant();
    const plan = await kit.plan(m);
    const { subscription } = await kit.subscribe(m, plan.id);
    await kit.action(m, subscription.id, 'pause');
    await kit.advance(m, 5 * DAY);
    const resumed = await kit.action(m, subscription.id, 'resume');
    expect(resumed.json.data).toMatchObject({ status: 'active', currentPeriodEnd: subscription.currentPeriodEnd });
    expect(await kit.invoices(m, subscription.id)).toHaveLength(1);
  });
});

describe('cancel', () => {
  it('at period end (the default): still active with cancelAt, one event now and one when it takes effect; no renewal', async () => {
    const m = await kit.merchant();
    const plan = await kit.plan(m);
    const { subscription } = await kit.subscribe(m, plan.id);
    const scheduled = await kit.action(m, subscription.id, 'cancel', { reason: 'too expensive' });
    expect(scheduled.json.data).toMatchObject({ status: 'active', cancelAtPeriodEnd: true, cancelAt: subscription.currentPeriodEnd, canceledAt: null });
    expect((await kit.action(m, subscription.id, 'cancel')).json.data).toEqual(scheduled.json.data); // no change, no event
    await kit.advanceTo(m, Date.parse(subscription.currentPeriodEnd));
    const canceled = await kit.subscription(m, subscription.id);
    expect(canceled).toMatchObject({ status: 'canceled', canceledAt: subscription.currentPeriodEnd });
    expect(await kit.invoices(m, subscription.id)).toHaveLength(1);
    const events = (await deliveredEvents(t.database.db, m.merchantId, 'subscription.cancelled')).map((e) => e.data.object);
    expect(events.map((s) => [s.status, s.previousStatus, s.reason, s.cancelAt])).toEqual([
      ['Active', undefined, 'too expensive', subscription.currentPeriodEnd],
      ['Canceled', 'Active', 'cancel_at_period_end', subscription.currentPeriodEnd],
    ]);
    expect((await kit.action(m, subscription.id, 'cancel', { cancelAtPeriodEnd: false })).status).toBe(200);
    expect(await deliveredEvents(t.database.db, m.merchantId, 'subscription.cancelled')).toHaveLength(2);
  });

  it('at once (cancelAtPeriodEnd false): canceled now, and nothing renews', async () => {
    const m = await kit.merchant();
    const plan = await kit.plan(m);
    const { subscription } = await kit.subscribe(m, plan.id);
    const now = (await kit.clockNow(m)).toISOString();
    const canceled = await kit.action(m, subscription.id, 'cancel', { cancelAtPeriodEnd: false });
    expect(canceled.json.data).toMatchObject({ status: 'canceled', canceledAt: now, cancelAtPeriodEnd: false });
    await kit.advance(m, 40 * DAY);
    expect(await kit.invoices(m, subscription.id)).toHaveLength(1);
    const [event] = (await deliveredEvents(t.database.db, m.merchantId, 'subscription.cancelled')).map((e) => e.data.object);
    expect(event).toMatchObject({ status: 'Canceled', previousStatus: 'Active', canceledAt: now });
  });

  it("another merchant's subscription answers 404 to every change, like a missing one", async () => {
    const m = await kit.merchant();
    const { subscription } = await kit.subscribe(m, (await kit.plan(m)).id);
    const other = await kit.merchant();
    for (const action of ['cancel', 'pause', 'resume'] as const) {
      expect((await kit.action(other, subscription.id, action)).status).toBe(404);
    }
    expect((await kit.subscription(m, subscription.id)).status).toBe('active');
  });
});
