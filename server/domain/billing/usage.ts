// Usage of metered subscription items (items on a `Usage` plan): recorded by the merchant's server
// through either interface, summed per period and billed at the period's end (period-billing.ts).
// A report is recorded once: a repeat with the caller's `usageId` answers the first record, and
// the house Idempotency-Key replays whole requests.
import type { Kysely } from 'kysely';
import type { Trx } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { SubscriptionDetails, SubscriptionRow } from './subscription.tables.js';
import type { UsageRecordRow } from './usage.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import type { Tenant } from '../../shared/tenant.js';
import { findItem, findSubscription, lockSubscription } from './subscription.repository.js';
import { findUsageRecordByUsageId, insertUsageRecord, unbilledUsageOf } from './usage.repository.js';

/** A usage report: whole units, when they were used (now by default), and the caller's own id for it. */
export interface UsageReport {
  quantity: number;
  timestamp?: Date | undefined;
  usageId?: string | undefined;
}

/** A report from a request: its timestamp is ISO 8601 text (validated as date-time at the edge). */
export const usageReport = (input: { quantity: number; timestamp?: string | undefined; usageId?: string | undefined }): UsageReport => ({
  quantity: input.quantity,
  timestamp: input.timestamp === undefined ? undefined : new Date(input.timestamp),
  usageId: input.usageId,
});

/** A recorded report, with its subscription and the units of its item not billed yet (the current period's so far). */
export interface RecordedUsage {
  record: UsageRecordRow;
  subscription: SubscriptionDetails;
  /** Units recorded for the item and not billed yet, this record included. */
  periodUsage: string;
  /** False when `usageId` named a record kept before: that one is answered, nothing is added. */
  created: boolean;
}

/** Statuses usage can be recorded in: the service runs while active, and while its last invoice is being collected. */
const RECORDING = ['active', 'past_due'];

const notFound = (what: string, id: number): never => {
  throw new AppError('resource_not_found', { param: 'id', message: `No such ${what}: ${id}.` });
};

/** The report's timestamp, checked against the subscription's current period: from its start up to now. */
function usageTime(s: SubscriptionRow, report: UsageReport, now: Date): Date {
  const at = report.timestamp ?? now;
  if (at.getTime() > now.getTime()) throw new AppError('validation_error', { param: 'timestamp', message: 'timestamp cannot be in the future.' });
  if (at.getTime() < s.current_period_start.getTime()) {
    throw new AppError('validation_error', {
      param: 'timestamp',
      message: `timestamp must be in the current period (from ${s.current_period_start.toISOString()}): earlier periods are billed already.`,
    });
  }
  return at;
}

/** A repeat of a report by its usageId: the same report answers the first record; a different one is a conflict. */
function repeatOf(existing: UsageRecordRow, report: UsageReport): UsageRecordRow {
  const sameTime = report.timestamp === undefined || report.timestamp.getTime() === existing.recorded_at.getTime();
  if (existing.quantity !== report.quantity || !sameTime) {
    throw new AppError('idempotency_key_reused', {
      param: 'usageId',
      message: `usageId ${existing.usage_id} was recorded already with another quantity or timestamp. Use a new usageId for new usage.`,
    });
  }
  return existing;
}

async function recordOnItem(trx: Trx, clock: Clock, tenant: Tenant, s: SubscriptionRow, itemId: number, report: UsageReport): Promise<RecordedUsage> {
  const existing = report.usageId === undefined ? undefined : await findUsageRecordByUsageId(trx, tenant, itemId, report.usageId);
  const now = clock.now();
  let record: UsageRecordRow;
  if (existing) record = repeatOf(existing, report);
  else {
    if (!RECORDING.includes(s.status)) {
      throw new AppError('invalid_state', { message: `This subscription is ${s.status}; usage can be recorded while it is active or past due.` });
    }
    const recordedAt = usageTime(s, report, now);
    record = await insertUsageRecord(trx, {
      ...{ merchant_id: tenant.merchantId, livemode: tenant.livemode, subscription_id: s.id, subscription_item_id: itemId },
      ...{ quantity: report.quantity, usage_id: report.usageId ?? null, recorded_at: recordedAt, invoice_id: null, created_at: now },
    });
  }
  const subscription = (await findSubscription(trx, tenant, s.id))!;
  const periodUsage = (await unbilledUsageOf(trx, tenant, [s.id])).get(itemId) ?? '0';
  return { record, subscription, periodUsage, created: existing === undefined };
}

/** Records usage of a subscription item; 404 for anyone else's, 400 `subscription_item_not_metered` for an item not on a Usage plan. */
export async function recordItemUsage(db: Kysely<Database>, clock: Clock, tenant: Tenant, itemId: number, report: UsageReport): Promise<RecordedUsage> {
  return db.transaction().execute(async (trx) => {
    const item = (await findItem(trx, tenant, itemId)) ?? notFound('subscription item', itemId);
    // The subscription is locked: reports and the period's billing take turns.
    const s = (await lockSubscription(trx, tenant, item.subscription_id))!;
    const details = (await findSubscription(trx, tenant, s.id))!;
    if (!details.items.find((i) => i.id === itemId)?.is_metered) {
      throw new AppError('subscription_item_not_metered', {
        param: 'id',
        message: `Subscription item ${itemId} is on plan ${item.plan_id}, which is not billed by usage (its subscriptionBillingType is not Usage); usage can be recorded only for items of a Usage plan.`,
      });
    }
    return recordOnItem(trx, clock, tenant, s, itemId, report);
  });
}

/** Records usage of a subscription's metered item (it has one plan); 400 `subscription_item_not_metered` when its plan is not a Usage plan. */
export async function recordSubscriptionUsage(db: Kysely<Database>, clock: Clock, tenant: Tenant, id: number, report: UsageReport): Promise<RecordedUsage> {
  return db.transaction().execute(async (trx) => {
    const s = (await lockSubscription(trx, tenant, id)) ?? notFound('subscription', id);
    const item = (await findSubscription(trx, tenant, id))!.items.find((i) => i.is_metered);
    if (!item) {
      throw new AppError('subscription_item_not_metered', {
        param: 'id',
        message: `Subscription ${id} is on plan ${s.plan_id}, which is not billed by usage (its subscriptionBillingType is not Usage); usage can be recorded only for a subscription on a Usage plan.`,
      });
    }
    return recordOnItem(trx, clock, tenant, s, item.id, report);
  });
}

/** Units recorded and not billed yet (usage so far this period) per metered item of these subscriptions. */
export const usageSoFar = (db: Kysely<Database>, tenant: Tenant, subscriptionIds: readonly number[]): Promise<Map<number, string>> =>
  unbilledUsageOf(db, tenant, subscriptionIds);
