// The hosted link page's markup: the link (product, price or an amount to choose), then one plain
// form for the payer (email, names, the password of a protected link), which makes the invoice and
// sends the payer to the invoice page to pay. A link that asks for email verification first sends a
// code (a form of its own), then shows the code field. A subscription link offers its plans in the
// same form, which starts the subscription and sends the payer to its first invoice. No script.
import { Decimal } from 'decimal.js';
import type { PaymentLinkRow } from '../../domain/links/link.tables.js';
import { fixedPriceTax } from '../../domain/links/link-fields.js';
import type { LinkPageState } from '../../domain/links/link-access.js';
import type { PublicLink } from '../../domain/links/link-public.js';
import { formatDay, formatMoney } from '../kit/format.js';
import { type SafeHtml, html, raw } from '../kit/html.js';

/** What the payer typed, kept when the page is shown again. */
export interface LinkForm {
  email?: string;
  firstName?: string;
  lastName?: string;
  amount?: string;
  quantity?: string;
  /** The code sent (step two of email verification). */
  verificationTokenId?: string;
  /** The plan chosen (subscription links). */
  planId?: string;
}

const STATE_NOTICE: Record<Exclude<LinkPageState, 'open'>, string> = {
  draft: 'This payment link is not available yet.',
  inactive: 'This payment link is not taking payments at the moment.',
  expired: 'This payment link has expired.',
  not_yet_valid: 'This payment link opens later.',
  spent: 'This payment link has reached its limit of payments.',
};

function priceOf(link: PaymentLinkRow): SafeHtml {
  const money = (amount: string) => formatMoney(amount, link.currency);
  if (link.is_variable_amount)
    return html`<p class="muted" data-field="range">${link.min_amount ? `From ${money(link.min_amount)}` : 'Any amount'}${link.max_amount ? ` up to ${money(link.max_amount)}` : ''}</p>`;
  const gross = new Decimal(link.unit_price!).times(link.quantity);
  const tax = fixedPriceTax(link);
  const quantity = new Decimal(link.quantity).equals(1) ? '' : html` <span class="muted">× ${new Decimal(link.quantity).toFixed()}</span>`;
  return html`<table class="items" aria-label="Price"><tbody><tr><td>${link.product_name ?? link.name}${quantity}</td><td class="num">${money(gross.toFixed())}</td></tr>
${new Decimal(tax).isZero() ? '' : html`<tr><td>Tax (${new Decimal(link.tax_rate).toFixed()} %)</td><td class="num">${money(tax)}</td></tr>`}
<tr class="total"><td>Total</td><td class="num" data-field="total">${money(gross.plus(tax).toFixed())}</td></tr></tbody></table>`;
}

/** A labelled input; `attrs` is the code's own markup (a constant string, never data) or a template's output. */
const field = (id: string, label: string, value: string | undefined, attrs: SafeHtml | string = '') =>
  html`<label for="${id}">${label}</label><input id="${id}" name="${id}" value="${value ?? ''}" ${typeof attrs === 'string' ? raw(attrs) : attrs}>`;

function amountField(link: PaymentLinkRow, form: LinkForm): SafeHtml | string {
  if (!link.is_variable_amount) return '';
  const step = new Decimal(1).dividedBy(new Decimal(10).pow(link.currency === 'JPY' ? 0 : 2)).toFixed();
  const value = form.amount ?? (link.suggested_amount ? new Decimal(link.suggested_amount).toFixed() : '');
  return field(
    'amount',
    `Amount (${link.currency})`,
    value,
    html`type="number" inputmode="decimal" required step="${step}" min="${link.min_amount ?? step}"${link.max_amount ? html` max="${link.max_amount}"` : ''}`,
  );
}

/** Step one of a link with email verification: the email, and a code sent to it. */
function codeForm(link: PaymentLinkRow, form: LinkForm): SafeHtml {
  return html`<form method="post" action="/pay/link/${link.identifier}/code" id="code-form">
<p class="muted">${link.name} asks you to confirm your email first: we send you a 6-digit code.</p>
${field('email', 'Email', form.email, 'type="email" required autocomplete="email"')}
<button type="submit" class="primary" id="send-code">Send code</button></form>`;
}

