import type { Generated, Selectable } from 'kysely';
import type { Numeric, Timestamp } from '../columns.js';

export type WalletAccountStatus = 'Active' | 'Inactive' | 'Frozen' | 'Closed';

/** A merchant's wallet account in one mode and currency: its money is the ledger's `pending` and `available` balances there. */
export interface WalletAccountsTable {
  id: Generated<number>;
  merchant_id: number;
  livemode: boolean;
  currency: string;
  /** `TL` + 11 digits, unique across Till: how another merchant names it as a transfer destination. */
  account_number: string;
  name: string;
  description: string | null;
  status: Generated<WalletAccountStatus>;
  created_at: Timestamp;
}
export type WalletAccountRow = Selectable<WalletAccountsTable>;

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

export type FundingSourceStatus = 'Active' | 'PendingVerification' | 'Inactive' | 'Expired' | 'Blocked';

/** A card registered by the merchant (the card itself is a `payment_methods` row: never its number or CVC). */
export interface FundingSourcesTable {
  id: Generated<number>;
  merchant_id: number;
  livemode: boolean;
  payment_method_id: string;
  name: string;
  description: string | null;
  payment_option_id: number;
  status: FundingSourceStatus;
  is_verified: boolean;
  /** HMAC of the verification code while one is out; never the code. */
  verification_code_hash: string | null;
  verification_expires_at: Timestamp | null;
  failed_attempts: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export type FundingSourceRow = Selectable<FundingSourcesTable>;
