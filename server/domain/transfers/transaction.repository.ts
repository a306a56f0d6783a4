// The Commerce interface's transactions: the ledger as a list. One statement joins what each owner
// exports: the tenant's entries on its money (the ledger's), the account each one books (the
// accounts'), and its reference: the transfer's, else the payment's (the payments'), else the
// posting's. The OData engine ANDs the caller's filter onto it.
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Tenant } from '../../shared/tenant.js';
import { accountsOf } from '../accounts/account.repository.js';
import { entriesOnMoney } from '../ledger/ledger-reads.repository.js';
import { paymentReferences } from '../payments/payment.repository.js';

/** How a ledger entry type reads as a transaction type of the Commerce interface. */
const TRANSACTION_TYPE = sql<string>`CASE e.type
  WHEN 'payment' THEN 'Payment' WHEN 'account_payment' THEN 'Payment'
  WHEN 'fee' THEN 'Fee' WHEN 'transfer_fee' THEN 'Fee' WHEN 'dispute_fee' THEN 'Fee'
  WHEN 'refund' THEN 'Refund' WHEN 'account_refund' THEN 'Refund' WHEN 'settlement' THEN 'Settlement' WHEN 'transfer' THEN 'Transfer'
  WHEN 'payout' THEN 'Payout' WHEN 'dispute' THEN 'Dispute' ELSE 'Payment' END`;

/**
 * The tenant's transactions: every ledger entry on its money, with the account it books, its
 * reference, and the account's current amount right after it (a running sum in entry order).
 */
export function tenantTransactions(db: Db, tenant: Tenant) {
  const rows = db
    .selectFrom(entriesOnMoney(db, tenant).as('e'))
    .innerJoin(accountsOf(db, tenant).as('a'), (j) =>
      j.onRef('a.merchant_id', '=', 'e.merchant_id').onRef('a.livemode', '=', 'e.livemode').onRef('a.currency', '=', 'e.currency'),
    )
    .leftJoin(paymentReferences(db, tenant).as('p'), 'p.id', 'e.payment_id')
    .leftJoin('transfers as t', 't.id', 'e.transfer_id')
    .select([
      sql<number>`e.id::int`.as('id'),
      'a.id as account_id',
      sql<string>`coalesce(t.reference_number, p.reference_number, e.posting_id::text)`.as('reference_number'),
      TRANSACTION_TYPE.as('type'),
      'e.type as entry_type',
      // The tenant sent the transfer this entry books (a credit then is a failed transfer's return).
      sql<boolean>`coalesce(t.merchant_id = e.merchant_id AND t.livemode = e.livemode, false)`.as('own_transfer'),
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
  own_transfer: boolean;
  balance: string;
  amount: string;
  currency: string;
  balance_after: string;
  created_at: Date;
};
