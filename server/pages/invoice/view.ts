// The hosted invoice page's markup: who issued the invoice and to whom, its lines and totals, what
// is due, and a button per way of paying (each a plain form: paying works without the script,
// which only follows the invoice's status live through the notification hub). An end (paid,
// cancelled, expired) shows that instead of the buttons.
import { Decimal } from 'decimal.js';
import type { InvoiceRow } from '../../domain/invoices/invoice.tables.js';
import { type HostedInvoice, type InvoicePageMethod, webAddress } from '../../domain/checkout/invoice-page.js';
import type { InvoiceLine } from '../../domain/invoices/invoice.lines.js';
import { amountDue } from '../../domain/invoices/invoice.lines.js';
import { formatDay, formatMoney } from '../kit/format.js';
import { type SafeHtml, html } from '../kit/html.js';

type StoredLine = Partial<InvoiceLine> & { name: string; quantity: number; unitAmount: string | number };

const nonZero = (amount: string | undefined | null): boolean => amount !== undefined && amount !== null && !new Decimal(amount).isZero();

/** Each line before tax (after its own discount), so the lines add up to the subtotal; a `Discount` item counts off. */
function lineRows(invoice: InvoiceRow): SafeHtml[] {
  const money = (amount: string) => formatMoney(amount, invoice.currency);
  return (invoice.line_items as StoredLine[]).map((line) => {
    const amount = line.subtotal ?? new Decimal(String(line.unitAmount)).times(line.quantity).toFixed();
    const quantity = line.quantity !== 1 ? html` <span class="muted">× ${line.quantity}</span>` : '';
    const discount = nonZero(line.discount) ? html`<br><span class="muted">${money(line.discount!)} off</span>` : '';
    const description = line.description ? html`<br><span class="muted">${line.description}</span>` : '';
    const shown = line.type === 'Discount' ? `−${money(amount)}` : money(amount);
    return html`<tr><td>${line.name}${quantity}${description}${discount}</td><td class="num">${shown}</td></tr>`;
  });
}

/** The lines, then the totals: subtotal, discount, tax and shipping where there are any, total, paid, due. */
function itemsTable(invoice: InvoiceRow): SafeHtml {
  const money = (amount: string) => formatMoney(amount, invoice.currency);
  const row = (label: string, amount: string, field: string, css = '') =>
    html`<tr${css ? html` class="${css}"` : ''}><td>${label}</td><td class="num" data-field="${field}">${amount}</td></tr>`;
  const paid = nonZero(invoice.amount_paid);
  return html`<table class="items" aria-label="Invoice lines"><tbody>${lineRows(invoice)}
${row('Subtotal', money(invoice.subtotal), 'subtotal')}
${nonZero(invoice.discount) ? row('Discount', `−${money(invoice.discount)}`, 'discount') : ''}
${nonZero(invoice.tax_amount) ? row('Tax', money(invoice.tax_amount), 'tax') : ''}
${nonZero(invoice.shipping_cost) ? row('Shipping', money(invoice.shipping_cost), 'shipping') : ''}
${row('Total', money(invoice.total), 'total', paid ? '' : 'total')}
${paid ? row('Paid', `−${money(invoice.amount_paid)}`, 'paid') : ''}
${paid ? row('Amount due', money(amountDue(invoice).toFixed()), 'due', 'total') : ''}</tbody></table>`;
}

function facts(invoice: InvoiceRow): SafeHtml {
  const payer = [invoice.payer_first_name, invoice.payer_last_name].filter(Boolean).join(' ') || invoice.payer_email;
  const fact = (term: string, value: string | null, field: string) => (value ? html`<dt>${term}</dt><dd data-field="${field}">${value}</dd>` : '');
  return html`<dl class="facts">${fact('Invoice', invoice.invoice_number, 'number')}${fact('Issued', formatDay(invoice.created_at), 'issued')}${fact('Due', invoice.due_date ? formatDay(invoice.due_date) : null, 'due-date')}${fact('Billed to', payer, 'payer')}</dl>`;
}

