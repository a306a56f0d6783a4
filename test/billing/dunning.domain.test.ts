// The dunning schedule, called directly (`runDueSubscriptions`, the due work of subscriptions) on
// subscriptions stored as checkout starts them. The document's rules ("Subscription status"): when a
// payment attempt fails the subscription is `past_due`, with `subscription.payment_failed` per
// dunning attempt and `subscription.past_due`; when dunning is exhausted it is `unpaid`, with
// `subscription.unpaid`; recovery makes it `active` again with `subscription.activated`. The schedule
// itself (Till's design, DUNNING_RETRY_DAYS): the open invoice is retried 1, 3, 5 and 7 days after its
// due date, and the fourth failed retry exhausts dunning.
import { beforeEach, describe, expect, it } from 'vitest';
import { addPortalCard } from '../../server/domain/billing/portal-card.js';
import { createPortalSession } from '../../server/domain/billing/portal-session.js';
import { runDueSubscriptions } from '../../server/domain/billing/renewal.js';
import { ManualClock } from '../../server/shared/clock.js';
import { CARD_YEAR } from '../support/billing.js';
import { useBilling } from '../support/subscriptions.js';

// A monthly subscription paid on 31 January renews, and here fails, on 28 February.
const START = new Date('2026-01-31T10:00:00Z');
const RENEWAL = new Date('2026-02-28T10:00:00Z');
const DAY_MS = 86_400_000;
const DECLINES_LATER = '4000000000000341'; // pays at checkout, declines later
const clock = new ManualClock(START);
const billing = useBilling(clock);
beforeEach(() => clock.set(START));

const daysAfter = (from: Date, days: number, ms = 0) => new Date(from.getTime() + days * DAY_MS + ms);
/** Moves the clock to `at` and runs the subscriptions' due work there (every subscription of the file's database). */
async function runAt(at: Date) {
  clock.set(at);
  await runDueSubscriptions(billing.db, clock);
}
/** A subscription whose renewal on 28 February failed. */
async function failedRenewal() {
  const s = await billing.subscribe(await billing.plan({ amount: '20.00' }), { card: DECLINES_LATER });
  await runAt(RENEWAL);
  return s;
}
const lastEvents = async (id: number, n: number) =>
  (await billing.events(id)).slice(-n).map((e) => [e.type, e.data.object.status, e.data.object.previousStatus, e.data.object.reason]);

describe('a payment attempt that fails', () => {
  it("makes the subscription past_due with subscription.payment_failed then subscription.past_due, leaves its invoice open, and schedules the first retry a day after the invoice's due date", async () => {
    const s = await failedRenewal();
    const [, open] = await billing.invoices(s.id);
    expect(open).toMatchObject({ due_date: RENEWAL, period_start: RENEWAL, paid_at: null });
    expect(await billing.row(s.id)).toMatchObject({
      status: 'past_due',
      open_invoice_id: open!.id,
      dunning_attempts: 0,
      next_retry_at: daysAfter(RENEWAL, 1),
      next_due_at: daysAfter(RENEWAL, 1),
      current_period_start: RENEWAL,
      current_period_end: new Date('2026-03-31T10:00:00Z'),
    });
    expect((await billing.payments(s.id)).map((p) => [p.status, p.failure_code])).toEqual([
      ['succeeded', null],
      ['failed', 'card_declined'],
    ]);
    expect(await lastEvents(s.id, 2)).toEqual([
      ['subscription.payment_failed', 'PastDue', 'Active', 'payment_failed'],
      ['subscription.past_due', 'PastDue', 'Active', 'payment_failed'],
    ]);
  });

  it('at the end of a trial with no card on file does the same, for the reason no_payment_method, and charges nothing', async () => {
    const trial = await billing.subscribe(await billing.plan({ amount: '12.00' }), { trialDays: 14 });
    const trialEnd = daysAfter(START, 14);
    await runAt(trialEnd);
    expect(await billing.row(trial.id)).toMatchObject({ status: 'past_due', next_retry_at: daysAfter(trialEnd, 1), current_period_start: trialEnd });
    expect(await billing.payments(trial.id)).toEqual([]);
    expect(await lastEvents(trial.id, 2)).toEqual([
      ['subscription.payment_failed', 'PastDue', 'Trialing', 'no_payment_method'],
      ['subscription.past_due', 'PastDue', 'Trialing', 'no_payment_method'],
    ]);
  });
});

describe('dunning', () => {
  it('retries the open invoice 1, 3, 5 and 7 days after its due date and never before, one subscription.payment_failed per attempt; then, dunning exhausted, unpaid with subscription.unpaid, and nothing more is due', async () => {
    const s = await failedRenewal();
    const schedule = [1, 3, 5, 7];
    for (const [i, day] of schedule.entries()) {
      await runAt(daysAfter(RENEWAL, day, -1000));
      expect((await billing.row(s.id)).dunning_attempts, `a second before the retry of day ${day}`).toBe(i);
      await runAt(daysAfter(RENEWAL, day));
      const last = i === schedule.length - 1;
      expect(await billing.row(s.id), `the retry of day ${day}`).toMatchObject({
        dunning_attempts: i + 1,
        status: last ? 'unpaid' : 'past_due',
        next_retry_at: last ? null : daysAfter(RENEWAL, schedule[i + 1]!),
      });
    }
    const failed = (await billing.payments(s.id)).filter((p) => p.status === 'failed');
    expect(failed.map((p) => p.failure_code)).toEqual(Array(5).fill('card_declined')); // the renewal and four retries
    const events = await billing.events(s.id);
    expect(events.filter((e) => e.type === 'subscription.payment_failed')).toHaveLength(5);
    expect(await lastEvents(s.id, 2)).toEqual([
      ['subscription.payment_failed', 'Unpaid', 'PastDue', 'payment_failed'],
      ['subscription.unpaid', 'Unpaid', 'PastDue', 'dunning_exhausted'],
    ]);

    expect((await billing.row(s.id)).next_due_at).toBeNull();
    await runAt(daysAfter(RENEWAL, 60));
    expect(await billing.invoices(s.id)).toHaveLength(2);
    expect(await billing.events(s.id)).toHaveLength(events.length);
  });

  it('ends when a retry is paid (recovery): active again with subscription.activated, the invoice paid, no retry left', async () => {
    const s = await failedRenewal();
    // The customer adds a good card in the portal: it becomes the card of their subscriptions.
    const { session } = await createPortalSession(billing.db, clock, billing.tenant, { clientId: s.customer_id });
    const kept = await addPortalCard(billing.db, { session, clock }, { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: CARD_YEAR, cvc: '123' });
    expect(kept.kind).toBe('kept');
    await runAt(daysAfter(RENEWAL, 1));
    const [, invoice] = await billing.invoices(s.id);
    expect(invoice).toMatchObject({ status: 'paid' });
    expect(await billing.row(s.id)).toMatchObject({
      status: 'active',
      dunning_attempts: 0,
      next_retry_at: null,
      open_invoice_id: null,
      next_due_at: new Date('2026-03-31T10:00:00Z'),
    });
    expect(await lastEvents(s.id, 1)).toEqual([['subscription.activated', 'Active', 'PastDue', 'payment_recovered']]);
  });
});
