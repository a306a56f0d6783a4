// Reads of the ledger for the Commerce interface's accounts: which currencies a tenant has money
// in, and its entries on that money (which the transactions list joins). Only the ledger touches its table.
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { ofTenant } from '../../db/scope.js';
import type { Tenant } from '../../shared/tenant.js';

/** The currencies the tenant has booked money in (its `pending` or `available` balance). */
export async function bookedCurrencies(db: Db, tenant: Tenant): Promise<string[]> {
  const rows = await db
    .selectFrom('ledger_entries')
    .select(sql<string>`distinct currency`.as('currency'))
    .where(ofTenant(tenant))
    .where('account', 'in', ['pending', 'available'])
    .execute();
  return rows.map((r) => r.currency.trim().toUpperCase());
}

/**
 * The tenant's entries on its money (its `pending` or `available` balance), every column: for a
 * list another module composes from them in one statement (the Commerce interface's transactions,
 * transfers/transaction.repository.ts, joins each entry's account and reference).
 */
export function entriesOnMoney(db: Db, tenant: Tenant) {
  return db.selectFrom('ledger_entries').selectAll().where(ofTenant(tenant)).where('account', 'in', ['pending', 'available']);
}
