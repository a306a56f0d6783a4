// The billing lifecycle as due work: at a subscription's `next_due_at` it renews (active), converts
// (trialing), retries its open invoice (past due), or a scheduled cancellation takes effect. The
// job queue runs it in real time and the sandbox clock at each instant something falls due, so one
// advance of a year runs every renewal of that year, in order.
import { Decimal } from 'decimal.js';
import type { Kysely } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { SubscriptionDetails, SubscriptionRow, SubscriptionStatus } from './subscription.tables.js';
import type { Clock } from '../../shared/clock.js';
import { type DueScope, GLOBAL_SCOPE, scopedClock } from '../../shared/due-scope.js';
import { tenantOf } from '../../shared/tenant.js';
import { addDays } from '../../shared/time.js';
import { billFinalUsage, billPeriod, chargeInvoice, type PeriodBill, periodEndAfter } from './period-billing.js';
import { subscriptionEvent } from './subscription-events.js';
import { findDueSubscriptions, findSubscription, lockSubscription, nextSubscriptionDue, updateSubscription } from './subscription.repository.js';
import { activateOnFirstPayment } from './pending-subscription.js';

/**
 * Dunning: after a failed charge, the open invoice is retried this many days after its first
 * failure (its due date); when the last retry fails the subscription becomes `unpaid`.
 */
export const DUNNING_RETRY_DAYS = [1, 3, 5, 7] as const;

/** The credit left after a bill used some of it. */
export const creditLeft = (s: SubscriptionRow, bill: Pick<PeriodBill, 'creditUsed'>) => new Decimal(s.credit_balance).minus(bill.creditUsed).toFixed();

/** A bill that failed: past due, dunning from the first retry, `subscription.payment_failed` then `subscription.past_due`. */
export async function startDunning(
  trx: Trx,
  clock: Clock,
  s: SubscriptionRow,
  bill: PeriodBill,
  changes: Partial<SubscriptionRow>,
  previousStatus: SubscriptionStatus,
): Promise<SubscriptionDetails> {
  const now = clock.now();
  // A bill that failed always has its invoice (nothing to bill is paid).
  const invoice = bill.invoice!;
  const next = await updateSubscription(
    trx,
    s,
    {
      ...changes,
      status: 'past_due',
      dunning_attempts: 0,
      open_invoice_id: invoice.id,
      next_retry_at: addDays(invoice.due_date ?? now, DUNNING_RETRY_DAYS[0]),
      credit_balance: creditLeft(s, bill),
    },
    now,
  );
  const reason = bill.failure?.code === 'no_payment_method' ? 'no_payment_method' : 'payment_failed';
  await subscriptionEvent(trx, clock, 'subscription.payment_failed', next, { previousStatus, reason, paymentId: bill.payment?.id ?? null });
  await subscriptionEvent(trx, clock, 'subscription.past_due', next, { previousStatus, reason, paymentId: bill.payment?.id ?? null });
  return next;
}

/**
 * An active subscription's period ends: the next one starts, its invoice is raised and charged
 * (licensed items for the new period, metered items for the usage of the period that ended).
 */
async function renew(trx: Trx, clock: Clock, s: SubscriptionRow): Promise<SubscriptionDetails> {
  const start = s.current_period_end;
  const period = { current_period_start: start, current_period_end: periodEndAfter(s, start) };
  const details = (await findSubscription(trx, tenantOf(s), s.id))!;
  const usage = { start: s.current_period_start, end: start };
  const bill = await billPeriod(trx, clock, { ...details, ...period }, { start, end: period.current_period_end }, usage);
  if (!bill.paid) return startDunning(trx, clock, s, bill, period, s.status);
  const renewed = await updateSubscription(trx, s, { ...period, credit_balance: creditLeft(s, bill) }, clock.now());
  await subscriptionEvent(trx, clock, 'subscription.renewed', renewed, { reason: 'renewal', paymentId: bill.payment?.id ?? null });
  return renewed;
}

/** A trial ends: its first paid period starts, charged to the card the customer added in the portal (past due without one). */
async function convertTrial(trx: Trx, clock: Clock, s: SubscriptionRow): Promise<SubscriptionDetails> {
  const start = s.current_period_end;
  const anchored = { ...s, billing_anchor: start };
  const period = { billing_anchor: start, current_period_start: start, current_period_end: periodEndAfter(anchored, start) };
  const details = (await findSubscription(trx, tenantOf(s), s.id))!;
  const bill = await billPeriod(trx, clock, { ...details, ...period }, { start, end: period.current_period_end });
  if (!bill.paid) return startDunning(trx, clock, s, bill, period, 'trialing');
  const active = await updateSubscription(trx, s, { ...period, status: 'active', credit_balance: creditLeft(s, bill) }, clock.now());
  await subscriptionEvent(trx, clock, 'subscription.activated', active, {
    previousStatus: 'trialing',
    reason: 'trial_ended',
    paymentId: bill.payment?.id ?? null,
  });
  return active;
}

