// An invoice's page: its fields, lines and payments, its PDF (the same renderer as the API's
// getInvoicePdf), and the actions the API allows through the same services (`invoice.update`):
// send it to the payer, void it.
import type { Request, Response } from 'express';
import type { InvoiceLine } from '../../../domain/invoices/invoice.lines.js';
import { invoicePdfFilename, renderInvoicePdf } from '../../../domain/invoices/invoice-pdf.js';
import { getInvoice, invoicePageUrl, sendInvoice, voidInvoice } from '../../../domain/invoices/invoice.service.js';
import type { InvoiceRow } from '../../../domain/invoices/invoice.tables.js';
import { listPaymentPage, type PaymentListItem } from '../../../domain/payments/payment-reads.service.js';
import { AppError } from '../../../shared/errors.js';
import { html, type SafeHtml } from '../../kit/html.js';
import { formatDate, formatMoney } from '../../kit/format.js';
import { runAction } from '../kit/action.js';
import { badge, fieldList, section } from '../kit/detail.js';
import { type Flash, flashBox, postButton } from '../kit/form.js';
import { numericId } from '../kit/keyset.js';
import { type Column, table } from '../kit/list.js';
import { sendDashboardPage } from '../layout.js';
import { type DashboardContext, type SectionRoutes, sectionHref } from '../section.js';
import { methodOf } from './payment-page.js';

const UPDATE_SCOPES = ['invoice.update'];
const DONE: Record<string, string> = { sent: 'The invoice was sent.', voided: 'The invoice was voided.' };
const SENDABLE = ['draft', 'pending', 'sent', 'partially_paid', 'overdue'];
const VOIDABLE = ['draft', 'pending', 'sent', 'overdue'];

function invoiceId(req: Request): number {
  const id = numericId(String(req.params.id));
  if (id === undefined) throw new AppError('resource_not_found', { message: 'There is no such invoice.' });
  return id;
}

const lineColumns = (currency: string): Column<InvoiceLine>[] => [
  { heading: 'Item', cell: (l) => l.name },
  { heading: 'Quantity', numeric: true, cell: (l) => String(l.quantity) },
  { heading: 'Unit price', numeric: true, cell: (l) => formatMoney(l.unitAmount, currency) },
  { heading: 'Tax', numeric: true, cell: (l) => formatMoney(l.taxAmount, currency) },
  { heading: 'Total', numeric: true, cell: (l) => formatMoney(l.total, currency) },
];

const PAYMENT_COLUMNS: Column<PaymentListItem>[] = [
  { heading: 'Amount', numeric: true, cell: (p) => html`<a href="${sectionHref('payments', `/${p.id}`)}">${formatMoney(p.amount, p.currency)}</a>` },
  { heading: 'Status', cell: (p) => badge(p.status) },
  { heading: 'Method', cell: (p) => methodOf(p) },
  { heading: 'Created', cell: (p) => formatDate(p.created_at) },
];

function actions(ctx: DashboardContext, invoice: InvoiceRow): SafeHtml {
  if (!ctx.can(...UPDATE_SCOPES)) return html``;
  const base = sectionHref('invoices', `/${invoice.id}`);
  const parts: SafeHtml[] = [];
  if (SENDABLE.includes(invoice.status) && invoice.payer_email) parts.push(postButton(ctx, `${base}/send`, 'Send to the payer', {}, 'primary'));
  if (VOIDABLE.includes(invoice.status)) parts.push(postButton(ctx, `${base}/void`, 'Void', {}, 'danger'));
  return parts.length ? section('Actions', html`<div class="actions">${parts}</div>`, 'actions') : html``;
}

