// Payouts: the merchant's available (settled) money goes to its bank account in batches on the
// clock. The schedule: every UTC day, each tenant's available balance in each currency, as it stood
// at 00:00 UTC (and still is), is paid out when it reaches PAYOUT_MINIMUM: one scheduled batch per
// tenant, currency and day, holding one entry, a bank transfer that arrives PAYOUT_TRANSIT_HOURS
// later. Money that became available during a day (a settlement, a failed payout's return) waits
// for the next day's payout. The money moves only through the ledger: available → in transit →
// paid out, or back to available when the payout fails.
import { Decimal } from 'decimal.js';
import type { Db, Trx } from '../../db/database.js';
import type { PayoutEntryRow } from './payout.tables.js';
import type { Clock } from '../../shared/clock.js';
import { randomToken } from '../../shared/crypto.js';
import { type DueScope, GLOBAL_SCOPE, scopedClock } from '../../shared/due-scope.js';
import { AppError } from '../../shared/errors.js';
import { minorUnits } from '../../shared/money.js';
import { type Tenant, tenantOf } from '../../shared/tenant.js';
import { writeEvent } from '../events/event.service.js';
import { availableBalance, availableBalances, ensureAvailable, InsufficientBalanceError, post, type TenantBalance } from '../ledger/ledger.service.js';
import * as repo from './payout.repository.js';

/** The least available balance (in units of its currency) that a scheduled payout pays out. */
export const PAYOUT_MINIMUM = '1';
/** How long a payout is in transit to the bank before it arrives. */
export const PAYOUT_TRANSIT_HOURS = 24;
/** What a failed payout says when the test helper gave no reason. */
export const DEFAULT_FAILURE_REASON = 'The bank rejected the payout (test helper).';

const DAY_MS = 86_400_000;
const utcDay = (at: Date): string => at.toISOString().slice(0, 10);
const nextMidnight = (after: Date): Date => new Date((Math.floor(after.getTime() / DAY_MS) + 1) * DAY_MS);
const dayStart = (at: Date): Date => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
const keyOf = (b: TenantBalance): string => `${b.merchant_id}:${b.livemode}:${b.currency}`;

/**
 * Pays out one tenant's available balance in a currency as today's scheduled batch: what was
 * available at 00:00 UTC and still is, to the minor unit. Undefined when that is short of the
 * minimum or today's batch exists.
 */
export async function payOut(trx: Trx, clock: Clock, tenant: Tenant, currency: string): Promise<PayoutEntryRow | undefined> {
  const now = clock.now();
  let available: Decimal;
  try {
    available = await ensureAvailable(trx, tenant, currency, new Decimal(PAYOUT_MINIMUM)); // locks the balance
  } catch (err) {
    if (err instanceof InsufficientBalanceError) return undefined;
    throw err;
  }
  const atDayStart = await availableBalance(trx, tenant, currency, dayStart(now));
  const amount = Decimal.min(available, atDayStart).toDecimalPlaces(minorUnits(currency), Decimal.ROUND_DOWN);
  if (amount.lessThan(PAYOUT_MINIMUM)) return undefined;
  const batch = await repo.insertScheduledBatch(trx, tenant, currency, utcDay(now), now);
  if (!batch) return undefined;
  const failure = tenant.livemode ? undefined : await repo.takeTestFailure(trx, tenant.merchantId);
  const entry = await repo.insertEntry(trx, {
    id: `po_${randomToken(24)}`,
    batch_id: batch.id,
    merchant_id: tenant.merchantId,
    livemode: tenant.livemode,
    currency,
    amount: amount.toFixed(),
    transfer_type: 'BankTransfer',
    destination_type: 'bank_account',
    destination_last4: null,
    status: 'processing',
    fail_on_arrival: failure !== undefined,
    failure_reason: failure ?? null,
    arrival_at: new Date(now.getTime() + PAYOUT_TRANSIT_HOURS * 3600_000),
    created_at: now,
    updated_at: now,
  });
  await post(trx, { tenant, paymentId: null, payoutId: entry.id, currency, at: now }, [{ type: 'payout', amount: entry.amount }]);
  return entry;
}

/** The payout schedule's step: pays out every balance of the scope that is due today; answers how many payouts it made. */
export async function makeDuePayouts(db: Db, clock: Clock, scope: DueScope = GLOBAL_SCOPE, batch = 200): Promise<number> {
  const scoped = scopedClock(clock, scope);
  const today = utcDay(scoped.now());
  const made = await repo.scheduledKeys(db, scope, today);
  const due = (await availableBalances(db, scope, PAYOUT_MINIMUM, dayStart(scoped.now()), 10_000)).filter((b) => !made.has(keyOf(b))).slice(0, batch);
  let count = 0;
  for (const balance of due) {
    if (await db.transaction().execute((trx) => payOut(trx, scoped, tenantOf(balance), balance.currency))) count++;
  }
  return count;
}

