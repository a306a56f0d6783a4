import type { Generated, Selectable } from 'kysely';
import type { Numeric, Timestamp } from '../../db/columns.js';

type NullableTimestamp = Timestamp | null;

/** How a batch was made: `scheduled` by the daily payout schedule (the only kind Till makes today). */
export type PayoutBatchType = 'single' | 'bulk' | 'scheduled';
/** A batch's state, from its entries': processing until all arrived or failed. */
export type PayoutBatchStatus = 'pending' | 'processing' | 'completed' | 'partially_completed' | 'failed' | 'cancelled';
/** An entry's state: `processing` in transit to the bank, then `completed` or `failed`. */
export type PayoutEntryStatus = 'pending' | 'processing' | 'completed' | 'failed';

/** A batch of payouts of one tenant in one currency. */
export interface PayoutBatchesTable {
  id: Generated<string>;
  merchant_id: number;
  livemode: boolean;
  currency: string;
  batch_type: PayoutBatchType;
  status: PayoutBatchStatus;
  /** The UTC day a scheduled batch pays out (one per tenant, currency and day). */
  payout_date: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** When its last entry arrived or failed. */
  completed_at: NullableTimestamp;
}
export type PayoutBatchRow = Selectable<PayoutBatchesTable>;

/** One payout (`po_…`): money from the available balance to the merchant's bank account. */
export interface PayoutEntriesTable {
  id: string;
  batch_id: string;
  merchant_id: number;
  livemode: boolean;
  currency: string;
  amount: Numeric;
  fee: Generated<string>;
  /** The Commerce interface's TransferAction that carries it (`BankTransfer`). */
  transfer_type: string;
  destination_type: 'bank_account' | 'wallet';
  destination_last4: string | null;
  status: PayoutEntryStatus;
  /** Armed by the test helper: fails instead of arriving. */
  fail_on_arrival: Generated<boolean>;
  failure_reason: string | null;
  /** When it arrives (or arrived) at the bank. */
  arrival_at: Timestamp;
  completed_at: NullableTimestamp;
  failed_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export type PayoutEntryRow = Selectable<PayoutEntriesTable>;

/** A test-mode merchant's armed "the next payout fails". */
export interface PayoutTestFailuresTable {
  merchant_id: number;
  failure_reason: string;
  created_at: Timestamp;
}

// The tables above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    payout_batches: PayoutBatchesTable;
    payout_entries: PayoutEntriesTable;
    payout_test_failures: PayoutTestFailuresTable;
  }
}

// What this module's events keep (the events module's list of subjects, by declaration merging).
declare module '../events/subjects.js' {
  interface EventSubjects {
    payout: { payout: PayoutEntryRow };
  }
}