/** Back to active after the open invoice was paid (a retry, or the customer paid it): `subscription.activated`. */
export async function recover(trx: Trx, clock: Clock, s: SubscriptionRow, paymentId: number | null): Promise<SubscriptionDetails> {
  const active = await updateSubscription(trx, s, { status: 'active', dunning_attempts: 0, next_retry_at: null, open_invoice_id: null }, clock.now());
  await subscriptionEvent(trx, clock, 'subscription.activated', active, { previousStatus: s.status, reason: 'payment_recovered', paymentId });
  return active;
}

/** A dunning retry: the open invoice is charged again; paid makes it active, the last failure makes it unpaid. */
async function retry(trx: Trx, clock: Clock, s: SubscriptionRow): Promise<SubscriptionDetails> {
  const bill = await chargeInvoice(trx, clock, s, s.open_invoice_id!);
  if (bill.paid) return recover(trx, clock, s, bill.payment?.id ?? null);
  const attempts = s.dunning_attempts + 1;
  const exhausted = attempts >= DUNNING_RETRY_DAYS.length;
  const nextRetry = exhausted ? null : addDays(bill.invoice.due_date ?? clock.now(), DUNNING_RETRY_DAYS[attempts]!);
  const reason = bill.failure?.code === 'no_payment_method' ? 'no_payment_method' : 'payment_failed';
  const failed = await updateSubscription(
    trx,
    s,
    { dunning_attempts: attempts, next_retry_at: nextRetry, status: exhausted ? 'unpaid' : 'past_due' },
    clock.now(),
  );
  await subscriptionEvent(trx, clock, 'subscription.payment_failed', failed, { previousStatus: s.status, reason, paymentId: bill.payment?.id ?? null });
  if (exhausted) await subscriptionEvent(trx, clock, 'subscription.unpaid', failed, { previousStatus: s.status, reason: 'dunning_exhausted' });
  return failed;
}

/** A cancellation scheduled for the period end takes effect: `canceled`, and `subscription.cancelled` again; the last usage is billed. */
async function endScheduled(trx: Trx, clock: Clock, s: SubscriptionRow): Promise<SubscriptionDetails> {
  await billFinalUsage(trx, clock, (await findSubscription(trx, tenantOf(s), s.id))!, s.cancel_at ?? clock.now());
  const canceled = await updateSubscription(trx, s, { status: 'canceled', canceled_at: s.cancel_at, next_retry_at: null, paused_at: null }, clock.now());
  await subscriptionEvent(trx, clock, 'subscription.cancelled', canceled, { previousStatus: s.status, reason: 'cancel_at_period_end' });
  return canceled;
}

/** Runs a subscription's due work if it is still due (it is locked: another process may have run it). */
async function runOne(trx: Trx, clock: Clock, tenantRow: Pick<SubscriptionRow, 'id' | 'merchant_id' | 'livemode'>): Promise<boolean> {
  const s = await lockSubscription(trx, tenantOf(tenantRow), tenantRow.id);
  const now = clock.now();
  if (!s || s.next_due_at === null || s.next_due_at.getTime() > now.getTime()) return false;
  if (s.cancel_at !== null && s.cancel_at.getTime() <= now.getTime()) await endScheduled(trx, clock, s);
  else if (s.status === 'active') await renew(trx, clock, s);
  else if (s.status === 'trialing') await convertTrial(trx, clock, s);
  else if (s.status === 'past_due') await retry(trx, clock, s);
  else return false;
  return true;
}

/** Due work: every subscription of the scope whose next due work has come, earliest first, each in its own transaction. */
export async function runDueSubscriptions(db: Kysely<Database>, clock: Clock, scope: DueScope = GLOBAL_SCOPE, batch = 100): Promise<number> {
  const scoped = scopedClock(clock, scope);
  let ran = 0;
  for (const due of await findDueSubscriptions(db, scope, scoped.now(), batch)) {
    if (await db.transaction().execute((trx) => runOne(trx, scoped, due))) ran++;
  }
  return ran;
}

/** When the scope's next subscription work falls due, after `after` (for the sandbox clock). */
export const nextSubscriptionWork = (db: Db, scope: DueScope, after: Date): Promise<Date | null> => nextSubscriptionDue(db, scope, after);

/**
 * A subscription's open invoice was paid another way (a checkout session paying it, the invoice
 * page): a past-due or unpaid subscription is active again, a pending one (a payment link's)
 * starts. Call it where the invoice is paid.
 */
export async function subscriptionInvoicePaid(
  trx: Trx,
  clock: Clock,
  invoice: { id: number; subscription_id: number | null; merchant_id: number; livemode: boolean; status: string },
  paymentId: number,
): Promise<void> {
  if (invoice.subscription_id === null || invoice.status !== 'paid') return;
  const s = await lockSubscription(trx, tenantOf(invoice), invoice.subscription_id);
  if (s && (s.status === 'past_due' || s.status === 'unpaid') && s.open_invoice_id === invoice.id) await recover(trx, clock, s, paymentId);
  // A subscription started from a payment link waits for its first invoice.
  else if (s && s.status === 'pending' && s.open_invoice_id === invoice.id) await activateOnFirstPayment(trx, clock, s, paymentId);
}
