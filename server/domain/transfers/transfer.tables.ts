import type { Generated, Selectable } from 'kysely';
import type { Numeric, Timestamp } from '../../db/columns.js';

export type TransferAction = 'ExecuteTransfer' | 'BankTransfer' | 'BankWithdrawal' | 'CBDCTransfer';
export type TransferStatus = 'Pending' | 'Processing' | 'Completed' | 'Failed' | 'Cancelled';
export type FeePayer = 'Sender' | 'Receiver' | 'Both';

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
}
export type TransferRow = Selectable<TransfersTable>;

// The tables above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    transfers: TransfersTable;
  }
}
