// Emailing an invoice to its payer: a link to pay it on its page and its PDF attached, through
// the outbox (recorded in test mode, delivered over SMTP in live mode), then `invoice.sent`.
import type { Db } from '../../db/database.js';
import type { InvoiceRow } from './invoice.tables.js';
import type { Clock } from '../../shared/clock.js';
import { tenantOf } from '../../shared/tenant.js';
import { writeEvent } from '../events/event.service.js';
import { getMerchant } from '../merchants/merchant.service.js';
import { recordMessage } from '../messages/message.service.js';
import { amountDue } from './invoice.lines.js';
import { formatAmount, invoicePdf, invoicePdfFilename } from './invoice-pdf.js';

/** Where the payer pays an invoice: its page on this server. */
export interface InvoiceLinks {
  publicBaseUrl: string;
}

export const invoicePageUrl = (links: InvoiceLinks, invoice: Pick<InvoiceRow, 'identifier'>) => `${links.publicBaseUrl}/invoice/${invoice.identifier}`;

/**
 * Emails the payer the invoice (it must have a payer email), in the caller's transaction: the
 * amount due, the due date, the link to pay it and its PDF attached; then `invoice.sent`. `to`
 * sends it to another address than the payer's.
 */
export async function emailInvoice(db: Db, clock: Clock, links: InvoiceLinks, invoice: InvoiceRow, to: string = invoice.payer_email!): Promise<void> {
  const merchant = await getMerchant(db, invoice.merchant_id);
  const due = invoice.due_date ? ` by ${invoice.due_date.toISOString().slice(0, 10)}` : '';
  const body = [
    `Invoice ${invoice.invoice_number} from ${merchant.name}: ${formatAmount(amountDue(invoice).toFixed(), invoice.currency)} due${due} (total ${formatAmount(invoice.total, invoice.currency)}).`,
    `Pay it at ${invoicePageUrl(links, invoice)}`,
    `The invoice is attached as a PDF (${invoicePdfFilename(invoice)}).`,
  ].join('\n');
  await recordMessage(db, clock, {
    tenant: tenantOf(invoice),
    channel: 'email',
    kind: 'invoice',
    to,
    subject: `Invoice ${invoice.invoice_number}`,
    body,
    attachments: [{ filename: invoicePdfFilename(invoice), contentType: 'application/pdf', content: await invoicePdf(db, invoice) }],
  });
  await writeEvent(db, clock, { tenant: tenantOf(invoice), type: 'invoice.sent', subject: { kind: 'invoice', invoice } });
}
