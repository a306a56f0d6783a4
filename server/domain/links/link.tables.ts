import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { Numeric, Timestamp } from '../../db/columns.js';

export type PaymentLinkStatus = 'draft' | 'active' | 'inactive' | 'expired';
export type PaymentLinkUsageMode = 'single_use' | 'multi_use';
export type PaymentLinkType = 'standard' | 'donation' | 'subscription';
export type PaymentLinkStyle = 'button' | 'link' | 'qr_code';

/** A shareable payment link (Commerce `/v1/PaymentLink`), with its analytics. */
export interface PaymentLinksTable {
  id: Generated<number>;
  merchant_id: number;
  livemode: boolean;
  /** Short code, unique per merchant (both modes): the vanity URL's part. */
  code: string;
  identifier: string;
  name: string;
  description: string | null;
  call_to_action_text: string;
  product_code: string | null;
  product_name: string | null;
  product_description: string | null;
  unit_price: Numeric | null;
  quantity: Numeric;
  currency: string;
  is_variable_amount: boolean;
  min_amount: Numeric | null;
  max_amount: Numeric | null;
  suggested_amount: Numeric | null;
  tax_rate: Numeric;
  status: PaymentLinkStatus;
  valid_from: Timestamp;
  valid_to: Timestamp | null;
  usage_mode: PaymentLinkUsageMode;
  max_uses: number | null;
  max_uses_per_customer: number | null;
  link_type: PaymentLinkType;
  link_style: PaymentLinkStyle;
  button_color: string;
  button_text_color: string;
  media_url: string | null;
  success_url: string | null;
  cancel_url: string | null;
  notification_url: string | null;
  /** Signs the webhooks sent to `notification_url`. */
  notification_secret: string | null;
  /** scrypt hash of the link's password (`crypto.ts`); null when the link has none. */
  password_hash: string | null;
  /** Generated: `password_hash IS NOT NULL` (for `$filter`). */
  is_password_protected: ColumnType<boolean, never, never>;
  is_email_verification_required: boolean;
  subscription_product_id: number | null;
  /** Generated: `link_type = 'subscription'` (for `$filter`). */
  is_subscription_based: ColumnType<boolean, never, never>;
  click_count: Generated<number>;
  invoice_count: Generated<number>;
  completed_payment_count: Generated<number>;
  total_amount_collected: ColumnType<string, string | undefined, string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}
export type PaymentLinkRow = Selectable<PaymentLinksTable>;
export type NewPaymentLink = Insertable<PaymentLinksTable>;
export type PaymentLinkUpdate = Updateable<PaymentLinksTable>;

/** An invoice made through a link: its payer, and when it was paid (the counters and `maxUsesPerCustomer` read these). */
export interface PaymentLinkInvoicesTable {
  invoice_id: number;
  /** Null once the link is deleted: the record stays, with the link's name and code. */
  link_id: number | null;
  link_name: string;
  link_code: string;
  merchant_id: number;
  livemode: boolean;
  /** Lower case. */
  payer_email: string;
  subscription_id: number | null;
  created_at: Timestamp;
  paid_at: Timestamp | null;
  amount_paid: Numeric | null;
}
export type PaymentLinkInvoiceRow = Selectable<PaymentLinkInvoicesTable>;

export type PaymentLinkVerificationStatus = 'sent' | 'used' | 'superseded';

/** An email verification code of a link's page (`SendVerificationCode`), kept only as a hash. */
export interface PaymentLinkVerificationsTable {
  /** `vt_…` */
  id: string;
  link_id: number;
  merchant_id: number;
  livemode: boolean;
  /** Lower case. */
  email: string;
  code_hash: string;
  status: PaymentLinkVerificationStatus;
  wrong_attempts: Generated<number>;
  expires_at: Timestamp;
  created_at: Timestamp;
}
export type PaymentLinkVerificationRow = Selectable<PaymentLinkVerificationsTable>;

// The tables above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    payment_links: PaymentLinksTable;
    payment_link_invoices: PaymentLinkInvoicesTable;
    payment_link_verifications: PaymentLinkVerificationsTable;
  }
}
