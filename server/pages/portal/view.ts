// The customer portal's markup: the customer's subscriptions (with their actions), invoices (with
// PDF links) and card on file, the plan-switch preview, and the error pages. No script: every
// action is a POST form carrying the session's form token.
import { Decimal } from 'decimal.js';
import type { Plan } from '../../domain/catalog/catalog.tables.js';
import type { PaymentMethodRow } from '../../domain/payments/payment.tables.js';
import type { PortalSessionRow } from '../../domain/billing/portal.tables.js';
import type { SubscriptionDetails } from '../../domain/billing/subscription.tables.js';
import type { PortalOverview } from '../../domain/billing/portal-view.js';
import { formatDay, formatMoney } from '../kit/format.js';
import { type SafeHtml, html } from '../kit/html.js';

/** What a page of one portal needs: its base path (with the token) and the form token. */
export interface PortalPage {
  base: string;
  session: PortalSessionRow;
}

const BRANDS: Record<string, string> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  discover: 'Discover',
  diners: 'Diners Club',
  jcb: 'JCB',
  unionpay: 'UnionPay',
  maestro: 'Maestro',
};
const STATUS: Record<string, string> = {
  active: 'Active',
  trialing: 'Free trial',
  past_due: 'Past due',
  unpaid: 'Unpaid',
  paused: 'Paused',
  canceled: 'Canceled',
  pending: 'Pending',
};

/** `12 Dec 2026` (UTC). */
export const day = formatDay;

const every = (s: { interval: string; interval_count: number }) =>
  s.interval_count === 1 ? `every ${s.interval}` : `every ${s.interval_count} ${s.interval}s`;
export const priceOf = (p: Pick<Plan, 'amount' | 'currency' | 'interval' | 'interval_count'>) => `${formatMoney(p.amount, p.currency)} ${every(p)}`;

