// The plan switch in the portal: the plans offered, then the proration's preview (credit, charge,
// net) before the customer confirms. Every step is a POST form with the portal's form token.
import { Decimal } from 'decimal.js';
import type { Plan } from '../../domain/catalog/catalog.tables.js';
import type { SubscriptionDetails } from '../../domain/billing/subscription.tables.js';
import type { Proration } from '../../domain/billing/plan-change.js';
import { formatMoney } from '../kit/format.js';
import { type SafeHtml, html } from '../kit/html.js';
import { day, type PortalPage, postForm, priceOf } from './view.js';

const backLink = (page: PortalPage) => html`<a class="back" href="${page.base}">← Back to your account</a>`;

/** The plans a subscription may switch to, each with its preview button. */
export function planChoicePage(page: PortalPage, s: SubscriptionDetails, plans: Plan[]): SafeHtml {
  const options = plans.map(
    (p) =>
      html`<article class="panel" data-plan="${p.id}"><h3>${p.name}</h3><p class="muted">${priceOf(p)}</p>${postForm(page, `/subscriptions/${s.id}/plan/preview`, `Preview ${p.name}`, { fields: { planId: String(p.id) }, name: 'preview' })}</article>`,
  );
  return html`${backLink(page)}<h1>Change plan</h1><p>Now: <strong data-field="plan">${s.plan_name}</strong> · ${priceOf(s)}</p>
${plans.length === 0 ? html`<p class="muted">No other plan is available for this subscription.</p>` : options}`;
}

/** The proration before the switch: what is credited, what is charged, and the net, then Confirm. */
export function planPreviewPage(page: PortalPage, s: SubscriptionDetails, plan: Plan, p: Proration): SafeHtml {
  const money = (amount: string) => formatMoney(amount, p.currency);
  const net = new Decimal(p.proratedAmount);
  const netText = net.isZero()
    ? 'Nothing to pay now.'
    : net.greaterThan(0)
      ? `${money(p.proratedAmount)} is charged now to your card on file.`
      : `${money(net.negated().toFixed())} is credited to your next invoices.`;
  return html`${backLink(page)}<h1>Confirm your new plan</h1>
<p>From <strong>${s.plan_name}</strong> to <strong data-field="new-plan">${plan.name}</strong> (${priceOf(plan)}).</p>
<table class="items" aria-label="Proration"><tbody>
<tr><td>Credit for unused time on ${s.plan_name}</td><td class="num" data-field="credit">−${money(p.credit)}</td></tr>
<tr><td>${plan.name} until ${day(p.periodEnd)}</td><td class="num" data-field="charge">${money(p.charge)}</td></tr>
<tr class="total"><td>Net</td><td class="num" data-field="net">${money(p.proratedAmount)}</td></tr></tbody></table>
<p class="notice" data-notice="net">${netText} From ${day(p.periodEnd)} you pay ${priceOf(plan)}.</p>
${postForm(page, `/subscriptions/${s.id}/plan/confirm`, `Confirm ${plan.name}`, { fields: { planId: String(plan.id) }, primary: true, name: 'confirm-plan' })}`;
}