/** A payout arrives at the bank (or fails there when the test helper armed it): ledger, statuses, event. */
async function arrive(trx: Trx, clock: Clock, entry: PayoutEntryRow): Promise<PayoutEntryRow> {
  if (entry.fail_on_arrival) return failEntry(trx, clock, entry, entry.failure_reason ?? DEFAULT_FAILURE_REASON);
  const tenant = tenantOf(entry);
  const now = clock.now();
  await post(trx, { tenant, paymentId: null, payoutId: entry.id, currency: entry.currency, at: now }, [{ type: 'payout_arrival', amount: entry.amount }]);
  const completed = await repo.updateEntry(trx, tenant, entry.id, { status: 'completed', completed_at: now, updated_at: now });
  await repo.refreshBatchStatus(trx, tenant, entry.batch_id, now);
  await writeEvent(trx, clock, { tenant, type: 'payout.completed', subject: { kind: 'payout', payout: completed } });
  return completed;
}

/** A payout fails (in transit) or is returned by the bank (arrived): its money is available again; `payout.failed`. */
async function failEntry(trx: Trx, clock: Clock, entry: PayoutEntryRow, reason: string): Promise<PayoutEntryRow> {
  const tenant = tenantOf(entry);
  const now = clock.now();
  const from = entry.status === 'completed' ? 'paid_out' : 'in_transit';
  await post(trx, { tenant, paymentId: null, payoutId: entry.id, currency: entry.currency, at: now }, [{ type: 'payout_return', amount: entry.amount, from }]);
  const failed = await repo.updateEntry(trx, tenant, entry.id, { status: 'failed', failure_reason: reason, failed_at: now, updated_at: now });
  await repo.refreshBatchStatus(trx, tenant, entry.batch_id, now);
  await writeEvent(trx, clock, { tenant, type: 'payout.failed', subject: { kind: 'payout', payout: failed } });
  return failed;
}

/** The arrivals step: every payout of the scope in transit whose arrival time has come arrives (or fails). */
export async function completeDueArrivals(db: Db, clock: Clock, scope: DueScope = GLOBAL_SCOPE, batch = 200): Promise<number> {
  const scoped = scopedClock(clock, scope);
  let count = 0;
  for (const due of await repo.findDueArrivals(db, scope, scoped.now(), batch)) {
    const done = await db.transaction().execute(async (trx) => {
      const entry = await repo.findEntry(trx, tenantOf(due), due.id, { lock: true });
      return entry?.status === 'processing' ? arrive(trx, scoped, entry) : undefined;
    });
    if (done) count++;
  }
  return count;
}

/** When the scope's next payout work falls due after `after`: an arrival, or the next day's payouts while a balance waits for them. */
export async function nextPayoutWork(db: Db, scope: DueScope, after: Date): Promise<Date | null> {
  const arrival = await repo.nextArrival(db, scope, after);
  const waiting = (await availableBalances(db, scope, PAYOUT_MINIMUM, nextMidnight(after), 1)).length > 0;
  const times = [arrival, waiting ? nextMidnight(after) : null].filter((t): t is Date => t !== null);
  return times.length === 0 ? null : new Date(Math.min(...times.map((t) => t.getTime())));
}

/** The test helper: a test payout fails now, in transit or arrived (the bank returns it). */
export async function failPayoutNow(db: Db, clock: Clock, tenant: Tenant, payoutId: string, reason?: string): Promise<PayoutEntryRow> {
  return db.transaction().execute(async (trx) => {
    const entry = await repo.findEntry(trx, tenant, payoutId, { lock: true });
    if (!entry) throw new AppError('resource_not_found', { param: 'id', message: `No payout ${payoutId}.` });
    if (entry.status === 'failed') throw new AppError('invalid_state', { message: 'This payout has already failed.' });
    return failEntry(trx, clock, entry, reason ?? DEFAULT_FAILURE_REASON);
  });
}

/** The test helper: the next payout Till makes for the merchant's test mode fails when it would arrive. */
export async function failNextPayout(db: Db, clock: Clock, tenant: Tenant, reason?: string): Promise<{ failureReason: string; armedAt: Date }> {
  const failureReason = reason ?? DEFAULT_FAILURE_REASON;
  const armedAt = clock.now();
  await db.transaction().execute((trx) => repo.armTestFailure(trx, tenant.merchantId, failureReason, armedAt));
  return { failureReason, armedAt };
}

/** A page of the tenant's payouts, newest first (`after` a payout id), one more than `limit`. */
export const listPayoutEntries = (db: Db, tenant: Tenant, page: { limit: number; after?: string | undefined }): Promise<PayoutEntryRow[]> =>
  repo.findEntries(db, tenant, page);

/** One of the tenant's payouts. */
export async function getPayoutEntry(db: Db, tenant: Tenant, id: string): Promise<PayoutEntryRow> {
  const entry = await repo.findEntry(db, tenant, id);
  if (!entry) throw new AppError('resource_not_found', { param: 'id', message: 'There is no such payout.' });
  return entry;
}
