import { randomUUID } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { type Kysely, sql, type Transaction } from 'kysely';
import type { components } from '../../../generated/checkout.js';
import type { Clock } from '../../shared/clock.js';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../shared/errors.js';
import { writeEvent } from '../events/event.service.js';
import { recordMessage } from '../messages/message.service.js';
import type { InvoiceRow } from '../../db/tables/payments.js';
import { newReference } from '../../shared/ids.js';
import { amountToDecimal } from '../../shared/money.js';
import { type PageRequest, toPage } from '../../shared/pagination.js';
import type { Caller } from '../sessions/session.repository.js';
import type { CheckoutSessionRow } from '../../db/tables/checkout-sessions.js';
import { amountDue, computeInvoice, type LineInput } from './invoice.lines.js';
import { invoiceEventObject } from './invoice.mapper.js';

type Schemas = components['schemas'];
type Db = Kysely<Database> | Transaction<Database>;

/** Statuses in which an invoice can be paid (with something still due). */
export const PAYABLE_STATUSES = ['pending', 'sent', 'partially_paid', 'overdue'] as const;

const invalid = (param: string, message: string) => new AppError('validation_error', { param, message });

/** Ids for new invoice lines, from one sequence. */
async function lineIds(db: Db, count: number): Promise<number[]> {
  if (count === 0) return [];
  const { rows } = await sql<{ id: number }>`SELECT nextval('invoice_line_ids')::int AS id FROM generate_series(1, ${count})`.execute(db);
  return rows.map((r) => r.id);
}

async function invoiceEvent(trx: Db, clock: Clock, type: string, invoice: InvoiceRow): Promise<void> {
  await writeEvent(trx, clock, { merchantId: invoice.merchant_id, livemode: invoice.livemode, type, object: invoiceEventObject(invoice) });
}

/**
 * Creates a merchant's invoice in the key's mode, `pending` (payable), or `sent` with `send`:
 * exactly one of `customerId` (one of the merchant's customers) and `customer` (payer details),
 * a due date not in the past, a discount no larger than subtotal plus tax. Totals are exact.
 * `send` emails the payer a link to the invoice's page (the message outbox).
 */
