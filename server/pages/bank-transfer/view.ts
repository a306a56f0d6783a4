// The bank transfer page's markup: where to transfer, exactly how much, the reference to quote and
// by when; once the transfer has arrived or can no longer be made, that instead. No script: the
// payer copies the details, and reloading the page shows where the transfer stands.
import type { BankTransferPage } from '../../domain/invoice-payments/bank-transfer-page.js';
import { formatDate, formatMoney } from '../kit/format.js';
import { type SafeHtml, html } from '../kit/html.js';

function instructionsList(page: BankTransferPage): SafeHtml {
  const i = page.instructions!;
  const fact = (term: string, value: string, field: string) => html`<dt>${term}</dt><dd data-field="${field}">${value}</dd>`;
  return html`<dl class="facts" aria-label="Transfer details">${fact('Bank', i.bankName, 'bank')}${fact('Account name', i.accountName, 'account-name')}${fact('IBAN', i.iban, 'iban')}${fact('BIC', i.bic, 'bic')}${fact('Reference', i.reference, 'reference')}${fact('Amount', formatMoney(i.amount, i.currency), 'amount')}${fact('Pay by', formatDate(i.expiresAt), 'expires')}</dl>
<p class="notice" data-notice="quote-reference">Transfer exactly ${formatMoney(i.amount, i.currency)} and quote the reference ${i.reference}, so that ${page.merchant.name} receives it for invoice ${page.invoice.invoice_number}.</p>`;
}

function outcome(page: BankTransferPage): SafeHtml {
  const back = html`<a class="button" id="invoice-link" href="/invoice/${page.invoice.identifier}">Back to the invoice</a>`;
  if (page.state === 'received')
    return html`<p class="status" data-notice="received">The transfer has arrived. Thank you: ${page.merchant.name} has your payment.</p>${back}`;
  return html`<p class="alert" data-notice="ended">This bank transfer can no longer be made (its time ran out or it was cancelled). Nothing was taken.</p>${back}`;
}

/** The body of the page. */
export function bankTransferBody(page: BankTransferPage): SafeHtml {
  const { payment, invoice, state } = page;
  return html`${invoice.livemode ? '' : html`<span class="badge">Test mode: no real money moves</span>`}
<h1 data-state="${state}">${state === 'waiting' ? 'Pay by bank transfer' : state === 'received' ? 'Transfer received' : 'Transfer no longer possible'}</h1>
<p class="amount" data-field="payment-amount">${formatMoney(payment.amount, payment.currency)}</p>
<p class="muted">Invoice <strong data-field="invoice-number">${invoice.invoice_number}</strong> · payment ${payment.reference_number}</p>
${state === 'waiting' ? instructionsList(page) : outcome(page)}`;
}
