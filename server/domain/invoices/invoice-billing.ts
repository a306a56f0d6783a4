// Invoices that billing raises (a subscription's period, a plan change's proration), and the sweep
// that marks any invoice past its due date: `overdue` and `invoice.past_due`.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { InvoiceRow } from './invoice.tables.js';
import type { Clock } from '../../shared/clock.js';
import { type DueScope, GLOBAL_SCOPE, scopedClock } from '../../shared/due-scope.js';
import { newReference } from '../../shared/ids.js';
import { type Tenant, tenantOf } from '../../shared/tenant.js';
import { writeEvent } from '../events/event.service.js';
import { computeInvoice, type NewInvoiceLine } from './invoice.lines.js';
import { findDueUnpaidInvoices, insertInvoice, markOverdueIfUnpaid, nextLineIds, nextUnpaidInvoiceDue, updateInvoice } from './invoice.repository.js';

/** An invoice a subscription raises: its lines, a credit taken off, the period it covers and its payer. */
export interface BillingInvoice {
  tenant: Tenant;
  subscriptionId: number;
  customer: { id: number; email: string | null; name: string | null };
  currency: string;
  lines: NewInvoiceLine[];
  /** Credit taken off the lines (exact decimal text); at most their total. */
  credit: string;
  periodStart: Date;
  periodEnd: Date;
  /** When it is due: its period's start unless said (an invoice of usage, billed after its period, is due when raised). */
  dueDate?: Date | undefined;
  description: string;
}

/** Raises a subscription's invoice, `pending` and due at its period's start (it is charged at once); a credit shows as its discount. */
export async function raiseBillingInvoice(trx: Trx, clock: Clock, input: BillingInvoice): Promise<InvoiceRow> {
  const totals = computeInvoice(input.currency, input.lines, await nextLineIds(trx, input.lines.length), { discount: input.credit });
  const [first, ...rest] = (input.customer.name ?? '').trim().split(/\s+/);
  const now = clock.now();
  return insertInvoice(trx, {
    merchant_id: input.tenant.merchantId,
    livemode: input.tenant.livemode,
    identifier: randomUUID(),
    reference: newReference('INVREF'),
    invoice_number: newReference('INV'),
    status: 'pending',
    currency: input.currency,
    subtotal: totals.subtotal,
    tax_amount: totals.taxAmount,
    discount: totals.discount,
    total: totals.total,
    amount_paid: '0',
    amount_refunded: '0',
    payer_email: input.customer.email,
    payer_first_name: first || null,
    payer_last_name: rest.length > 0 ? rest.join(' ') : null,
    payer_phone: null,
    customer_id: input.customer.id,
    description: input.description,
    line_items: JSON.stringify(totals.lines),
    session_id: null,
    paid_at: null,
    due_date: input.dueDate ?? input.periodStart,
    subscription_id: input.subscriptionId,
    period_start: input.periodStart,
    period_end: input.periodEnd,
    created_at: now,
  });
}

/** Writes `invoice.payment_failed`: a charge for the invoice failed; it stays payable. */
export async function invoicePaymentFailed(db: Db, clock: Clock, invoice: InvoiceRow): Promise<void> {
  await writeEvent(db, clock, { tenant: tenantOf(invoice), type: 'invoice.payment_failed', subject: { kind: 'invoice', invoice } });
}

/** Marks one invoice past its due date `overdue` and writes `invoice.past_due`, unless it was paid or changed meanwhile. */
async function markOverdue(trx: Trx, clock: Clock, tenant: Tenant, id: number): Promise<boolean> {
  const changed = await markOverdueIfUnpaid(trx, tenant, id);
  if (!changed) return false;
  await writeEvent(trx, clock, { tenant, type: 'invoice.past_due', subject: { kind: 'invoice', invoice: changed } });
  return true;
}

/**
 * Due work: every unpaid invoice of the scope whose due date has come (a merchant's invoice with a
 * `dueDate`, a subscription invoice whose charge failed) becomes `overdue`, with `invoice.past_due`,
 * once. It stays payable.
 */
export async function markOverdueInvoices(db: Kysely<Database>, clock: Clock, scope: DueScope = GLOBAL_SCOPE, batch = 200): Promise<number> {
  const scoped = scopedClock(clock, scope);
  let marked = 0;
  for (const row of await findDueUnpaidInvoices(db, scope, scoped.now(), batch)) {
    if (await db.transaction().execute((trx) => markOverdue(trx, scoped, tenantOf(row), row.id))) marked++;
  }
  return marked;
}

/** When the scope's next unpaid invoice falls due, after `after`. */
export const nextInvoiceDue = (db: Db, scope: DueScope, after: Date): Promise<Date | null> => nextUnpaidInvoiceDue(db, scope, after);

/** Records a settled-without-payment invoice (its total is 0, all credit) as paid. */
export async function markPaidByCredit(trx: Trx, clock: Clock, invoice: InvoiceRow): Promise<InvoiceRow> {
  const paid = await updateInvoice(trx, tenantOf(invoice), invoice.id, { status: 'paid', paid_at: clock.now() });
  await writeEvent(trx, clock, { tenant: tenantOf(invoice), type: 'invoice.paid', subject: { kind: 'invoice', invoice: paid } });
  return paid;
}
