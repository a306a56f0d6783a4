// Creating a merchant's invoice (the Checkout interface's `/v1/invoices`): its payer (one of the
// merchant's customers, or the details given), exact lines and totals (invoice.lines.ts), a
// discount no larger than subtotal plus tax, and, when asked, the email that sends it.
import { randomUUID } from 'node:crypto';
import { Decimal } from 'decimal.js';
import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { InvoiceRow } from './invoice.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { newReference } from '../../shared/ids.js';
import { amountToDecimal, currencyCode } from '../../shared/money.js';
import type { Tenant } from '../../shared/tenant.js';
import { findOwnCustomer } from '../customers/customer.service.js';
import { emailInvoice, type InvoiceLinks } from './invoice-email.js';
import { insertInvoice, nextLineIds } from './invoice.repository.js';
import { computeInvoice, type NewInvoiceLine } from './invoice.lines.js';

const invalid = (param: string, message: string) => new AppError('validation_error', { param, message });

/** A new invoice: amounts in the currency's units as exact decimal text, the due date as a Date. */
export interface NewInvoice {
  /** One of the merchant's customers, or `customer`: the payer's details. */
  customerId?: number | undefined;
  customer?: { email: string; firstName?: string | undefined; lastName?: string | undefined } | undefined;
  currency: string;
  lineItems: { name: string; description?: string | undefined; quantity: number; unitAmount: string; taxRate?: number | undefined }[];
  /** Percent, for lines without their own. */
  taxRate?: number | undefined;
  discount?: string | undefined;
  dueDate?: Date | undefined;
  description?: string | undefined;
  notes?: string | undefined;
  metadata?: Record<string, string> | undefined;
  /** Email the payer a link to the invoice's page now (`sent`). */
  send?: boolean | undefined;
}

/** The payer of a new invoice: one of the merchant's customers, or the details given. */
async function payerOf(db: Db, tenant: Tenant, input: NewInvoice) {
  if (input.customerId !== undefined && input.customer !== undefined) throw invalid('customer', 'Send either customerId or customer, not both.');
  if (input.customerId === undefined && input.customer === undefined)
    throw invalid('customerId', "Send customerId (one of your customers) or customer (the payer's details).");
  if (input.customerId === undefined)
    return { email: input.customer!.email, firstName: input.customer!.firstName ?? null, lastName: input.customer!.lastName ?? null };
  const customer = await findOwnCustomer(db, tenant, input.customerId);
  if (!customer) throw invalid('customerId', 'customerId must be one of your customers.');
  const [first, ...rest] = (customer.name ?? '').trim().split(/\s+/);
  return { email: customer.email, firstName: first || null, lastName: rest.length > 0 ? rest.join(' ') : null };
}

/** Lines and totals of a new invoice, exactly; a discount may not exceed subtotal plus tax. */
async function totalsOf(db: Db, currency: string, input: NewInvoice) {
  const lines: NewInvoiceLine[] = input.lineItems.map((line, i) => ({
    name: line.name,
    description: line.description,
    quantity: line.quantity,
    unitAmount: amountToDecimal(line.unitAmount, currency, `lineItems[${i}].unitAmount`),
    taxRate: line.taxRate,
  }));
  const discount = input.discount === undefined ? undefined : amountToDecimal(input.discount, currency, 'discount');
  const totals = computeInvoice(currency, lines, await nextLineIds(db, lines.length), { taxRate: input.taxRate, discount });
  if (new Decimal(totals.total).isNegative()) {
    const gross = new Decimal(totals.subtotal).plus(totals.taxAmount).toFixed();
    throw invalid('discount', `discount (${totals.discount}) is more than the invoice's subtotal plus tax (${gross}).`);
  }
  return totals;
}

/**
 * Creates a merchant's invoice in the tenant's mode, `pending` (payable), or `sent` with `send`:
 * exactly one of `customerId` and `customer`, a due date not in the past. `send` emails the payer a
 * link to the invoice's page (the message outbox) and writes `invoice.sent`.
 */
export async function createInvoice(db: Kysely<Database>, clock: Clock, links: InvoiceLinks, tenant: Tenant, input: NewInvoice): Promise<InvoiceRow> {
  const now = clock.now();
  const payer = await payerOf(db, tenant, input);
  if (input.dueDate !== undefined && input.dueDate.getTime() < now.getTime()) throw invalid('dueDate', 'dueDate must not be in the past.');
  if (input.send && !payer.email) throw invalid('send', 'The invoice has no payer email to send it to.');
  const currency = currencyCode(input.currency);
  const totals = await totalsOf(db, currency, input);
  return db.transaction().execute(async (trx) => {
    const invoice = await insertInvoice(trx, {
      merchant_id: tenant.merchantId,
      livemode: tenant.livemode,
      identifier: randomUUID(),
      reference: newReference('INVREF'),
      invoice_number: newReference('INV'),
      status: input.send ? 'sent' : 'pending',
      currency,
      subtotal: totals.subtotal,
      tax_amount: totals.taxAmount,
      discount: totals.discount,
      total: totals.total,
      amount_paid: '0',
      amount_refunded: '0',
      payer_email: payer.email,
      payer_first_name: payer.firstName,
      payer_last_name: payer.lastName,
      payer_phone: null,
      description: input.description ?? null,
      notes: input.notes ?? null,
      customer_id: input.customerId ?? null,
      tax_rate: input.taxRate === undefined ? null : input.taxRate.toString(),
      due_date: input.dueDate ?? null,
      sent_at: input.send ? now : null,
      line_items: JSON.stringify(totals.lines),
      metadata: JSON.stringify(input.metadata ?? {}),
      session_id: null,
      paid_at: null,
      created_at: now,
    });
    if (input.send) await emailInvoice(trx, clock, links, invoice);
    return invoice;
  });
}
