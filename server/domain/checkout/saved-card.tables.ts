import type { Generated, Selectable } from 'kysely';
import type { Timestamp } from '../../db/columns.js';

/**
 * One OTP sent for a saved card on one session. Only a hash of the code is kept. `otp_sent` until
 * the right code is entered (`verified`), the card pays a confirm (`used`), a newer code replaces
 * it (`superseded`) or the card is locked (`locked`).
 */
export interface CardVerificationsTable {
  /** `vrf_…` */
  id: string;
  merchant_id: number;
  livemode: boolean;
  session_id: string;
  payment_method_id: string;
  code_hash: string;
  status: 'otp_sent' | 'verified' | 'used' | 'superseded' | 'locked';
  expires_at: Timestamp;
  verified_at: Timestamp | null;
  used_at: Timestamp | null;
  created_at: Timestamp;
}
export type CardVerificationRow = Selectable<CardVerificationsTable>;

/** Wrong codes entered for a saved card (over all its verifications), and its lock. */
export interface SavedCardOtpStateTable {
  payment_method_id: string;
  merchant_id: number;
  livemode: boolean;
  failed_attempts: Generated<number>;
  locked_until: Timestamp | null;
  updated_at: Timestamp;
}

/** The click-to-pay token behind a payment method of one session, usable until `expires_at`. */
export interface SrcTokensTable {
  payment_method_id: string;
  merchant_id: number;
  livemode: boolean;
  src_card_id: string;
  expires_at: Timestamp;
  created_at: Timestamp;
}

// The tables above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    card_verifications: CardVerificationsTable;
    saved_card_otp_state: SavedCardOtpStateTable;
    src_tokens: SrcTokensTable;
  }
}
