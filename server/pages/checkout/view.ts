// The hosted checkout page's markup: the order (merchant, amount, lines or plan, the notices the
// document requires), the payment methods the session allows, and the ends that show no form.
// The browser script (`web/checkout.ts`) drives the forms; every element it needs has an id.
import { Decimal } from 'decimal.js';
import type { Plan } from '../../domain/catalog/catalog.tables.js';
import type { CheckoutSessionRow } from '../../domain/checkout/session.tables.js';
import type { HostedCheckout } from '../../domain/checkout/hosted-page.js';
import type { SessionPaymentOption } from '../../domain/checkout/session.service.js';
import { formatMoney } from '../kit/format.js';
import { type SafeHtml, html } from '../kit/html.js';

const every = (plan: Plan) => (plan.interval_count === 1 ? `every ${plan.interval}` : `every ${plan.interval_count} ${plan.interval}s`);

function lines(session: CheckoutSessionRow): SafeHtml {
  if (session.line_items.length === 0) return html``;
  const rows = session.line_items.map((item) => {
    const total = new Decimal(item.unitAmount).times(item.quantity);
    return html`<tr><td>${item.name}${item.quantity !== 1 ? html` <span class="muted">× ${item.quantity}</span>` : ''}${item.description ? html`<br><span class="muted">${item.description}</span>` : ''}</td><td class="num">${formatMoney(total.toFixed(), session.currency)}</td></tr>`;
  });
  return html`<table class="items" aria-label="Order"><tbody>${rows}<tr class="total"><td>Total</td><td class="num">${formatMoney(session.amount, session.currency)}</td></tr></tbody></table>`;
}

function subscriptionNotices(session: CheckoutSessionRow, plan: Plan | null): SafeHtml {
  if (session.payment_type !== 'subscription' || !plan) return html``;
  const price = `${formatMoney(plan.amount, plan.currency)} ${every(plan)}`;
  const trial = session.trial_days
    ? html`<p class="notice" data-notice="trial">Free for ${session.trial_days} days, then ${price}. Nothing is charged today; add a card in the customer portal before the trial ends.</p>`
    : '';
  return html`<p data-field="plan"><strong>${plan.name}</strong> · ${price}</p>${trial}
<p class="notice" data-notice="card-on-file">Your card will be kept on file and charged ${price} automatically at each renewal, until you cancel.</p>`;
}

function summary(view: HostedCheckout): SafeHtml {
  const { session, merchant, plan } = view;
  const hold = session.capture_method === 'manual';
  return html`${session.livemode ? '' : html`<span class="badge">Test mode: no real money moves</span>`}
<h1>${hold ? 'Authorize a payment to' : 'Pay'} ${merchant.name}</h1>
<p class="amount" data-field="amount">${formatMoney(session.amount, session.currency)}</p>
${session.description ? html`<p class="muted" data-field="description">${session.description}</p>` : ''}
${lines(session)}${subscriptionNotices(session, plan)}
${hold ? html`<p class="notice" data-notice="hold">Your card will be authorized for this amount, not charged. ${merchant.name} charges it later, or releases it.</p>` : ''}`;
}

const METHOD_LABELS: Record<SessionPaymentOption, string> = { card: 'Card', saved_card: 'Saved card', click_to_pay: 'Click to Pay', 'wallet:qr': 'Wallet QR' };

function cardForm(payLabel: string): SafeHtml {
  const field = (name: string, label: string, attrs: SafeHtml) =>
    html`<div><label for="${name}">${label}</label><input id="${name}" name="${name}" ${attrs} aria-describedby="${name}-error" required><p class="field-error" id="${name}-error"></p></div>`;
  return html`<form id="card-form" class="method" data-method="card" novalidate>
${field('cardNumber', 'Card number', html`inputmode="numeric" autocomplete="cc-number" maxlength="23" placeholder="1234 1234 1234 1234"`)}
<div class="row">${field('expiryMonth', 'Month', html`inputmode="numeric" autocomplete="cc-exp-month" maxlength="2" placeholder="MM" aria-label="Expiry month"`)}${field('expiryYear', 'Year', html`inputmode="numeric" autocomplete="cc-exp-year" maxlength="4" placeholder="YYYY" aria-label="Expiry year"`)}${field('cvc', 'CVC', html`inputmode="numeric" autocomplete="cc-csc" maxlength="4" placeholder="123"`)}</div>
<div><label for="cardName">Name on card</label><input id="cardName" name="cardName" autocomplete="cc-name"></div>
<button class="primary" type="submit">${payLabel}</button></form>`;
}