async function sendInvoicePage(req: Request, res: Response, ctx: DashboardContext, flash: Flash = {}, status = 200): Promise<void> {
  const invoice = await getInvoice(ctx.db, ctx.tenant, invoiceId(req));
  const payments = ctx.can('payment.read') ? await listPaymentPage(ctx.db, ctx.tenant, { invoiceId: invoice.id }, { limit: 50 }) : [];
  const base = sectionHref('invoices', `/${invoice.id}`);
  const fields = fieldList([
    ['Status', badge(invoice.status)],
    ['Total', formatMoney(invoice.total, invoice.currency)],
    ['Paid', formatMoney(invoice.amount_paid, invoice.currency)],
    ['Refunded', /^0(\.0+)?$/.test(invoice.amount_refunded) ? null : formatMoney(invoice.amount_refunded, invoice.currency)],
    ['Payer', invoice.payer_email],
    ['Reference', invoice.reference],
    ['Due', invoice.due_date ? formatDate(invoice.due_date) : null],
    ['Sent', invoice.sent_at ? formatDate(invoice.sent_at) : null],
    ['Paid at', invoice.paid_at ? formatDate(invoice.paid_at) : null],
    ['Voided', invoice.voided_at ? formatDate(invoice.voided_at) : null],
    [
      'Subscription',
      invoice.subscription_id ? html`<a href="${sectionHref('subscriptions', `/${invoice.subscription_id}`)}">${String(invoice.subscription_id)}</a>` : null,
    ],
    ['Hosted page', html`<a href="${invoicePageUrl(ctx.deps.config, invoice)}">Open the payer's page</a>`],
    ['Created', formatDate(invoice.created_at)],
  ]);
  const lines = table('Lines', lineColumns(invoice.currency), invoice.line_items as InvoiceLine[], 'No lines.');
  const paid = ctx.can('payment.read')
    ? table('Payments of the invoice', PAYMENT_COLUMNS, payments, 'No payments yet.')
    : html`<p class="empty">Needs payment.read.</p>`;
  const body = html`<p class="crumbs"><a href="${sectionHref('invoices')}">Invoices</a></p>
<h1>Invoice ${invoice.invoice_number}</h1>${flashBox({ notice: DONE[String(req.query.done)], ...flash })}
<p><a class="button secondary" href="${base}/pdf" id="invoice-pdf">Download the PDF</a></p>
${section('Details', fields, 'details')}${actions(ctx, invoice)}${section('Lines', lines, 'lines')}${section('Payments', paid, 'payments')}`;
  sendDashboardPage(res, ctx, { title: `Invoice ${invoice.invoice_number}`, body, section: 'invoices', status });
}

/** The invoice page, its PDF and its actions, under the invoices section. */
export function invoicePageRoutes(r: SectionRoutes): void {
  const act = (req: Request, res: Response, ctx: DashboardContext, done: string, action: (id: number) => Promise<unknown>) => {
    const id = invoiceId(req);
    return runAction(
      res,
      sectionHref('invoices', `/${id}`),
      done,
      () => action(id),
      (flash, status) => sendInvoicePage(req, res, ctx, flash, status),
    );
  };
  r.get('/:id', (req, res, ctx) => sendInvoicePage(req, res, ctx));
  r.get('/:id/pdf', async (req, res, ctx) => {
    const invoice = await getInvoice(ctx.db, ctx.tenant, invoiceId(req));
    const pdf = await renderInvoicePdf(ctx.db, ctx.tenant, invoice.id);
    res.setHeader('Content-Type', 'application/pdf');
    res.setHeader('Content-Disposition', `attachment; filename="${invoicePdfFilename(invoice)}"`);
    res.status(200).send(pdf);
  });
  r.post('/:id/send', UPDATE_SCOPES, (req, res, ctx) => act(req, res, ctx, 'sent', (id) => sendInvoice(ctx.db, ctx.clock, ctx.deps.config, ctx.tenant, id)));
  r.post('/:id/void', UPDATE_SCOPES, (req, res, ctx) => act(req, res, ctx, 'voided', (id) => voidInvoice(ctx.db, ctx.clock, ctx.tenant, id)));
}