const STATE_WORDS: Record<string, string> = {
  pending: 'Open',
  sent: 'Open',
  partially_paid: 'Partly paid',
  overdue: 'Overdue',
  paid: 'Paid',
  cancelled: 'Cancelled',
  expired: 'Expired',
  rejected: 'Rejected',
};

const METHOD_LABELS: Record<InvoicePageMethod, string> = { card: 'Pay by card', 'wallet:qr': 'Pay with a wallet app (QR code)' };

function payButtons(page: HostedInvoice): SafeHtml {
  const { invoice, methods, merchant } = page;
  if (methods.length === 0) return html`<p class="notice" data-notice="no-methods">This invoice cannot be paid online. Contact ${merchant.name} to pay it.</p>`;
  const due = formatMoney(amountDue(invoice).toFixed(), invoice.currency);
  const forms = methods.map(
    (method, i) =>
      html`<form method="post" action="/invoice/${invoice.identifier}/pay"><input type="hidden" name="method" value="${method}"><button type="submit"${i === 0 ? html` class="primary"` : ''} data-pay="${method}">${METHOD_LABELS[method]} · ${due}</button></form>`,
  );
  const cancelUrl = webAddress(invoice.cancel_url);
  const back = cancelUrl ? html`<a class="cancel" id="cancel-link" href="${cancelUrl}">Return to ${merchant.name}</a>` : '';
  return html`<div class="pay-options" role="group" aria-label="Ways to pay">${forms}</div>${back}`;
}

/** What the page says in place of the buttons when the invoice cannot be paid now. */
function endNotice(page: HostedInvoice): SafeHtml {
  const { invoice, state, merchant } = page;
  if (state === 'paid') {
    const successUrl = webAddress(invoice.success_url);
    const next = successUrl ? html`<a class="button primary" id="continue" href="${successUrl}">Continue to ${merchant.name}</a>` : '';
    return html`<p class="status" data-notice="paid">Paid${invoice.paid_at ? ` on ${formatDay(invoice.paid_at)}` : ''}. Thank you: ${merchant.name} has your payment.</p>${next}`;
  }
  if (state === 'not_yet_valid')
    return html`<p class="notice" data-notice="not-yet-valid">This invoice can be paid from ${formatDay(invoice.valid_from!)}.</p>`;
  if (state === 'expired')
    return html`<p class="alert" data-notice="expired">This invoice has expired and can no longer be paid. Contact ${merchant.name} for a new one.</p>`;
  if (invoice.status === 'rejected')
    return html`<p class="alert" data-notice="rejected">This invoice was declined by the payer and can no longer be paid. Contact ${merchant.name} for a new one.</p>`;
  return html`<p class="alert" data-notice="cancelled">This invoice was cancelled. Nothing is due.</p>`;
}

/** The body of the page. `alert` is a message of a payment that could not start. */
export function invoiceBody(page: HostedInvoice, alert?: string): SafeHtml {
  const { invoice, merchant, state } = page;
  const heading = state === 'payable' ? `Invoice from ${merchant.name}` : `Invoice ${STATE_WORDS[invoice.status] ?? ''}`.trim();
  const overdue =
    state === 'payable' && invoice.status === 'overdue'
      ? html`<p class="notice" data-notice="overdue">This invoice is past its due date. You can still pay it.</p>`
      : '';
  return html`${invoice.livemode ? '' : html`<span class="badge">Test mode: no real money moves</span>`}
<h1 data-state="${state}">${heading}</h1>
<p class="amount" data-field="amount">${formatMoney(state === 'payable' ? amountDue(invoice).toFixed() : invoice.total, invoice.currency)}</p>
<p class="muted">Status: <strong id="invoice-status" data-field="status">${STATE_WORDS[invoice.status] ?? invoice.status}</strong></p>
${invoice.description ? html`<p class="muted" data-field="description">${invoice.description}</p>` : ''}
${facts(invoice)}${itemsTable(invoice)}${overdue}
${state === 'payable' ? payButtons(page) : endNotice(page)}
<div class="alert" id="alert" role="alert" aria-live="assertive">${alert ?? ''}</div>
<div class="status" id="live" role="status" aria-live="polite"></div>`;
}
