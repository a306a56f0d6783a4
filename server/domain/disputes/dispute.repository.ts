import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { ofTenant } from '../../db/scope.js';
import type { DisputeRow, DisputesTable, DisputeStatus } from './dispute.tables.js';
import type { Tenant } from '../../shared/tenant.js';

// Disputes, always of one tenant.

export async function insertDispute(db: Db, values: Insertable<DisputesTable>): Promise<DisputeRow> {
  return db.insertInto('disputes').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function findDispute(db: Db, tenant: Tenant, id: string, options: { lock?: boolean } = {}): Promise<DisputeRow | undefined> {
  const query = db.selectFrom('disputes').selectAll().where('id', '=', id).where(ofTenant(tenant));
  return (options.lock ? query.forUpdate() : query).executeTakeFirst();
}

/** The dispute of a payment, if it has one (a payment is disputed once). */
export async function findPaymentDispute(db: Db, tenant: Tenant, paymentId: number): Promise<DisputeRow | undefined> {
  return db.selectFrom('disputes').selectAll().where('payment_id', '=', paymentId).where(ofTenant(tenant)).executeTakeFirst();
}

export async function updateDispute(db: Db, tenant: Tenant, id: string, changes: Updateable<DisputesTable>): Promise<DisputeRow> {
  return db.updateTable('disputes').set(changes).where('id', '=', id).where(ofTenant(tenant)).returningAll().executeTakeFirstOrThrow();
}

export interface DisputeFilter {
  limit: number;
  /** The id of the last dispute the caller holds. */
  startingAfter?: string | undefined;
  paymentId?: number | undefined;
  status?: DisputeStatus | undefined;
}

/** The tenant's disputes, newest first, one more than the limit; undefined when `startingAfter` is not one of its disputes. */
export async function findDisputes(db: Db, tenant: Tenant, filter: DisputeFilter): Promise<DisputeRow[] | undefined> {
  let query = db.selectFrom('disputes').selectAll().where(ofTenant(tenant));
  if (filter.startingAfter !== undefined) {
    const after = await db.selectFrom('disputes').select('seq').where('id', '=', filter.startingAfter).where(ofTenant(tenant)).executeTakeFirst();
    if (!after) return undefined;
    query = query.where('seq', '<', after.seq);
  }
  if (filter.paymentId !== undefined) query = query.where('payment_id', '=', filter.paymentId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  return query
    .orderBy('seq', 'desc')
    .limit(filter.limit + 1)
    .execute();
}
