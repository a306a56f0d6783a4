import type { Generated, Selectable } from 'kysely';
import type { Numeric, Timestamp } from '../../db/columns.js';

type NullableTimestamp = Timestamp | null;

export type TransferAction = 'ExecuteTransfer' | 'BankTransfer' | 'BankWithdrawal' | 'CBDCTransfer';
export type TransferStatus = 'Pending' | 'Processing' | 'Completed' | 'Failed' | 'Cancelled';
export type FeePayer = 'Sender' | 'Receiver' | 'Both';
/** The institution a transfer goes through: 1 Till (between Till accounts), 2 the bank network, 3 the CBDC network. */
export type InstitutionId = 1 | 2 | 3;

/** Money sent from a wallet account: to another Till account (`destination_account_id`) or out of Till. */
export interface TransfersTable {
  id: Generated<number>;
  merchant_id: number;
  livemode: boolean;
  reference_number: string;
  transfer_action: TransferAction;
  source_account_id: number;
  destination_account_number: string;
  destination_account_id: number | null;
  amount: Numeric;
  fee: Numeric;
  /** The sender's and the receiver's shares of the fee; they sum to `fee`. */
  sender_fee: Numeric;
  receiver_fee: Numeric;
  fee_payer: FeePayer;
  currency: string;
  status: TransferStatus;
  description: string | null;
  created_at: Timestamp;
  institution_id: InstitutionId;
  /** When a `Processing` transfer completes (by the clock); for a completed one, when it fell due. */
  completes_at: Timestamp;
  completed_at: NullableTimestamp;
  failed_at: NullableTimestamp;
  failure_reason: string | null;
}
export type TransferRow = Selectable<TransfersTable>;

// The tables above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    transfers: TransfersTable;
  }
}

// What this module's events keep (the events module's list of subjects, by declaration merging).
declare module '../events/subjects.js' {
  interface EventSubjects {
    transfer: { transfer: TransferRow };
  }
}
