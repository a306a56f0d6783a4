import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Json, Numeric, Timestamp } from '../../db/columns.js';
import type { SandboxOutcome } from '../../shared/card-outcome.js';
import type { CardSummary } from '../events/subjects.js';

/** A card tokenized on a session: what is kept of it. Never the number, never the CVC. */
export interface PaymentMethodsTable {
  id: string;
  merchant_id: number;
  livemode: boolean;
  session_id: string | null;
  customer_id: number | null;
  brand: string;
  last4: string;
  expiry_month: number;
  expiry_year: number;
  /** HMAC of the number per merchant: the same card gives the same fingerprint. */
  fingerprint: string;
  /** What the sandbox processor does with this card. */
  sandbox_outcome: SandboxOutcome;
  billing_name: string | null;
  billing_email: string | null;
  /** Set when the card is kept on file for `customer_id` (saved cards, subscription renewals). */
  saved_at: Generated<Date | null>;
  /** The customer's default card on file. */
  is_default: Generated<boolean>;
  created_at: Timestamp;
}
export type PaymentMethodRow = Selectable<PaymentMethodsTable>;

/**
 * `requires_action`: a card payment waiting for the payer's 3-D Secure authentication.
 * `pending`: a wallet QR code is live, waiting for the payer. `withdrawn`: the code was withdrawn
 * (by the payer, or by a cancel) and can no longer be paid. A wallet payment whose session expired
 * unpaid is `expired`, like a lapsed hold.
 */
export type PaymentStatus =
  | 'requires_action'
  | 'succeeded'
  | 'failed'
  | 'authorized'
  | 'captured'
  | 'released'
  | 'expired'
  | 'refunded'
  | 'partially_refunded'
  | 'pending_reversal'
  | 'pending'
  | 'withdrawn';

export interface PaymentsTable {
  id: Generated<number>;
  reference_number: string;
  merchant_id: number;
  livemode: boolean;
  session_id: string | null;
  invoice_id: number | null;
  payment_method_id: string | null;
  status: PaymentStatus;
  capture_method: 'automatic' | 'manual';
  amount: Numeric;
  currency: string;
  fee: Numeric;
  authorized_amount: Numeric | null;
  captured_amount: Numeric | null;
  refunded_amount: Numeric;
  authorization_expires_at: Timestamp | null;
  captured_at: Timestamp | null;
  failure_code: string | null;
  failure_message: string | null;
  settled_at: Timestamp | null;
  metadata: Json<Record<string, string>>;
  /** The last refund attempt: submitted, completed, pending or failed. */
  refund_last_outcome: Generated<string | null>;
  refund_last_attempt_at: Generated<Date | null>;
  refund_attempts: Generated<number>;
  /** How it is paid: a card (holds included), a wallet QR code, or a bank transfer or an account balance (Commerce invoice payments). */
  method_type: Generated<'card' | 'wallet' | 'bank_transfer' | 'account_balance'>;
  /** The wallet payment option's name (wallet payments). */
  wallet_name: Generated<string | null>;
  /** The merchant's payment option a Commerce payment was made with; null for other payments. */
  payment_option_id: Generated<number | null>;
  /** The card's brand as the processor read it (`visa`, `amex`, ...), also for a card that failed its check; null when no card was sent. */
  card_brand: Generated<string | null>;
  /** A Commerce payment created without a payment option: it waits for the payer to choose on the hosted invoice page. */
  awaits_hosted_page: Generated<boolean>;
  /** The unguessable name of the QR code's image (`/qr/{qr_token}.png`). */
  qr_token: Generated<string | null>;
  /** The QR code's payload. */
  qr_data: Generated<string | null>;
  /** When the QR code can no longer be paid (its session's expiry). */
  qr_expires_at: Generated<Date | null>;
  withdrawn_at: Generated<Date | null>;
  /** When a wallet refund under way (`pending_reversal`) completes. */
  refund_completes_at: Generated<Date | null>;
  /** The status of the dispute on this payment (`open`, `under_review`, `won`, `lost`, `accepted`), or null. */
  dispute_status: Generated<string | null>;
  /** What a lost or accepted dispute took back: no longer refundable. */
  charged_back_amount: ColumnType<string, string | undefined, string>;
  /** The wallet account an account-balance payment was paid from (its refunds go back there), or null. */
  source_account_id: Generated<number | null>;
  /** That account's merchant: this one, or another of the same mode that paid this merchant's invoice. */
  source_merchant_id: Generated<number | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export type PaymentRow = Selectable<PaymentsTable>;

export interface RefundsTable {
  id: Generated<number>;
  payment_id: number;
  merchant_id: number;
  livemode: boolean;
  amount: Numeric;
  currency: string;
  status: 'succeeded' | 'pending';
  /** Taken from the available balance (the payment had settled). */
  from_balance: boolean;
  reason: string | null;
  created_at: Timestamp;
}

// The tables above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    payment_methods: PaymentMethodsTable;
    payments: PaymentsTable;
    refunds: RefundsTable;
  }
}

// What this module's events keep (the events module's list of subjects, by declaration merging).
declare module '../events/subjects.js' {
  interface EventSubjects {
    payment: { payment: PaymentRow; card: CardSummary | null; refund?: { amount: string } };
  }
}
