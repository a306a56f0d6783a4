import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Json, Numeric, Timestamp } from '../columns.js';

/** An invoice: raised by a one-time session for its payer, or created by the merchant. Lines are kept as JSON (`InvoiceLine`). */
export interface InvoicesTable {
  id: Generated<number>;
  merchant_id: number;
  livemode: boolean;
  identifier: string;
  reference: string;
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
}
export type InvoiceRow = Selectable<InvoicesTable>;
