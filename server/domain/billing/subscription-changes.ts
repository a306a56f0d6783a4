// Pause, resume and cancel, by the status table of the document: each in one transaction on the
// locked subscription, with one `subscription.*` event per change. A refused or no-change request
// sends nothing. The API and the customer portal both call these.
import type { Kysely } from 'kysely';
import type { Trx } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { SubscriptionDetails, SubscriptionRow } from './subscription.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { type Tenant, tenantOf } from '../../shared/tenant.js';
import { billFinalUsage, billPeriod, periodEndAfter, type UsageWindow } from './period-billing.js';
import { creditLeft, DUNNING_RETRY_DAYS, startDunning } from './renewal.js';
import { subscriptionEvent } from './subscription-events.js';
import { findSubscription, lockSubscription, updateSubscription } from './subscription.repository.js';

/** The tenant's subscription, locked; 404 for anyone else's. */
async function locked(trx: Trx, tenant: Tenant, id: number): Promise<SubscriptionRow> {
  const s = await lockSubscription(trx, tenant, id);
  if (!s) throw new AppError('resource_not_found', { param: 'id', message: `No such subscription: ${id}.` });
  return s;
}

/**
 * Pauses a subscription that is neither paused nor canceled: `paused`, `pausedAt`,
 * `subscription.paused`. Nothing is billed or retried while paused; a scheduled cancellation still
 * takes effect. A paused or canceled one answers 400 `subscription_not_pausable`.
 */
export async function pauseSubscription(
  db: Kysely<Database>,
  clock: Clock,
  tenant: Tenant,
  id: number,
  input: { reason?: string | undefined },
): Promise<SubscriptionDetails> {
  return db.transaction().execute(async (trx) => {
    const s = await locked(trx, tenant, id);
    if (s.status === 'paused' || s.status === 'canceled') {
      throw new AppError('subscription_not_pausable', { message: `This subscription is ${s.status} and cannot be paused.` });
    }
    const paused = await updateSubscription(trx, s, { status: 'paused', paused_at: clock.now() }, clock.now());
    await subscriptionEvent(trx, clock, 'subscription.paused', paused, { previousStatus: s.status, reason: input.reason ?? null });
    return paused;
  });
}

/** What a subscription resumes as, before anything is billed: trialing in a trial that has not ended, past due with an open invoice, otherwise active. */
function resumedStatus(s: SubscriptionRow, now: Date): SubscriptionRow['status'] {
  if (s.open_invoice_id !== null) return 'past_due';
  if (s.trial_end !== null && s.current_period_end.getTime() === s.trial_end.getTime() && s.trial_end.getTime() > now.getTime()) return 'trialing';
  return 'active';
}

/**
 * Resumes a paused subscription: `subscription.resumed`. Till's design: when its current period
 * ended during the pause, a new period starts now (the billing anchor moves to the resume) and its
 * invoice is raised and charged to the card on file (a failed charge makes it past due, as at a
 * renewal). Otherwise it keeps its period. A past-due one resumes past due and its open invoice is
 * retried a day later. Not paused: 400 `subscription_not_resumable`.
 */
export async function resumeSubscription(db: Kysely<Database>, clock: Clock, tenant: Tenant, id: number): Promise<SubscriptionDetails> {
  return db.transaction().execute(async (trx) => {
    const s = await locked(trx, tenant, id);
    if (s.status !== 'paused')
      throw new AppError('subscription_not_resumable', { message: `This subscription is ${s.status}; only a paused subscription can be resumed.` });
    const now = clock.now();
    const status = resumedStatus(s, now);
    const ended = status !== 'past_due' && s.current_period_end.getTime() <= now.getTime();
    const period = ended ? { billing_anchor: now, current_period_start: now, current_period_end: periodEndAfter({ ...s, billing_anchor: now }, now) } : {};
    const retryAt = status === 'past_due' ? new Date(now.getTime() + DUNNING_RETRY_DAYS[0] * 86_400_000) : null;
    const resumed = await updateSubscription(trx, s, { status: ended ? 'active' : status, paused_at: null, next_retry_at: retryAt, ...period }, now);
    await subscriptionEvent(trx, clock, 'subscription.resumed', resumed, { previousStatus: 'paused', reason: 'resumed' });
    return ended ? billResumedPeriod(trx, clock, resumed, { start: s.current_period_start, end: now }) : resumed;
  });
}

/** The first period after a resume is billed at once (with the usage recorded before the pause): `subscription.renewed` when paid, dunning when not. */
async function billResumedPeriod(trx: Trx, clock: Clock, s: SubscriptionDetails, usage: UsageWindow): Promise<SubscriptionDetails> {
  const bill = await billPeriod(trx, clock, s, { start: s.current_period_start, end: s.current_period_end }, usage);
  const row = (await lockSubscription(trx, tenantOf(s), s.id))!;
  if (!bill.paid) return startDunning(trx, clock, row, bill, {}, 'active');
  const renewed = await updateSubscription(trx, row, { credit_balance: creditLeft(row, bill) }, clock.now());
  await subscriptionEvent(trx, clock, 'subscription.renewed', renewed, { reason: 'resumed', paymentId: bill.payment?.id ?? null });
  return renewed;
}

/**
 * Cancels a subscription that is not canceled. `cancelAtPeriodEnd` true (the default): it stays as
 * it is until its current period ends, with `cancelAtPeriodEnd` and `cancelAt` set, and
 * `subscription.cancelled` is sent now and again when it takes effect. False: `canceled` at once.
 * Canceling a canceled subscription, or scheduling one already scheduled, changes nothing and
 * sends nothing. A subscription whose period already ended (unpaid, or paused past it) is canceled
 * at once either way.
 */
export async function cancelSubscription(
  db: Kysely<Database>,
  clock: Clock,
  tenant: Tenant,
  id: number,
  input: { cancelAtPeriodEnd?: boolean | undefined; reason?: string | undefined },
): Promise<SubscriptionDetails> {
  return db.transaction().execute(async (trx) => {
    const s = await locked(trx, tenant, id);
    const now = clock.now();
    if (s.status === 'canceled') return (await findSubscription(trx, tenant, id))!;
    const atPeriodEnd = (input.cancelAtPeriodEnd ?? true) && s.current_period_end.getTime() > now.getTime();
    if (atPeriodEnd && s.cancel_at_period_end) return (await findSubscription(trx, tenant, id))!;
    const changes = atPeriodEnd
      ? { cancel_at_period_end: true, cancel_at: s.current_period_end }
      : { status: 'canceled' as const, canceled_at: now, cancel_at_period_end: false, cancel_at: null, paused_at: null, next_retry_at: null };
    if (!atPeriodEnd) await billFinalUsage(trx, clock, (await findSubscription(trx, tenant, id))!, now);
    const canceled = await updateSubscription(trx, s, changes, now);
    await subscriptionEvent(trx, clock, 'subscription.cancelled', canceled, { previousStatus: s.status, reason: input.reason ?? null });
    return canceled;
  });
}
