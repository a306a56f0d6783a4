import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Numeric, Timestamp } from '../../db/columns.js';

/**
 * The accounts of the ledger, per merchant, mode and currency. A merchant's money is `pending`
 * until its payment settles, then `available`; `authorized` is what card holds keep on payers'
 * cards (not money yet). `payer` stands for the world outside (payers' cards and wallets: money
 * comes from there and refunds go back there) and `fees` for the processor's fees, so that every
 * posting balances. A payout moves money from `available` to `in_transit` (sent to the merchant's
 * bank), then to `paid_out` when it arrives; a failed one goes back to `available`. `transfers`
 * stands for the other side of a transfer: another Till account or a bank (across merchants, the
 * sender's and the receiver's `transfers` entries cancel out).
 */
export type LedgerAccount = 'pending' | 'available' | 'authorized' | 'payer' | 'fees' | 'in_transit' | 'paid_out' | 'transfers';

/** What a posting records. */
export type LedgerEntryType =
  | 'authorization'
  | 'capture'
  | 'release'
  | 'payment'
  | 'fee'
  | 'refund'
  | 'settlement'
  | 'transfer'
  | 'payout'
  | 'dispute'
  | 'dispute_fee'
  | 'payout_return'
  | 'transfer_fee'
  | 'account_payment'
  | 'account_refund';

/** One side of a posting. The entries of a posting (same `posting_id`) sum to zero: a balance is a sum. */
export interface LedgerEntriesTable {
  id: Generated<string>;
  /** The posting this entry belongs to: its entries sum to zero. */
  posting_id: string;
  merchant_id: number;
  livemode: boolean;
  payment_id: number | null;
  /** The payout (`po_…`) a payout posting moves. */
  payout_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The transfer this entry books, or null. */
  transfer_id: Generated<number | null>;
  type: LedgerEntryType;
  account: LedgerAccount;
  /** Signed: money into the account is positive. */
  amount: Numeric;
  currency: string;
  created_at: Timestamp;
}
export type LedgerEntryRow = Selectable<LedgerEntriesTable>;

// The tables above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    ledger_entries: LedgerEntriesTable;
  }
}
