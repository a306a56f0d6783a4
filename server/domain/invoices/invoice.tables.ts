import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Json, Numeric, Timestamp } from '../../db/columns.js';

/** An invoice: raised by a one-time session for its payer, or created by the merchant. Lines are kept as JSON (`InvoiceLine`). */
export interface InvoicesTable {
  id: Generated<number>;
  merchant_id: number;
  livemode: boolean;
  identifier: string;
  /** The merchant's reference: unique per merchant and mode, never a public key. */
  reference: string;
  /** The public code `getByReference` takes: 128 random bits, URL-safe base64, the column's default (never chosen by a caller). */
  public_code: ColumnType<string, never, never>;
  invoice_number: string;
  status: string;
  currency: string;
  subtotal: Numeric;
  tax_amount: Numeric;
  discount: Numeric;
  total: Numeric;
  amount_paid: Numeric;
  amount_refunded: Numeric;
  payer_email: string | null;
  payer_first_name: string | null;
  payer_last_name: string | null;
  payer_phone: string | null;
  description: string | null;
  line_items: Json<unknown[]>;
  /** The session that raised this invoice (null for a merchant's own invoice). */
  session_id: string | null;
  paid_at: Timestamp | null;
  customer_id: Generated<number | null>;
  notes: Generated<string | null>;
  /** Invoice-wide tax rate in percent. */
  tax_rate: ColumnType<string | null, string | null | undefined, string | null>;
  due_date: Generated<Date | null>;
  sent_at: Generated<Date | null>;
  voided_at: Generated<Date | null>;
  payment_option_group_id: Generated<number | null>;
  metadata: ColumnType<Record<string, string>, string | undefined, string>;
  created_at: Timestamp;
  /** The subscription that raised it, and the billing period it covers (subscription invoices only). */
  subscription_id: number | null;
  period_start: Timestamp | null;
  period_end: Timestamp | null;
  /** Shipping on the whole invoice (Commerce). */
  shipping_cost: ColumnType<string, string | undefined, string>;
  /** Not payable before; `expired` after (Commerce; null: no limit). */
  valid_from: Generated<Date | null>;
  valid_to: Generated<Date | null>;
  success_url: Generated<string | null>;
  cancel_url: Generated<string | null>;
  /** The payer's address and other details beyond name, email and phone (`PayerAddress`), or null. */
  /** `total` - `amount_paid`, at least 0 (a generated column). */
  total_due: ColumnType<string, never, never>;
  payer_address: ColumnType<PayerAddress | null, string | null | undefined, string | null>;
  /** The merchant location that issued it (the primary one unless the merchant named another). */
  merchant_location_id: ColumnType<number | null, number | null | undefined, number | null>;
}

/** The payer's address on a Commerce invoice. */
export interface PayerAddress {
  addressLine1?: string | undefined;
  addressLine2?: string | undefined;
  city?: string | undefined;
  region?: string | undefined;
  postalCode?: string | undefined;
  country?: string | undefined;
}
export type InvoiceRow = Selectable<InvoicesTable>;

// The tables above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    invoices: InvoicesTable;
  }
}

// What this module's events keep (the events module's list of subjects, by declaration merging).
declare module '../events/subjects.js' {
  interface EventSubjects {
    invoice: { invoice: InvoiceRow };
  }
}