export async function createInvoice(db: Kysely<Database>, clock: Clock, publicBaseUrl: string, caller: Caller, input: Schemas['InvoiceCreateRequest']): Promise<InvoiceRow> {
  const now = clock.now();
  if (input.customerId !== undefined && input.customer !== undefined) throw invalid('customer', 'Send either customerId or customer, not both.');
  if (input.customerId === undefined && input.customer === undefined) throw invalid('customerId', 'Send customerId (one of your customers) or customer (the payer\'s details).');
  let payer: { email: string | null; firstName: string | null; lastName: string | null };
  if (input.customerId !== undefined) {
    const customer = await db.selectFrom('customers').select(['email', 'name']).where('merchant_id', '=', caller.merchantId).where('id', '=', input.customerId).executeTakeFirst();
    if (!customer) throw invalid('customerId', 'customerId must be one of your customers.');
    const [first, ...rest] = (customer.name ?? '').trim().split(/\s+/);
    payer = { email: customer.email, firstName: first || null, lastName: rest.length > 0 ? rest.join(' ') : null };
  } else {
    payer = { email: input.customer!.email, firstName: input.customer!.firstName ?? null, lastName: input.customer!.lastName ?? null };
  }
  if (input.dueDate !== undefined && new Date(input.dueDate).getTime() < now.getTime()) throw invalid('dueDate', 'dueDate must not be in the past.');
  if (input.send && !payer.email) throw invalid('send', 'The invoice has no payer email to send it to.');

  const currency = input.currency.toUpperCase();
  const lines: LineInput[] = input.lineItems.map((line, i) => ({
    name: line.name,
    description: line.description,
    quantity: line.quantity,
    unitAmount: amountToDecimal(line.unitAmount, currency, `lineItems[${i}].unitAmount`),
    taxRate: line.taxRate,
  }));
  const discount = input.discount === undefined ? undefined : amountToDecimal(input.discount, currency, 'discount');
  const totals = computeInvoice(currency, lines, await lineIds(db, lines.length), { taxRate: input.taxRate, discount });
  if (new Decimal(totals.total).isNegative()) {
    const gross = new Decimal(totals.subtotal).plus(totals.taxAmount).toFixed();
    throw invalid('discount', `discount (${totals.discount}) is more than the invoice's subtotal plus tax (${gross}).`);
  }

  return db.transaction().execute(async (trx) => {
    const invoice = await trx
      .insertInto('invoices')
      .values({
        merchant_id: caller.merchantId,
        livemode: caller.livemode,
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
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    if (input.send) {
      await recordMessage(trx, clock, {
        merchantId: invoice.merchant_id,
        livemode: invoice.livemode,
        channel: 'email',
        kind: 'invoice',
        to: payer.email!,
        subject: `Invoice ${invoice.invoice_number}`,
        body: `Invoice ${invoice.invoice_number}: ${totals.total} ${currency} due${invoice.due_date ? ` by ${invoice.due_date.toISOString().slice(0, 10)}` : ''}. Pay it at ${publicBaseUrl}/invoice/${invoice.identifier}`,
      });
      await invoiceEvent(trx, clock, 'invoice.sent', invoice);
    }
    return invoice;
  });
}

/** The caller's invoice in the key's mode; 404 for anyone else's. */
export async function getInvoice(db: Db, caller: Caller, id: number, options: { lock?: boolean } = {}): Promise<InvoiceRow> {
  let query = db.selectFrom('invoices').selectAll().where('id', '=', id).where('merchant_id', '=', caller.merchantId).where('livemode', '=', caller.livemode);
  if (options.lock) query = query.forUpdate();
  const invoice = await query.executeTakeFirst();
  if (!invoice) throw new AppError('resource_not_found', { param: 'id', message: `No such invoice: ${id}.` });
  return invoice;
}

/** The caller's invoices in the key's mode, newest first, by the list filters. */
export async function listInvoices(db: Kysely<Database>, caller: Caller, page: PageRequest & { reference?: string; status?: string; customerId?: number }) {
  let query = db.selectFrom('invoices').selectAll().where('merchant_id', '=', caller.merchantId).where('livemode', '=', caller.livemode);
  if (page.reference !== undefined) query = query.where('reference', '=', page.reference);
  if (page.status !== undefined) query = query.where('status', '=', page.status);
  if (page.customerId !== undefined) query = query.where('customer_id', '=', page.customerId);
  if (page.startingAfter !== undefined) query = query.where('id', '<', page.startingAfter);
  return toPage(await query.orderBy('id', 'desc').limit(page.limit + 1).execute(), page.limit);
}

/**
 * Voids an unpaid invoice: `cancelled`, `voidedAt`, `invoice.voided`. A cancelled invoice is
 * returned unchanged with no event; a paid, partially paid or expired one answers 409.
 */
export async function voidInvoice(db: Kysely<Database>, clock: Clock, caller: Caller, id: number): Promise<InvoiceRow> {
  return db.transaction().execute(async (trx) => {
    const invoice = await getInvoice(trx, caller, id, { lock: true });
    if (invoice.status === 'cancelled') return invoice;
    if (!['draft', 'pending', 'sent', 'overdue'].includes(invoice.status)) {
      throw new AppError('invalid_state', { message: `This invoice is ${invoice.status} and cannot be voided${invoice.status.includes('paid') ? '; refund it instead' : ''}.` });
    }
    const voided = await trx.updateTable('invoices').set({ status: 'cancelled', voided_at: clock.now() }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
    await invoiceEvent(trx, clock, 'invoice.voided', voided);
    return voided;
  });
}

/** Refuses an invoice that cannot be paid now (creation rule 6): 409 `invoice_not_payable`. */
export function assertPayable(invoice: InvoiceRow): void {
  if (!(PAYABLE_STATUSES as readonly string[]).includes(invoice.status)) {
    throw new AppError('invoice_not_payable', { message: `This invoice is ${invoice.status} and cannot be paid.` });
  }
  if (amountDue(invoice).lessThanOrEqualTo(0)) throw new AppError('invoice_not_payable', { message: 'Nothing is due on this invoice.' });
}

/**
 * The invoice a checkout session is asked to pay (creation rule 6), by id or pay-link reference:
 * the caller's, in the key's mode (otherwise 404 `invoice_not_found`), and payable.
 */
export async function findInvoiceToPay(db: Db, caller: Caller, by: { invoiceId?: number | undefined; invoiceReference?: string | undefined }): Promise<InvoiceRow> {
  let query = db.selectFrom('invoices').selectAll().where('merchant_id', '=', caller.merchantId).where('livemode', '=', caller.livemode);
  query = by.invoiceId !== undefined ? query.where('id', '=', by.invoiceId) : query.where('reference', '=', by.invoiceReference ?? '');
  const invoice = await query.executeTakeFirst();
  if (!invoice) {
    throw new AppError('invoice_not_found', { param: by.invoiceId !== undefined ? 'invoiceId' : 'invoiceReference', message: 'No such invoice for this merchant and mode.' });
  }
  assertPayable(invoice);
  return invoice;
}

/**
 * The invoice a session's payment goes to. A session paying an existing invoice uses that one
 * (locked, and still payable for exactly the session's amount); any other one-time session
 * raises its own invoice for its payer. `paid` pays it now; `pending` leaves it to the capture.
 */
export async function invoiceForSessionPayment(trx: Transaction<Database>, clock: Clock, session: CheckoutSessionRow, status: 'paid' | 'pending'): Promise<InvoiceRow> {
  const now = clock.now();
  if (session.pays_invoice && session.invoice_id !== null) {
    const invoice = await trx.selectFrom('invoices').selectAll().where('id', '=', session.invoice_id).forUpdate().executeTakeFirstOrThrow();
    assertPayable(invoice);
    if (!amountDue(invoice).equals(new Decimal(session.amount))) {
      throw new AppError('invoice_not_payable', { message: 'The amount due on this invoice changed since the session was created; create a new session.' });
    }
    return status === 'paid' ? payInvoice(trx, clock, invoice, session.amount) : invoice;
  }
  const lines: LineInput[] =
    session.line_items.length > 0
      ? session.line_items.map((item) => ({ name: item.name, description: item.description, quantity: item.quantity, unitAmount: new Decimal(item.unitAmount.toString()).toFixed() }))
      : [{ name: session.description ?? 'Checkout payment', quantity: 1, unitAmount: session.amount }];
  const computed = computeInvoice(session.currency, lines, await lineIds(trx, lines.length));
  const invoice = await trx
    .insertInto('invoices')
    .values({
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
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return status === 'paid' ? payInvoice(trx, clock, invoice, session.amount) : invoice;
}

/** Records a payment on a locked invoice: `paid` with `invoice.paid` once nothing is due, otherwise `partially_paid`. */
export async function payInvoice(trx: Transaction<Database>, clock: Clock, invoice: InvoiceRow, amount: string): Promise<InvoiceRow> {
  const paid = new Decimal(invoice.amount_paid).plus(amount);
  const full = paid.greaterThanOrEqualTo(invoice.total);
  const updated = await trx
    .updateTable('invoices')
    .set({ amount_paid: paid.toFixed(), status: full ? 'paid' : 'partially_paid', paid_at: full ? clock.now() : null })
    .where('id', '=', invoice.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  if (full) await invoiceEvent(trx, clock, 'invoice.paid', updated);
  return updated;
}

/**
 * A captured hold pays the session's invoice: a session-raised invoice is lowered to the
 * captured amount (the rest shown as discount) and paid; an existing invoice the session pays
 * records the captured amount as paid (`partially_paid` when less than was due).
 */
export async function payInvoiceOnCapture(trx: Transaction<Database>, clock: Clock, invoiceId: number, authorized: string, captured: string): Promise<void> {
  const invoice = await trx.selectFrom('invoices').selectAll().where('id', '=', invoiceId).forUpdate().executeTakeFirstOrThrow();
  if (invoice.session_id === null) {
    await payInvoice(trx, clock, invoice, captured);
    return;
  }
  const lowered = await trx
    .updateTable('invoices')
    .set({ total: captured, discount: new Decimal(authorized).minus(captured).toFixed() })
    .where('id', '=', invoiceId)
    .returningAll()
    .executeTakeFirstOrThrow();
  await payInvoice(trx, clock, lowered, captured);
}

/** Cancels the invoice a session raised itself, when unpaid (release, lapse, cancel). An existing invoice the session was paying is left as it was. */
export async function cancelSessionRaisedInvoice(trx: Transaction<Database>, invoiceId: number): Promise<void> {
  await trx.updateTable('invoices').set({ status: 'cancelled' }).where('id', '=', invoiceId).where('session_id', 'is not', null).where('status', 'in', ['pending', 'sent']).execute();
}

/**
 * A card payment of a session that pays an existing invoice failed (declined, a processing error,
 * 3-D Secure failed): `invoice.payment_failed`. The invoice is unchanged and stays payable.
 */
export async function recordInvoicePaymentFailure(trx: Db, clock: Clock, session: Pick<CheckoutSessionRow, 'pays_invoice' | 'invoice_id'>): Promise<void> {
  if (!session.pays_invoice || session.invoice_id === null) return;
  const invoice = await trx.selectFrom('invoices').selectAll().where('id', '=', session.invoice_id).executeTakeFirstOrThrow();
  await invoiceEvent(trx, clock, 'invoice.payment_failed', invoice);
}

/** After a refund of a payment on an invoice: the refunded amount recorded on it, and `invoice.refunded`. */
export async function recordInvoiceRefund(trx: Transaction<Database>, clock: Clock, invoiceId: number, amount: string): Promise<void> {
  const invoice = await trx
    .updateTable('invoices')
    .set({ amount_refunded: sql`amount_refunded + ${amount}::numeric` })
    .where('id', '=', invoiceId)
    .returningAll()
    .executeTakeFirstOrThrow();
  await invoiceEvent(trx, clock, 'invoice.refunded', invoice);
}
