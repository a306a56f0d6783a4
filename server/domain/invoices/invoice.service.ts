// Invoices: a merchant's own, or raised by a checkout session for its payer. Totals are exact
// (invoice.lines.ts). Paying, refunding and cancelling them is called by the flows that move the
// money (domain/checkout), which keep invoices and payments apart.
import { randomUUID } from 'node:crypto';
import { Decimal } from 'decimal.js';
import type { Kysely } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { InvoiceRow } from './invoice.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { newReference } from '../../shared/ids.js';
import { amountToDecimal, currencyCode } from '../../shared/money.js';
import { type Page, toPage } from '../../shared/pagination.js';
import { type Tenant, tenantOf } from '../../shared/tenant.js';
import type { EventType } from '../../shared/vocabulary.generated.js';
import { findOwnCustomer } from '../customers/customer.service.js';
import { writeEvent } from '../events/event.service.js';
import { emailInvoice, type InvoiceLinks } from './invoice-email.js';
import {
  addRefunded,
  cancelUnpaid,
  findInvoice,
  findInvoiceByIdentifier,
  findInvoices,
  type InvoiceFilter,
  insertInvoice,
  nextLineIds,
  updateInvoice,
} from './invoice.repository.js';
import { amountDue, computeInvoice, type LineInput } from './invoice.lines.js';

export type { InvoiceFilter };

/** Statuses in which an invoice can be paid (with something still due). */
export const PAYABLE_STATUSES = ['pending', 'sent', 'partially_paid', 'overdue'] as const;

const invalid = (param: string, message: string) => new AppError('validation_error', { param, message });

/** A new invoice, in the currency's units (amounts as exact decimal text or JSON numbers). */
export interface CreateInvoiceInput {
  /** One of the merchant's customers, or `customer`: the payer's details. */
  customerId?: number | undefined;
  customer?: { email: string; firstName?: string | undefined; lastName?: string | undefined } | undefined;
  currency: string;
  lineItems: { name: string; description?: string | undefined; quantity: number; unitAmount: number | string; taxRate?: number | undefined }[];
  /** Percent, for lines without their own. */
  taxRate?: number | undefined;
  discount?: number | string | undefined;
  dueDate?: string | Date | undefined;
  description?: string | undefined;
  notes?: string | undefined;
  metadata?: Record<string, string> | undefined;
  /** Email the payer a link to the invoice's page now (`sent`). */
  send?: boolean | undefined;
}

export { type InvoiceLinks, invoicePageUrl } from './invoice-email.js';

async function invoiceEvent(db: Db, clock: Clock, type: EventType, invoice: InvoiceRow): Promise<void> {
  await writeEvent(db, clock, { tenant: tenantOf(invoice), type, subject: { kind: 'invoice', invoice } });
}

