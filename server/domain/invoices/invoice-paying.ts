// An invoice as money moves it: whether it can be paid, the invoice a checkout session raises for
// its payer, a payment or a captured hold recorded on it, its cancellation when a session ends
// unpaid, a failed payment, a refund, and the first invoice of a subscription. The flows that move
// the money (domain/checkout, invoice-payments, billing) call these; invoices never call them back.
import { randomUUID } from 'node:crypto';
import { Decimal } from 'decimal.js';
import type { Db, Trx } from '../../db/database.js';
import type { InvoiceRow } from './invoice.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { newReference } from '../../shared/ids.js';
import { type Tenant, tenantOf } from '../../shared/tenant.js';
import { getInvoice, invoiceEvent } from './invoice.service.js';
import { addRefunded, cancelUnpaid, findInvoice, insertInvoice, nextLineIds, updateInvoice } from './invoice.repository.js';
import { amountDue, computeInvoice, type NewInvoiceLine } from './invoice.lines.js';

/** Statuses in which an invoice can be paid (with something still due). */
export const PAYABLE_STATUSES = ['pending', 'sent', 'partially_paid', 'overdue'] as const;

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

/**
 * Raises the invoice a one-time session pays for its payer: the session's lines, or one line for
 * its amount. `pending`, or with `paid` already paid in full (what payInvoice would make of it,
 * `invoice.paid` included) in the one insert. `returnUrls` are the payer's pages after paying.
 */
export async function raiseSessionInvoice(
  trx: Trx,
  clock: Clock,
  session: InvoicedSession,
  {
    returnUrls = { success_url: null, cancel_url: null },
    paid = false,
  }: { returnUrls?: { success_url: string | null; cancel_url: string | null }; paid?: boolean } = {},
): Promise<InvoiceRow> {
  const lines: NewInvoiceLine[] =
    session.line_items.length > 0
      ? session.line_items.map((item) => ({
          name: item.name,
          description: item.description,
          quantity: item.quantity,
          unitAmount: new Decimal(item.unitAmount.toString()).toFixed(),
        }))
      : [{ name: session.description ?? 'Checkout payment', quantity: 1, unitAmount: session.amount }];
  const computed = computeInvoice(session.currency, lines, await nextLineIds(trx, lines.length));
  const now = clock.now();
  const invoice = await insertInvoice(trx, {
    merchant_id: session.merchant_id,
    livemode: session.livemode,
    identifier: randomUUID(),
    reference: newReference('INVREF'),
    invoice_number: newReference('INV'),
    status: paid ? 'paid' : 'pending',
    currency: session.currency,
    subtotal: session.amount,
    tax_amount: '0',
    discount: '0',
    total: session.amount,
    amount_paid: paid ? session.amount : '0',
    amount_refunded: '0',
    payer_email: session.customer_email,
    payer_first_name: session.customer_first_name,
    payer_last_name: session.customer_last_name,
    payer_phone: session.customer_phone,
    customer_id: session.client_id,
    description: session.description,
    line_items: JSON.stringify(computed.lines),
    session_id: session.id,
    paid_at: paid ? now : null,
    created_at: now,
    ...returnUrls,
  });
  if (paid) await invoiceEvent(trx, clock, 'invoice.paid', invoice);
  return invoice;
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
