// Transfers, each query scoped to its tenant first (due work reads across a scope and answers each
// row's tenant). The OData list gets its query here, already scoped; the caller's filter is ANDed
// onto it afterwards.
import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { inScope, ofTenant } from '../../db/scope.js';
import type { TransferRow, TransfersTable } from './transfer.tables.js';
import type { DueScope } from '../../shared/due-scope.js';
import type { PageRequest } from '../../shared/pagination.js';
import type { Tenant } from '../../shared/tenant.js';

/** A `Processing` transfer that has fallen due, and its tenant. */
export type DueTransfer = Pick<TransferRow, 'id' | 'merchant_id' | 'livemode'>;

export async function insertTransfer(db: Db, values: Insertable<TransfersTable>): Promise<TransferRow> {
  return db.insertInto('transfers').values(values).returningAll().executeTakeFirstOrThrow();
}

/** The tenant's transfers, every column: for an OData page. */
export function tenantTransfers(db: Db, tenant: Tenant) {
  return db.selectFrom('transfers').selectAll().where(ofTenant(tenant));
}

/** One of the tenant's transfers (locked for the rest of the transaction with `lock`). */
export async function findTransfer(db: Db, tenant: Tenant, id: number, options: { lock?: boolean } = {}): Promise<TransferRow | undefined> {
  const query = db.selectFrom('transfers').selectAll().where('id', '=', id).where(ofTenant(tenant));
  return (options.lock ? query.forUpdate() : query).executeTakeFirst();
}

/** The dashboard's page of the tenant's transfers: newest first (index transfers_tenant), after an id, one more than the limit. */
export async function findTransfers(db: Db, tenant: Tenant, filter: PageRequest & { status?: TransferRow['status'] | undefined }): Promise<TransferRow[]> {
  let query = tenantTransfers(db, tenant);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.startingAfter !== undefined) query = query.where('id', '<', filter.startingAfter);
  return query
    .orderBy('id', 'desc')
    .limit(filter.limit + 1)
    .execute();
}

export async function updateTransfer(
  db: Db,
  tenant: Tenant,
  id: number,
  values: Pick<Updateable<TransfersTable>, 'status' | 'completed_at' | 'failed_at' | 'failure_reason'>,
): Promise<TransferRow> {
  return db.updateTable('transfers').set(values).where('id', '=', id).where(ofTenant(tenant)).returningAll().executeTakeFirstOrThrow();
}

/** The scope's `Processing` transfers due by `now`, earliest first. */
export async function findDueTransfers(db: Db, scope: DueScope, now: Date, limit: number): Promise<DueTransfer[]> {
  return db
    .selectFrom('transfers')
    .select(['id', 'merchant_id', 'livemode'])
    .where('status', '=', 'Processing')
    .where('completes_at', '<=', now)
    .where(inScope(scope, 'transfers'))
    .orderBy('completes_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** When the scope's next `Processing` transfer falls due, after `after`. */
export async function nextTransferDue(db: Db, scope: DueScope, after: Date): Promise<Date | null> {
  const row = await db
    .selectFrom('transfers')
    .select((eb) => eb.fn.min('completes_at').as('at'))
    .where('status', '=', 'Processing')
    .where('completes_at', '>', after)
    .where(inScope(scope, 'transfers'))
    .executeTakeFirst();
  return row?.at ? new Date(row.at) : null;
}
