// Reads of the ledger for the Commerce interface's accounts: which currencies a tenant has money
// in, and its bookings as a list (the transactions). Only the ledger touches its table.
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

/** How a ledger entry type reads as a transaction type of the Commerce interface. */
const TRANSACTION_TYPE = sql<string>`CASE e.type
  WHEN 'payment' THEN 'Payment' WHEN 'account_payment' THEN 'Payment'
  WHEN 'fee' THEN 'Fee' WHEN 'transfer_fee' THEN 'Fee' WHEN 'dispute_fee' THEN 'Fee'
  WHEN 'refund' THEN 'Refund' WHEN 'settlement' THEN 'Settlement' WHEN 'transfer' THEN 'Transfer'
  WHEN 'payout' THEN 'Payout' WHEN 'dispute' THEN 'Dispute' ELSE 'Payment' END`;

/**
 * The tenant's transactions: every ledger entry on its money (`pending` or `available`), with the
 * account it books, its reference (the payment's or transfer's, else the posting's), and the
 * account's current amount right after it (a running sum in entry order).
 */
export function tenantBookings(db: Db, tenant: Tenant) {
  const rows = db
    .selectFrom('ledger_entries as e')
    .innerJoin('wallet_accounts as a', (j) =>
      j.onRef('a.merchant_id', '=', 'e.merchant_id').onRef('a.livemode', '=', 'e.livemode').onRef('a.currency', '=', 'e.currency'),
    )
    .leftJoin('payments as p', 'p.id', 'e.payment_id')
    .leftJoin('transfers as t', 't.id', 'e.transfer_id')
    .where(ofTenant(tenant, 'e'))
    .where('e.account', 'in', ['pending', 'available'])
    .select([
      sql<number>`e.id::int`.as('id'),
      'a.id as account_id',
      sql<string>`coalesce(t.reference_number, p.reference_number, e.posting_id::text)`.as('reference_number'),
      TRANSACTION_TYPE.as('type'),
      'e.type as entry_type',
      'e.account as balance',
      'e.amount',
      sql<string>`trim(e.currency)`.as('currency'),
      sql<string>`(sum(e.amount) OVER (PARTITION BY e.currency ORDER BY e.id))::text`.as('balance_after'),
      'e.created_at',
    ]);
  return db.selectFrom(rows.as('tx')).selectAll();
}
export type TransactionRow = {
  id: number;
  account_id: number;
  reference_number: string;
  type: string;
  entry_type: string;
  balance: string;
  amount: string;
  currency: string;
  balance_after: string;
  created_at: Date;
};
