import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import { ofTenant } from '../../db/scope.js';
import type { UsageRecordRow, UsageRecordsTable } from './usage.tables.js';
import type { Tenant } from '../../shared/tenant.js';

export async function insertUsageRecord(db: Db, values: Insertable<UsageRecordsTable>): Promise<UsageRecordRow> {
  return db.insertInto('usage_records').values(values).returningAll().executeTakeFirstOrThrow();
}

/** The item's record with the caller's usage id, or undefined. */
export async function findUsageRecordByUsageId(db: Db, tenant: Tenant, itemId: number, usageId: string): Promise<UsageRecordRow | undefined> {
  return db
    .selectFrom('usage_records')
    .selectAll()
    .where('subscription_item_id', '=', itemId)
    .where('usage_id', '=', usageId)
    .where(ofTenant(tenant))
    .executeTakeFirst();
}

/** Units recorded per item of the subscription and not billed yet, with `recorded_at` at or before `before`. */
export async function unbilledUsage(db: Db, tenant: Tenant, subscriptionId: number, before: Date): Promise<Map<number, string>> {
  const rows = await db
    .selectFrom('usage_records')
    .select(['subscription_item_id', (eb) => eb.fn.sum<string>('quantity').as('units')])
    .where('subscription_id', '=', subscriptionId)
    .where('invoice_id', 'is', null)
    .where('recorded_at', '<=', before)
    .where(ofTenant(tenant))
    .groupBy('subscription_item_id')
    .execute();
  return new Map(rows.map((r) => [r.subscription_item_id, String(r.units)]));
}

/** Marks the subscription's unbilled records at or before `before` as billed by the invoice. */
export async function markUsageBilled(db: Db, tenant: Tenant, subscriptionId: number, before: Date, invoiceId: number): Promise<void> {
  await db
    .updateTable('usage_records')
    .set({ invoice_id: invoiceId })
    .where('subscription_id', '=', subscriptionId)
    .where('invoice_id', 'is', null)
    .where('recorded_at', '<=', before)
    .where(ofTenant(tenant))
    .execute();
}

/** Units recorded and not billed yet for each of these subscriptions' items (usage so far this period). */
export async function unbilledUsageOf(db: Db, tenant: Tenant, subscriptionIds: readonly number[]): Promise<Map<number, string>> {
  if (subscriptionIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('usage_records')
    .select(['subscription_item_id', (eb) => eb.fn.sum<string>('quantity').as('units')])
    .where('subscription_id', 'in', subscriptionIds)
    .where('invoice_id', 'is', null)
    .where(ofTenant(tenant))
    .groupBy('subscription_item_id')
    .execute();
  return new Map(rows.map((r) => [r.subscription_item_id, String(r.units)]));
}