/** A one-button POST form of the portal, with its form token. */
export function postForm(
  page: PortalPage,
  path: string,
  label: string,
  options: { fields?: Record<string, string>; primary?: boolean; name?: string } = {},
): SafeHtml {
  const fields = Object.entries(options.fields ?? {}).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`);
  return html`<form method="post" action="${page.base}${path}"><input type="hidden" name="form" value="${page.session.form_token}">${fields}<button type="submit"${options.primary ? html` class="primary"` : ''}${options.name ? html` data-action="${options.name}"` : ''}>${label}</button></form>`;
}

function nextCharge(s: SubscriptionDetails): string | null {
  if (s.status === 'canceled' || s.status === 'paused' || s.cancel_at_period_end) return null;
  if (isMetered(s)) return `Your usage of this period, on ${day(s.current_period_end)}`;
  return `${formatMoney(s.amount, s.currency)} on ${day(s.current_period_end)}`;
}

const isMetered = (s: SubscriptionDetails) => s.items.some((item) => item.is_metered);

/** A metered subscription's usage so far this period: units, and what they come to at the unit price. */
function usageFacts(s: SubscriptionDetails, usage: Map<number, string>): SafeHtml | '' {
  const item = s.items.find((i) => i.is_metered);
  if (!item || s.status === 'canceled') return '';
  const units = usage.get(item.id) ?? '0';
  const amount = new Decimal(units).times(item.amount).toFixed();
  return html`<dt>Usage so far</dt><dd data-field="usage">${units} ${units === '1' ? 'unit' : 'units'} · ${formatMoney(amount, s.currency)}</dd>`;
}

function subscriptionActions(page: PortalPage, s: SubscriptionDetails, hasPlans: boolean): SafeHtml {
  if (s.status === 'canceled') return html``;
  const path = `/subscriptions/${s.id}`;
  const pauseOrResume =
    s.status === 'paused' ? postForm(page, `${path}/resume`, 'Resume', { name: 'resume' }) : postForm(page, `${path}/pause`, 'Pause', { name: 'pause' });
  const cancel = s.cancel_at_period_end
    ? ''
    : postForm(page, `${path}/cancel`, 'Cancel at period end', { fields: { when: 'period_end' }, name: 'cancel-at-period-end' });
  return html`<div class="actions">${hasPlans ? postForm(page, `${path}/plan`, 'Change plan', { name: 'change-plan' }) : ''}${pauseOrResume}${cancel}${postForm(page, `${path}/cancel`, 'Cancel now', { fields: { when: 'now' }, name: 'cancel-now' })}</div>`;
}

function subscriptionPanel(page: PortalPage, s: SubscriptionDetails, hasPlans: boolean, usage: Map<number, string>): SafeHtml {
  const charge = nextCharge(s);
  const trial = s.status === 'trialing' && s.trial_end ? html`<dt>Trial ends</dt><dd>${day(s.trial_end)}</dd>` : '';
  const ending =
    s.cancel_at_period_end && s.status !== 'canceled'
      ? html`<p class="notice" data-notice="cancel-at-period-end">Cancels at the end of this period, on ${day(s.cancel_at ?? s.current_period_end)}. Nothing more will be charged.</p>`
      : '';
  const noCard =
    s.payment_method_id === null && s.status === 'trialing'
      ? html`<p class="notice" data-notice="add-card">Add a card below before your trial ends to keep this subscription.</p>`
      : s.payment_method_id === null && s.status === 'active' && isMetered(s)
        ? html`<p class="notice" data-notice="add-card">Add a card below before this period ends: your usage is charged to it.</p>`
        : '';
  return html`<article class="panel" data-subscription="${s.id}"><h3 data-field="plan">${s.plan_name}</h3>
<dl class="facts"><dt>Status</dt><dd data-field="status">${STATUS[s.status] ?? s.status}</dd><dt>Price</dt><dd data-field="price">${isMetered(s) ? `${formatMoney(s.amount, s.currency)} per unit used, billed ${every(s)}` : priceOf(s)}</dd>
<dt>Period</dt><dd data-field="period">${day(s.current_period_start)} – ${day(s.current_period_end)}</dd>${trial}${usageFacts(s, usage)}
${charge ? html`<dt>Next charge</dt><dd data-field="next-charge">${charge}</dd>` : ''}</dl>${ending}${noCard}${subscriptionActions(page, s, hasPlans)}</article>`;
}

function invoiceList(page: PortalPage, overview: PortalOverview): SafeHtml {
  if (overview.invoices.length === 0) return html`<p class="muted">No invoices yet.</p>`;
  const rows = overview.invoices.map(
    (i) =>
      html`<li data-invoice="${i.id}"><span><strong>${i.invoice_number}</strong> · ${day(i.created_at)}</span><span>${formatMoney(i.total, i.currency)} · <span data-field="invoice-status">${i.status.replace(/_/g, ' ')}</span> · <a href="${page.base}/invoices/${i.id}.pdf" data-field="pdf">PDF</a></span></li>`,
  );
  return html`<ul class="inline-list">${rows}</ul>`;
}

/** The card form: tokenized on the server as at checkout; only brand, last 4, expiry and a fingerprint are kept. */
export function cardForm(page: PortalPage, card: PaymentMethodRow | null): SafeHtml {
  const field = (name: string, label: string, attrs: SafeHtml) =>
    html`<div><label for="${name}">${label}</label><input id="${name}" name="${name}" ${attrs} required></div>`;
  return html`<details${card ? '' : html` open`}><summary>${card ? 'Replace card' : 'Add a card'}</summary>
<form method="post" action="${page.base}/card" id="card-form" autocomplete="on"><input type="hidden" name="form" value="${page.session.form_token}">
${field('cardNumber', 'Card number', html`inputmode="numeric" autocomplete="cc-number" maxlength="23" placeholder="1234 1234 1234 1234"`)}
<div class="row">${field('expiryMonth', 'Month', html`inputmode="numeric" autocomplete="cc-exp-month" maxlength="2" placeholder="MM"`)}${field('expiryYear', 'Year', html`inputmode="numeric" autocomplete="cc-exp-year" maxlength="4" placeholder="YYYY"`)}${field('cvc', 'CVC', html`inputmode="numeric" autocomplete="cc-csc" maxlength="4" placeholder="123"`)}</div>
<div><label for="cardName">Name on card</label><input id="cardName" name="cardName" autocomplete="cc-name" maxlength="200"></div>
<p class="muted">This card becomes your card on file for every subscription here.</p>
<button class="primary" type="submit">Save card</button></form></details>`;
}

function cardSection(page: PortalPage, card: PaymentMethodRow | null): SafeHtml {
  const shown = card
    ? html`<p data-field="card"><strong>${BRANDS[card.brand] ?? card.brand}</strong> •••• ${card.last4} · expires ${String(card.expiry_month).padStart(2, '0')}/${card.expiry_year}</p>`
    : html`<p class="muted" data-field="card">No card on file.</p>`;
  return html`${shown}${cardForm(page, card)}`;
}

/** Messages in the page's flow: what just happened (`notice`) or what went wrong (`alert`). */
export interface Flash {
  notice?: string | undefined;
  alert?: string | undefined;
}

/** The portal's main page. */
export function overviewPage(page: PortalPage, overview: PortalOverview, flash: Flash = {}): SafeHtml {
  const { merchant, customer, subscriptions, card } = overview;
  const back = page.session.return_url ? html`<a class="back" id="return-link" href="${page.session.return_url}">← Back to ${merchant.name}</a>` : '';
  const subs =
    subscriptions.length === 0
      ? html`<p class="muted">No subscriptions.</p>`
      : subscriptions.map((s) => subscriptionPanel(page, s, overview.switchable.has(s.id), overview.usage));
  return html`${back}${page.session.livemode ? '' : html`<span class="badge">Test mode</span>`}
<h1>Your account</h1><p class="muted" data-field="customer">${customer.name ?? ''}${customer.name && customer.email ? ' · ' : ''}${customer.email ?? ''}</p>
<div class="status" id="status" role="status">${flash.notice ?? ''}</div><div class="alert" id="alert" role="alert">${flash.alert ?? ''}</div>
<h2>Subscriptions</h2><section id="subscriptions">${subs}</section>
<h2>Payment method</h2><section id="card">${cardSection(page, card)}</section>
<h2>Invoices</h2><section id="invoices">${invoiceList(page, overview)}</section>`;
}

/** The page of a portal link that opens nothing: unknown, expired, or asking for something that is not this customer's. */
export function errorBody(title: string, message: string): SafeHtml {
  return html`<h1 data-state="error">${title}</h1><p>${message}</p>`;
}
