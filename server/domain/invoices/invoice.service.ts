// Invoices: a merchant's own, or raised by a checkout session for its payer. Reading, listing,
// sending and voiding them; creating one is invoice-create.ts, what money does to one
// invoice-paying.ts (called by the flows that move it, which keep invoices and payments apart).
import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { InvoiceRow } from './invoice.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { type Page, toPage } from '../../shared/pagination.js';
import { type Tenant, tenantOf } from '../../shared/tenant.js';
import type { EventType } from '../../shared/vocabulary.generated.js';
import { writeEvent } from '../events/event.service.js';
import { emailInvoice, type InvoiceLinks } from './invoice-email.js';
import { findInvoice, findInvoiceByIdentifier, findInvoices, type InvoiceFilter, updateInvoice } from './invoice.repository.js';

export type { InvoiceFilter };

const invalid = (param: string, message: string) => new AppError('validation_error', { param, message });

export { type InvoiceLinks, invoicePageUrl } from './invoice-email.js';

/** Writes an invoice event: the invoice as it is now. */
export async function invoiceEvent(db: Db, clock: Clock, type: EventType, invoice: InvoiceRow): Promise<void> {
  await writeEvent(db, clock, { tenant: tenantOf(invoice), type, subject: { kind: 'invoice', invoice } });
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

/** Statuses a payer can reject an invoice in (with nothing paid on it yet). */
const REJECTABLE_STATUSES = ['pending', 'sent', 'overdue'];

/**
 * The payer declines the invoice (a test helper plays it): `rejected`, which nothing can pay. A
 * rejected invoice is returned unchanged; a draft, partly or fully paid, cancelled or expired one
 * answers 409 `invalid_state`. No event: the catalogue has no `invoice.rejected`.
 */
export async function rejectInvoice(db: Kysely<Database>, tenant: Tenant, id: number): Promise<InvoiceRow> {
  return db.transaction().execute(async (trx) => {
    const invoice = await getInvoice(trx, tenant, id, { lock: true });
    if (invoice.status === 'rejected') return invoice;
    if (!REJECTABLE_STATUSES.includes(invoice.status) || Number(invoice.amount_paid) !== 0) {
      throw new AppError('invalid_state', { message: `Invoice ${id} is ${invoice.status} and cannot be rejected.` });
    }
    return updateInvoice(trx, tenant, id, { status: 'rejected' });
  });
}
