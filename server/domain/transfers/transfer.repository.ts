// Transfers, each query scoped to its tenant first. The OData list gets its query here, already
// scoped; the caller's filter is ANDed onto it afterwards.
import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import { ofTenant } from '../../db/scope.js';
import type { TransferRow, TransfersTable } from './transfer.tables.js';
import type { Tenant } from '../../shared/tenant.js';

export async function insertTransfer(db: Db, values: Insertable<TransfersTable>): Promise<TransferRow> {
  return db.insertInto('transfers').values(values).returningAll().executeTakeFirstOrThrow();
}

/** The tenant's transfers, every column: for an OData page. */
export function tenantTransfers(db: Db, tenant: Tenant) {
  return db.selectFrom('transfers').selectAll().where(ofTenant(tenant));
}