/** The payer's form (step two of a link with email verification). */
function payerForm(page: PublicLink, form: LinkForm): SafeHtml {
  const { link } = page;
  const subscription = link.link_type === 'subscription';
  const verifying = link.is_email_verification_required;
  const email = verifying
    ? html`<input type="hidden" name="email" value="${form.email ?? ''}"><input type="hidden" name="verificationTokenId" value="${form.verificationTokenId ?? ''}"><p class="muted">We sent a code to <strong data-field="email">${form.email ?? ''}</strong>.</p>${field('verificationCode', 'Verification code', '', 'inputmode="numeric" pattern="[0-9]{6}" required autocomplete="one-time-code"')}`
    : field('email', 'Email', form.email, 'type="email" required autocomplete="email"');
  const password = link.password_hash !== null ? field('password', 'Password', '', 'type="password" required') : '';
  return html`<form method="post" action="/pay/link/${link.identifier}${subscription ? '/subscribe' : ''}" id="payer-form">
${subscription ? planChoice(page, form) : ''}${amountField(link, form)}${email}
${field('firstName', 'First name', form.firstName, 'required autocomplete="given-name"')}
${field('lastName', 'Last name', form.lastName, 'required autocomplete="family-name"')}
${password}
<button type="submit" class="primary" id="pay">${link.call_to_action_text}</button></form>
${verifying ? html`<form method="post" action="/pay/link/${link.identifier}/code"><input type="hidden" name="email" value="${form.email ?? ''}"><button type="submit" id="resend">Send a new code</button></form>` : ''}`;
}

/** The plans of a subscription link, one radio button each (the first chosen), in the payer's form. */
function planChoice(page: PublicLink, form: LinkForm): SafeHtml {
  const chosen = form.planId ?? String(page.plans[0]?.plan.id ?? '');
  const every = (unit: string, count: number) => (count === 1 ? `a ${unit}` : `every ${count} ${unit}s`);
  const options = page.plans.map(({ plan }) => {
    const id = String(plan.id);
    return html`<label class="plan"><input type="radio" name="planId" value="${id}" data-plan="${id}"${id === chosen ? raw(' checked') : ''} required> ${plan.name} · ${formatMoney(plan.amount, plan.currency)} ${every(plan.interval, plan.interval_count)}</label>`;
  });
  return html`<fieldset class="plans"><legend>Choose a plan</legend>${options}</fieldset>`;
}

/** The body of the page; `alert` is why the last form was refused. */
export function linkBody(page: PublicLink, state: LinkPageState, form: LinkForm, alert?: string): SafeHtml {
  const { link } = page;
  const subscription = link.link_type === 'subscription';
  let action: SafeHtml;
  if (state !== 'open')
    action = html`<p class="alert" data-notice="${state}">${state === 'not_yet_valid' ? `This payment link opens on ${formatDay(link.valid_from)}.` : STATE_NOTICE[state]}</p>`;
  else if (subscription && page.plans.length === 0)
    action = html`<p class="notice" data-notice="no-plans">No plan can be chosen at the moment. Contact ${page.merchant.name}.</p>`;
  else if (link.is_email_verification_required && !form.verificationTokenId) action = codeForm(link, form);
  else action = payerForm(page, form);
  return html`${link.livemode ? '' : html`<span class="badge">Test mode: no real money moves</span>`}
<h1 data-state="${state}">${link.name}</h1>
${link.description ? html`<p class="muted" data-field="description">${link.description}</p>` : ''}
${link.product_description ? html`<p data-field="product">${link.product_description}</p>` : ''}
${subscription ? '' : priceOf(link)}
${action}
<div class="alert" id="alert" role="alert" aria-live="assertive">${alert ?? ''}</div>`;
}