function otherForms(methods: SessionPaymentOption[], payLabel: string): SafeHtml {
  const saved = methods.includes('saved_card')
    ? html`<section id="saved-card" class="method" data-method="saved_card" hidden><h2>Your saved cards</h2><ul class="cards" id="saved-card-list"></ul>
<form id="saved-otp-form" hidden><label for="savedOtp">Code sent to <span id="saved-otp-phone"></span></label><input id="savedOtp" inputmode="numeric" autocomplete="one-time-code" maxlength="6" required><button class="primary" type="submit">${payLabel}</button></form></section>`
    : '';
  const src = methods.includes('click_to_pay')
    ? html`<section id="click-to-pay" class="method" data-method="click_to_pay" hidden><h2>Click to Pay</h2><form id="src-lookup-form"><label for="srcEmail">Email</label><input id="srcEmail" type="email" autocomplete="email" required><button type="submit">Find my cards</button></form>
<ul class="cards" id="src-card-list"></ul><form id="src-auth-form" hidden><label for="srcCode">Verification code</label><input id="srcCode" inputmode="numeric" autocomplete="one-time-code" required><button class="primary" type="submit">${payLabel}</button></form></section>`
    : '';
  const qr = methods.includes('wallet:qr')
    ? html`<section id="wallet-qr" class="method" data-method="wallet:qr" hidden><h2>Pay with your wallet app</h2><button class="primary" type="button" id="qr-show">Show QR code</button>
<img id="qr-image" class="qr" alt="QR code to scan with your wallet app" hidden><p class="muted" id="qr-expiry"></p><button type="button" id="qr-withdraw" hidden>Use another way to pay</button></section>`
    : '';
  return html`${saved}${src}${qr}`;
}

function payLabelOf(view: HostedCheckout): string {
  const amount = formatMoney(view.session.amount, view.session.currency);
  if (view.session.capture_method === 'manual') return `Authorize ${amount}`;
  if (view.session.payment_type === 'subscription') return `Subscribe · ${amount}`;
  return `Pay ${amount}`;
}

/** The page of a session that can be paid. */
export function payablePage(view: HostedCheckout): SafeHtml {
  const { methods, session, merchant } = view;
  const payLabel = payLabelOf(view);
  const picker =
    methods.length > 1
      ? html`<div class="methods" role="group" aria-label="Payment method">${methods.map((m) => html`<button type="button" data-pick="${m}" aria-pressed="${m === methods[0]}">${METHOD_LABELS[m]}</button>`)}</div>`
      : '';
  const cancel = session.cancel_url ? html`<a class="cancel" id="cancel-link" href="${session.cancel_url}">Cancel and return to ${merchant.name}</a>` : '';
  return html`${summary(view)}
<noscript><p class="alert">This payment page needs JavaScript to pay securely. Turn it on and reload.</p></noscript>
${picker}${methods.includes('card') ? cardForm(payLabel) : ''}${otherForms(methods, payLabel)}
<div class="alert" id="alert" role="alert" aria-live="assertive"></div>
<div class="status" id="status" role="status" aria-live="polite"></div>${cancel}`;
}

/** The page of a session that shows no form: completed, expired or cancelled. */
export function endPage(view: HostedCheckout): { title: string; body: SafeHtml } {
  const { session, merchant, state } = view;
  const back = (url: string | null, text: string) => (url ? html`<a class="button primary" id="continue" href="${url}">${text}</a>` : '');
  if (state === 'completed') {
    const hold = session.capture_method === 'manual';
    const title = hold ? 'Card authorized' : session.payment_type === 'subscription' ? 'Subscription started' : 'Payment received';
    return {
      title,
      body: html`<h1 data-state="completed">${title}</h1><p class="amount">${formatMoney(session.amount, session.currency)}</p>
<p>${hold ? `Your card is authorized, not charged. ${merchant.name} charges it later, or releases it.` : `Thank you. ${merchant.name} has your payment.`}</p>${back(session.success_url, `Continue to ${merchant.name}`)}`,
    };
  }
  const title = state === 'expired' ? 'This checkout has expired' : 'This checkout was cancelled';
  return {
    title,
    body: html`<h1 data-state="${state}">${title}</h1><p>Nothing was charged. ${state === 'expired' ? 'Return to the merchant to start again.' : ''}</p>${back(session.cancel_url, `Return to ${merchant.name}`)}`,
  };
}