/** The payer of a new invoice: one of the merchant's customers, or the details given. */
async function payerOf(db: Db, tenant: Tenant, input: CreateInvoiceInput) {
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
async function totalsOf(db: Db, currency: string, input: CreateInvoiceInput) {
  const lines: LineInput[] = input.lineItems.map((line, i) => ({
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
export async function createInvoice(db: Kysely<Database>, clock: Clock, links: InvoiceLinks, tenant: Tenant, input: CreateInvoiceInput): Promise<InvoiceRow> {
  const now = clock.now();
  const payer = await payerOf(db, tenant, input);
  if (input.dueDate !== undefined && new Date(input.dueDate).getTime() < now.getTime()) throw invalid('dueDate', 'dueDate must not be in the past.');
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
      due_date: input.dueDate === undefined ? null : new Date(input.dueDate),
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

/** Statuses an invoice can be emailed in; a draft or pending one becomes `sent`, the others keep theirs (a reminder). */
const SENDABLE_STATUSES = ['draft', 'pending', 'sent', 'partially_paid', 'overdue'];

/**
 * Emails the invoice to its payer (a link to pay it, its PDF attached) and writes `invoice.sent`:
 * a draft or pending invoice becomes `sent`; a sent, partially paid or overdue one is sent again
 * as a reminder. A paid, cancelled or expired one answers 409 `invalid_state`; one without a payer
 * email 400 `validation_error`.
 */
export async function sendInvoice(db: Kysely<Database>, clock: Clock, links: InvoiceLinks, tenant: Tenant, id: number): Promise<InvoiceRow> {
  return db.transaction().execute(async (trx) => {
    let invoice = await getInvoice(trx, tenant, id, { lock: true });
    if (!SENDABLE_STATUSES.includes(invoice.status)) throw new AppError('invalid_state', { message: `Invoice ${id} is ${invoice.status} and cannot be sent.` });
    if (!invoice.payer_email) throw invalid('customer.email', `Invoice ${id} has no payer email address to send it to.`);
    const first = invoice.status === 'draft' || invoice.status === 'pending';
    invoice = await updateInvoice(trx, tenant, id, { sent_at: clock.now(), ...(first ? { status: 'sent' } : {}) });
    await emailInvoice(trx, clock, links, invoice);
    return invoice;
  });
}

/** The tenant's invoice; 404 for anyone else's. */
export async function getInvoice(db: Db, tenant: Tenant, id: number, options: { lock?: boolean } = {}): Promise<InvoiceRow> {
  const invoice = await findInvoice(db, tenant, { id }, options);
  if (!invoice) throw new AppError('resource_not_found', { param: 'id', message: `No such invoice: ${id}.` });
  return invoice;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An invoice by its public identifier (a UUID), whoever owns it; 404 `invoice_not_found` tells nothing more. */
export async function getInvoiceByIdentifier(db: Db, identifier: string): Promise<InvoiceRow> {
  const invoice = UUID.test(identifier) ? await findInvoiceByIdentifier(db, identifier) : undefined;
  if (!invoice) throw new AppError('invoice_not_found', { param: 'identifier', message: 'No such invoice.' });
  return invoice;
}

/** The tenant's invoices, newest first, by the list filters. */
export async function listInvoices(db: Db, tenant: Tenant, filter: InvoiceFilter): Promise<Page<InvoiceRow>> {
  return toPage(await findInvoices(db, tenant, filter), filter.limit);
}

/**
 * Voids an unpaid invoice: `cancelled`, `voidedAt`, `invoice.voided`. A cancelled invoice is
 * returned unchanged with no event; a paid, partially paid or expired one answers 409.
 */
export async function voidInvoice(db: Kysely<Database>, clock: Clock, tenant: Tenant, id: number): Promise<InvoiceRow> {
  return db.transaction().execute(async (trx) => {
    const invoice = await getInvoice(trx, tenant, id, { lock: true });
    if (invoice.status === 'cancelled') return invoice;
    if (!['draft', 'pending', 'sent', 'overdue'].includes(invoice.status)) {
      throw new AppError('invalid_state', {
        message: `This invoice is ${invoice.status} and cannot be voided${invoice.status.includes('paid') ? '; refund it instead' : ''}.`,
      });
    }
    const voided = await updateInvoice(trx, tenant, id, { status: 'cancelled', voided_at: clock.now() });
    await invoiceEvent(trx, clock, 'invoice.voided', voided);
    return voided;
  });
}

/** Refuses an invoice that cannot be paid now: 409 `invoice_not_payable`. */
export function assertPayable(invoice: InvoiceRow): void {
  if (!(PAYABLE_STATUSES as readonly string[]).includes(invoice.status)) {
    throw new AppError('invoice_not_payable', { message: `This invoice is ${invoice.status} and cannot be paid.` });
  }
  if (amountDue(invoice).lessThanOrEqualTo(0)) throw new AppError('invoice_not_payable', { message: 'Nothing is due on this invoice.' });
}

/**
 * The invoice a checkout session is asked to pay, by id or pay-link reference: the tenant's
 * (otherwise 404 `invoice_not_found`), and payable.
 */
export async function findInvoiceToPay(
  db: Db,
  tenant: Tenant,
  by: { invoiceId?: number | undefined; invoiceReference?: string | undefined },
): Promise<InvoiceRow> {
  const invoice = await findInvoice(db, tenant, by.invoiceId !== undefined ? { id: by.invoiceId } : { reference: by.invoiceReference ?? '' });
  if (!invoice) {
    throw new AppError('invoice_not_found', {
      param: by.invoiceId !== undefined ? 'invoiceId' : 'invoiceReference',
      message: 'No such invoice for this merchant and mode.',
    });
  }
  assertPayable(invoice);
  return invoice;
}

/** An invoice a session pays, locked and still payable (an existing one may have been voided meanwhile). */
export async function lockPayableInvoice(trx: Trx, tenant: Tenant, id: number): Promise<InvoiceRow> {
  const invoice = await getInvoice(trx, tenant, id, { lock: true });
  assertPayable(invoice);
  return invoice;
}

/**
 * The session an invoice is raised for: its tenant, amount, lines and payer. A checkout session's
 * row is one; invoices, below checkout, names the columns it reads rather than the row's type.
 */
export interface InvoicedSession {
  id: string;
  merchant_id: number;
  livemode: boolean;
  amount: string;
  currency: string;
  description: string | null;
  line_items: { name: string; quantity: number; unitAmount: number; description?: string }[];
  customer_email: string | null;
  customer_first_name: string | null;
  customer_last_name: string | null;
  customer_phone: string | null;
  client_id: number | null;
}

/** Raises the invoice a one-time session pays for its payer (`pending`): the session's lines, or one line for its amount. */
export async function raiseSessionInvoice(trx: Trx, clock: Clock, session: InvoicedSession): Promise<InvoiceRow> {
  const lines: LineInput[] =
    session.line_items.length > 0
      ? session.line_items.map((item) => ({
          name: item.name,
          description: item.description,
          quantity: item.quantity,
          unitAmount: new Decimal(item.unitAmount.toString()).toFixed(),
        }))
      : [{ name: session.description ?? 'Checkout payment', quantity: 1, unitAmount: session.amount }];
  const computed = computeInvoice(session.currency, lines, await nextLineIds(trx, lines.length));
  return insertInvoice(trx, {
    merchant_id: session.merchant_id,
    livemode: session.livemode,
    identifier: randomUUID(),
    reference: newReference('INVREF'),
    invoice_number: newReference('INV'),
    status: 'pending',
    currency: session.currency,
    subtotal: session.amount,
    tax_amount: '0',
    discount: '0',
    total: session.amount,
    amount_paid: '0',
    amount_refunded: '0',
    payer_email: session.customer_email,
    payer_first_name: session.customer_first_name,
    payer_last_name: session.customer_last_name,
    payer_phone: session.customer_phone,
    customer_id: session.client_id,
    description: session.description,
    line_items: JSON.stringify(computed.lines),
    session_id: session.id,
    paid_at: null,
    created_at: clock.now(),
  });
}

/** Records a payment on a locked invoice: `paid` with `invoice.paid` once nothing is due, otherwise `partially_paid`. */
export async function payInvoice(trx: Trx, clock: Clock, invoice: InvoiceRow, amount: string): Promise<InvoiceRow> {
  const paid = new Decimal(invoice.amount_paid).plus(amount);
  const full = paid.greaterThanOrEqualTo(invoice.total);
  const updated = await updateInvoice(trx, tenantOf(invoice), invoice.id, {
    amount_paid: paid.toFixed(),
    status: full ? 'paid' : 'partially_paid',
    paid_at: full ? clock.now() : null,
  });
  if (full) await invoiceEvent(trx, clock, 'invoice.paid', updated);
  return updated;
}

/**
 * A captured hold pays the session's invoice: a session-raised invoice is lowered to the captured
 * amount (the rest shown as discount) and paid; an existing invoice the session pays records the
 * captured amount as paid (`partially_paid` when less than was due).
 */
export async function payInvoiceOnCapture(trx: Trx, clock: Clock, tenant: Tenant, invoiceId: number, authorized: string, captured: string): Promise<void> {
  const invoice = await getInvoice(trx, tenant, invoiceId, { lock: true });
  if (invoice.session_id === null) {
    await payInvoice(trx, clock, invoice, captured);
    return;
  }
  const lowered = await updateInvoice(trx, tenant, invoiceId, { total: captured, discount: new Decimal(authorized).minus(captured).toFixed() });
  await payInvoice(trx, clock, lowered, captured);
}

/** Cancels the invoice a session raised itself, when unpaid (release, lapse). An existing invoice a session was paying is left as it was. */
export const cancelSessionRaisedInvoice = (trx: Trx, tenant: Tenant, invoiceId: number): Promise<void> => cancelUnpaid(trx, tenant, { id: invoiceId });

/** Cancels the unpaid invoices a session raised (the session was cancelled). */
export const cancelInvoicesRaisedBy = (trx: Trx, tenant: Tenant, sessionId: string): Promise<void> => cancelUnpaid(trx, tenant, { sessionId });

/**
 * A card payment of a session that pays an existing invoice failed (declined, a processing error,
 * 3-D Secure failed): `invoice.payment_failed`. The invoice is unchanged and stays payable.
 */
export async function recordInvoicePaymentFailure(
  db: Db,
  clock: Clock,
  session: { pays_invoice: boolean; invoice_id: number | null; merchant_id: number; livemode: boolean },
): Promise<void> {
  if (!session.pays_invoice || session.invoice_id === null) return;
  const invoice = await getInvoice(db, tenantOf(session), session.invoice_id);
  await invoiceEvent(db, clock, 'invoice.payment_failed', invoice);
}

/** After a refund of a payment on an invoice: the refunded amount recorded on it, and `invoice.refunded`. */
export async function recordInvoiceRefund(trx: Trx, clock: Clock, tenant: Tenant, invoiceId: number, amount: string): Promise<void> {
  const invoice = await addRefunded(trx, tenant, invoiceId, amount);
  await invoiceEvent(trx, clock, 'invoice.refunded', invoice);
}

/** The first invoice of a subscription becomes its invoice for the first period. */
export async function linkToSubscription(
  trx: Trx,
  tenant: Tenant,
  invoiceId: number,
  link: { subscriptionId: number; customerId: number | null; periodStart: Date; periodEnd: Date },
): Promise<void> {
  await updateInvoice(trx, tenant, invoiceId, {
    subscription_id: link.subscriptionId,
    customer_id: link.customerId,
    period_start: link.periodStart,
    period_end: link.periodEnd,
    due_date: link.periodStart,
  });
}
