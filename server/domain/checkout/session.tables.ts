import type { Generated, Selectable } from 'kysely';
import type { Json, Numeric, Timestamp } from '../../db/columns.js';

/** Lifecycle of a session (the create answer says `open`, the confirm answer `complete`). */
export type SessionStatus = 'created' | 'payment_pending' | 'processing' | 'completed' | 'expired' | 'cancelled';

export interface SessionLineItem {
  name: string;
  quantity: number;
  unitAmount: number;
  description?: string;
}

export interface CheckoutSessionsTable {
  id: string;
  merchant_id: number;
  livemode: boolean;
  /** SHA-256 of the client secret, hex. */
  client_secret_hash: string;
  status: string;
  amount: Numeric;
  currency: string;
  mode: 'hosted' | 'embedded';
  payment_type: 'one_time' | 'subscription';
  payment_status: string;
  capture_method: 'automatic' | 'manual';
  url: string | null;
  success_url: string | null;
  cancel_url: string | null;
  customer_email: string | null;
  customer_first_name: string | null;
  customer_last_name: string | null;
  customer_phone: string | null;
  /** Resolved at creation from the request or the merchant's setting. */
  notify_customer: boolean;
  send_receipt: boolean;
  notification_url: string | null;
  /** Signs this session's webhooks (HMAC needs it in the clear; it is never logged or shown again). */
  notification_secret: string | null;
  line_items: Json<SessionLineItem[]>;
  metadata: Json<Record<string, string>>;
  allow_saved_cards: boolean;
  enable_click_to_pay: boolean;
  /** The session's invoice: the one it pays (`pays_invoice`), or the one it raised when paid. */
  invoice_id: number | null;
  /** True when the session pays an existing invoice (creation rule 6) rather than raising its own. */
  pays_invoice: Generated<boolean>;
  /** Kept so a repeat create on the same invoice can return this open session (rule 6). */
  client_secret: Generated<string | null>;
  invoice_reference: string | null;
  payment_option_group_id: number | null;
  subscription_plan_id: number | null;
  client_id: number | null;
  trial_days: number | null;
  description: string | null;
  subscription_id: number | null;
  payment_id: number | null;
  created_at: Timestamp;
  expires_at: Timestamp;
  completed_at: Timestamp | null;
  cancelled_at: Timestamp | null;
  expired_at: Timestamp | null;
  /** Who opened it: a merchant through the Checkout interface, or the Commerce interface paying an invoice (no `checkout.session.*` events). */
  origin: Generated<'checkout' | 'commerce'>;
}
export type CheckoutSessionRow = Selectable<CheckoutSessionsTable>;

// The tables above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    checkout_sessions: CheckoutSessionsTable;
  }
}
