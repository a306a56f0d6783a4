// Sending a Commerce invoice: an email with the pay link (and, when asked, a text message), then
// `invoice.sent`; a draft or pending invoice becomes `sent`, a sent, partially paid or overdue one
// is reminded and keeps its status.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { InvoiceRow } from './invoice.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { type Tenant, tenantOf } from '../../shared/tenant.js';
import { recordMessage } from '../messages/message.service.js';
import { emailInvoice, type InvoiceLinks, invoicePageUrl } from './invoice-email.js';
import { updateInvoice } from './invoice.repository.js';
import { getInvoice } from './invoice.service.js';

const SENDABLE = ['draft', 'pending', 'sent', 'partially_paid', 'overdue'];

export interface SendTo {
  /** Another address than the payer's. */
  email?: string | undefined;
  /** Also text the pay link to this number (E.164). */
  sms?: string | undefined;
}

/**
 * Sends the invoice: 409 `invoice_not_payable` when it is paid, cancelled or expired; 400
 * `parameter_missing` (`email`) when neither `to.email` nor the payer's email is known.
 */
export async function sendInvoiceTo(db: Kysely<Database>, clock: Clock, links: InvoiceLinks, tenant: Tenant, id: number, to: SendTo = {}): Promise<InvoiceRow> {
  return db.transaction().execute(async (trx) => {
    let invoice = await getInvoice(trx, tenant, id, { lock: true });
    if (!SENDABLE.includes(invoice.status)) throw new AppError('invoice_not_payable', { message: `Invoice ${id} is ${invoice.status} and cannot be sent.` });
    const email = to.email ?? invoice.payer_email;
    if (!email)
      throw new AppError('parameter_missing', { param: 'email', message: `Invoice ${id} has no payer email (sourceInfo.email); send an email to send it to.` });
    const first = invoice.status === 'draft' || invoice.status === 'pending';
    invoice = await updateInvoice(trx, tenant, id, { sent_at: clock.now(), ...(first ? { status: 'sent' } : {}) });
    await emailInvoice(trx, clock, links, invoice, email);
    if (to.sms) {
      await recordMessage(trx, clock, {
        tenant: tenantOf(invoice),
        channel: 'sms',
        kind: 'invoice',
        to: to.sms,
        body: `Invoice ${invoice.invoice_number}: pay at ${invoicePageUrl(links, invoice)}`,
      });
    }
    return invoice;
  });
}
