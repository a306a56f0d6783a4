// Payout batches and entries, always scoped to their tenant (due work reads across a scope and
// answers each row's tenant).
import { sql } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import { inScope, ofTenant } from '../../db/scope.js';
import type { PayoutBatchRow, PayoutEntryRow } from './payout.tables.js';
import type { DueScope } from '../../shared/due-scope.js';
import type { Tenant } from '../../shared/tenant.js';

/** A payout in transit whose arrival is due, and its tenant. */
export type DueArrival = Pick<PayoutEntryRow, 'id' | 'merchant_id' | 'livemode'>;

/** Creates the tenant's scheduled batch of a day in a currency, unless it exists (then undefined). */
export async function insertScheduledBatch(trx: Trx, tenant: Tenant, currency: string, payoutDate: string, now: Date): Promise<PayoutBatchRow | undefined> {
  return trx
    .insertInto('payout_batches')
    .values({
      merchant_id: tenant.merchantId,
      livemode: tenant.livemode,
      currency,
      batch_type: 'scheduled',
      status: 'processing',
      payout_date: payoutDate,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) => oc.columns(['merchant_id', 'livemode', 'currency', 'payout_date']).where('batch_type', '=', 'scheduled').doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function insertEntry(
  trx: Trx,
  entry: Omit<PayoutEntryRow, 'fee' | 'fail_on_arrival' | 'completed_at' | 'failed_at'> & { fail_on_arrival: boolean },
): Promise<PayoutEntryRow> {
  return trx.insertInto('payout_entries').values(entry).returningAll().executeTakeFirstOrThrow();
}

/** The keys (`merchant:livemode:currency`) of a scope's scheduled batches of a day. */
export async function scheduledKeys(db: Db, scope: DueScope, payoutDate: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('payout_batches')
    .select(['merchant_id', 'livemode', 'currency'])
    .where('batch_type', '=', 'scheduled')
    .where('payout_date', '=', payoutDate)
    .where(inScope(scope, 'payout_batches'))
    .execute();
  return new Set(rows.map((r) => `${r.merchant_id}:${r.livemode}:${r.currency}`));
}

export async function findEntry(db: Db, tenant: Tenant, id: string, options: { lock?: boolean } = {}): Promise<PayoutEntryRow | undefined> {
  const query = db.selectFrom('payout_entries').selectAll().where('id', '=', id).where(ofTenant(tenant));
  return (options.lock ? query.forUpdate() : query).executeTakeFirst();
}

/**
 * The dashboard's page of the tenant's payouts, newest first by (created_at, id), after the payout
 * `after` (a `po_…` id), one more than `limit`. A tenant has at most one scheduled payout a day per currency.
 */
export async function findEntries(db: Db, tenant: Tenant, page: { limit: number; after?: string | undefined }): Promise<PayoutEntryRow[]> {
  let query = db.selectFrom('payout_entries').selectAll().where(ofTenant(tenant));
  if (page.after !== undefined) {
    const after = await findEntry(db, tenant, page.after);
    if (!after) return [];
    query = query.where(sql<boolean>`(created_at, id) < (${after.created_at}, ${after.id})`);
  }
  return query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .execute();
}

export async function updateEntry(
  trx: Trx,
  tenant: Tenant,
  id: string,
  values: Partial<Pick<PayoutEntryRow, 'status' | 'failure_reason' | 'completed_at' | 'failed_at' | 'updated_at'>>,
): Promise<PayoutEntryRow> {
  return trx.updateTable('payout_entries').set(values).where('id', '=', id).where(ofTenant(tenant)).returningAll().executeTakeFirstOrThrow();
}

/** Sets a batch's status from its entries': processing while one is in transit, then completed, failed or partially completed. */
export async function refreshBatchStatus(trx: Trx, tenant: Tenant, batchId: string, now: Date): Promise<void> {
  await sql`UPDATE payout_batches b SET
      status = s.status, updated_at = ${now},
      completed_at = CASE WHEN s.status IN ('completed', 'failed', 'partially_completed') THEN coalesce(b.completed_at, ${now}) ELSE NULL END
    FROM (SELECT CASE
        WHEN count(*) FILTER (WHERE status IN ('pending', 'processing')) > 0 THEN 'processing'
        WHEN count(*) FILTER (WHERE status = 'failed') = 0 THEN 'completed'
        WHEN count(*) FILTER (WHERE status = 'completed') = 0 THEN 'failed'
        ELSE 'partially_completed' END AS status
      FROM payout_entries WHERE batch_id = ${batchId} AND merchant_id = ${tenant.merchantId} AND livemode = ${tenant.livemode}) s
    WHERE b.id = ${batchId} AND b.merchant_id = ${tenant.merchantId} AND b.livemode = ${tenant.livemode}`.execute(trx);
}

/** Payouts of a scope in transit whose arrival is due by `now`, earliest first. */
export async function findDueArrivals(db: Db, scope: DueScope, now: Date, limit: number): Promise<DueArrival[]> {
  return db
    .selectFrom('payout_entries')
    .select(['id', 'merchant_id', 'livemode'])
    .where('status', '=', 'processing')
    .where('arrival_at', '<=', now)
    .where(inScope(scope, 'payout_entries'))
    .orderBy('arrival_at')
    .limit(limit)
    .execute();
}

/** When a scope's next payout in transit arrives, after `after`. */
export async function nextArrival(db: Db, scope: DueScope, after: Date): Promise<Date | null> {
  const row = await db
    .selectFrom('payout_entries')
    .select((eb) => eb.fn.min('arrival_at').as('at'))
    .where('status', '=', 'processing')
    .where('arrival_at', '>', after)
    .where(inScope(scope, 'payout_entries'))
    .executeTakeFirst();
  return row?.at ? new Date(row.at) : null;
}

/** Arms "the next payout fails" for a merchant's test mode (replacing an armed one). */
export async function armTestFailure(trx: Trx, merchantId: number, reason: string, now: Date): Promise<void> {
  await trx
    .insertInto('payout_test_failures')
    .values({ merchant_id: merchantId, failure_reason: reason, created_at: now })
    .onConflict((oc) => oc.column('merchant_id').doUpdateSet({ failure_reason: reason, created_at: now }))
    .execute();
}

/** Takes a merchant's armed test failure (at most once): its reason, or undefined. */
export async function takeTestFailure(trx: Trx, merchantId: number): Promise<string | undefined> {
  const row = await trx.deleteFrom('payout_test_failures').where('merchant_id', '=', merchantId).returning('failure_reason').executeTakeFirst();
  return row?.failure_reason;
}
