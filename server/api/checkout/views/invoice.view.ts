import { Decimal } from 'decimal.js';
import type { components } from '../../../../generated/checkout.js';
import type { NewInvoice } from '../../../domain/invoices/invoice-create.js';
import type { InvoiceRow } from '../../../domain/invoices/invoice.tables.js';
import { amountDue, type InvoiceLine } from '../../../domain/invoices/invoice.lines.js';
import type { InvoiceRefundOutcome } from '../../../domain/invoice-payments/invoice-refund.js';
import { decimalToAmount } from '../../../shared/money.js';
import { INVOICE_STATUS } from '../../commerce/wire-values.js';
import { refundResultView } from './payment.view.js';

type Schemas = components['schemas'];

const PASCAL: Readonly<Record<string, Schemas['InvoiceEventObject']['status']>> = INVOICE_STATUS;

/** A stored line as the wire line. Lines of sessions raised before lines had ids are numbered by position. */
function lineView(
  line: Partial<InvoiceLine> & { name: string; quantity: number; unitAmount: string | number },
  index: number,
  currency: string,
): Schemas['InvoiceLineItem'] {
  const unit = line.unitAmount.toString();
  // Exact: lines stored before they carried their own totals are computed in decimals.
  const subtotal = line.subtotal ?? new Decimal(unit).times(line.quantity.toString()).toFixed();
  return {
    id: line.id ?? index + 1,
    name: line.name,
    description: line.description ?? null,
    quantity: line.quantity,
    unitAmount: decimalToAmount(unit, currency),
    taxRate: line.taxRate ?? null,
    subtotal: decimalToAmount(subtotal, currency),
    taxAmount: decimalToAmount(line.taxAmount ?? '0', currency),
    total: decimalToAmount(line.total ?? subtotal, currency),
  };
}

/** An invoice as the Checkout & Billing interface shows it: numbers, snake_case statuses, its hosted page and PDF links. */
export function invoiceView(invoice: InvoiceRow, publicBaseUrl: string): Schemas['Invoice'] {
  const money = (value: string) => decimalToAmount(value, invoice.currency);
  return {
    id: invoice.id,
    object: 'invoice',
    invoiceNumber: invoice.invoice_number,
    reference: invoice.reference,
    identifier: invoice.identifier,
    status: invoice.status as Schemas['InvoiceStatus'],
    currency: invoice.currency,
    description: invoice.description,
    notes: invoice.notes,
    customerId: invoice.customer_id,
    customer: { email: invoice.payer_email, firstName: invoice.payer_first_name, lastName: invoice.payer_last_name },
    subscriptionId: invoice.subscription_id,
    lineItems: (invoice.line_items as InvoiceLine[]).map((line, i) => lineView(line, i, invoice.currency)),
    taxRate: invoice.tax_rate === null ? null : Number(invoice.tax_rate),
    subtotal: money(invoice.subtotal),
    taxAmount: money(invoice.tax_amount),
    discount: money(invoice.discount),
    total: money(invoice.total),
    amountDue: money(amountDue(invoice).toFixed()),
    amountPaid: money(invoice.amount_paid),
    amountRefunded: money(invoice.amount_refunded),
    dueDate: invoice.due_date ? invoice.due_date.toISOString() : null,
    paidAt: invoice.paid_at ? invoice.paid_at.toISOString() : null,
    voidedAt: invoice.voided_at ? invoice.voided_at.toISOString() : null,
    hostedUrl: `${publicBaseUrl}/invoice/${invoice.identifier}`,
    pdfUrl: `${publicBaseUrl}/v1/invoices/${invoice.id}/pdf`,
    livemode: invoice.livemode,
    createdAt: invoice.created_at.toISOString(),
    metadata: invoice.metadata,
  };
}

/** The `invoice` object of `invoice.*` events (statuses in PascalCase). */
export function invoiceEventObject(invoice: InvoiceRow): Schemas['InvoiceEventObject'] {
  const money = (value: string) => decimalToAmount(value, invoice.currency);
  return {
    object: 'invoice',
    id: invoice.id,
    invoiceNumber: invoice.invoice_number,
    identifier: invoice.identifier,
    reference: invoice.reference,
    status: PASCAL[invoice.status] ?? 'Pending',
    total: money(invoice.total),
    amountDue: money(amountDue(invoice).toFixed()),
    amountPaid: money(invoice.amount_paid),
    amountRefunded: money(invoice.amount_refunded),
    currency: invoice.currency,
    dueDate: invoice.due_date ? invoice.due_date.toISOString() : null,
    subscriptionId: invoice.subscription_id,
    customerEmail: invoice.payer_email,
    isLive: invoice.livemode,
    createdAt: invoice.created_at.toISOString(),
  };
}

const INVOICE_STATUSES: readonly Schemas['InvoiceStatus'][] = [
  'draft',
  'pending',
  'sent',
  'partially_paid',
  'paid',
  'overdue',
  'cancelled',
  'expired',
  'rejected',
];

/** An invoice a subscription raised, as its invoice list shows it. */
export const subscriptionInvoiceView = (i: InvoiceRow): Schemas['SubscriptionInvoice'] => ({
  id: i.id,
  object: 'invoice',
  invoiceNumber: i.invoice_number,
  status: INVOICE_STATUSES.find((s) => s === i.status) ?? 'pending',
  amount: decimalToAmount(i.total, i.currency),
  amountPaid: decimalToAmount(i.amount_paid, i.currency),
  currency: i.currency,
  periodStart: (i.period_start ?? i.created_at).toISOString(),
  periodEnd: (i.period_end ?? i.created_at).toISOString(),
  dueDate: (i.due_date ?? i.created_at).toISOString(),
});

/** What an invoice refund did: the invoice's totals, and each payment it refunded (newest first). */
export const invoiceRefundView = (outcome: InvoiceRefundOutcome): Schemas['InvoiceRefundResult'] => ({
  object: 'invoice_refund',
  invoiceId: outcome.invoice.id,
  currency: outcome.invoice.currency,
  alreadyRefunded: outcome.alreadyRefunded,
  refundAmount: decimalToAmount(outcome.amount, outcome.invoice.currency),
  amountRefunded: decimalToAmount(outcome.invoice.amount_refunded, outcome.invoice.currency),
  amountRefundable: decimalToAmount(outcome.refundable, outcome.invoice.currency),
  refunds: outcome.refunds.map(refundResultView),
});

/** A create request as the domain's new invoice: amounts as exact decimal text (the text amountToDecimal read the numbers through), the due date as a Date. */
export function newInvoiceOf(body: Schemas['InvoiceCreateRequest']): NewInvoice {
  const { lineItems, discount, dueDate, ...rest } = body;
  return {
    ...rest,
    lineItems: lineItems.map((line) => ({ ...line, unitAmount: String(line.unitAmount) })),
    discount: discount === undefined ? undefined : String(discount),
    dueDate: dueDate === undefined ? undefined : new Date(dueDate),
  };
}
