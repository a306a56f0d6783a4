// The OData lists of the funds area: transfers (`GatewayTransferDto`) and transactions (the
// ledger as a list). The tenant is in the query before the caller's filter is ANDed onto it.
import type { Db } from '../../db/database.js';
import type { TransferRow } from './transfer.tables.js';
import type { Clock } from '../../shared/clock.js';
import type { Tenant } from '../../shared/tenant.js';
import { type ListPage, listPage, type ListQuery } from '../../odata/index.js';
import { listAccounts } from '../accounts/account.service.js';
import { tenantTransactions, type TransactionRow } from './transaction.repository.js';
import { findTransfer, findTransfers, tenantTransfers } from './transfer.repository.js';
import type { PageRequest } from '../../shared/pagination.js';
import { AppError } from '../../shared/errors.js';

export type { TransactionRow };

/** A page of the tenant's transfers. */
export async function listTransfers(db: Db, tenant: Tenant, query: ListQuery): Promise<ListPage<TransferRow>> {
  return listPage(query, tenantTransfers(db, tenant));
}

/** A page of the tenant's transactions (its accounts are opened first, so every booking has one). */
export async function listTransactions(db: Db, clock: Clock, tenant: Tenant, query: ListQuery): Promise<ListPage<TransactionRow>> {
  await listAccounts(db, clock, tenant);
  return listPage(query, tenantTransactions(db, tenant)) as Promise<ListPage<TransactionRow>>;
}

/** The dashboard's page of the tenant's transfers, newest first, one more than `limit`. */
export const listTransferRows = (db: Db, tenant: Tenant, filter: PageRequest & { status?: TransferRow['status'] | undefined }): Promise<TransferRow[]> =>
  findTransfers(db, tenant, filter);

/** One of the tenant's transfers. */
export async function getTransfer(db: Db, tenant: Tenant, id: number): Promise<TransferRow> {
  const transfer = await findTransfer(db, tenant, id);
  if (!transfer) throw new AppError('resource_not_found', { param: 'id', message: 'There is no such transfer.' });
  return transfer;
}
