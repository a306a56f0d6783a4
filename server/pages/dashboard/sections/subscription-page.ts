// A subscription's page: its fields, its cycle (current period, trial, next renewal), its items and
// invoices, and the actions the API allows through the same services (`subscription.update`):
// cancel (now or at the period's end), pause, resume.
import type { Request, Response } from 'express';
import { cancelSubscription, pauseSubscription, resumeSubscription } from '../../../domain/billing/subscription-changes.js';
import { getSubscription, listSubscriptionInvoices } from '../../../domain/billing/subscription.service.js';
import type { SubscriptionDetails } from '../../../domain/billing/subscription.tables.js';
import type { InvoiceRow } from '../../../domain/invoices/invoice.tables.js';
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

const UPDATE_SCOPES = ['subscription.update'];
const DONE: Record<string, string> = {
  canceled: 'The subscription was canceled.',
  scheduled: 'The subscription will end at the end of its period.',
  paused: 'The subscription was paused.',
  resumed: 'The subscription was resumed.',
};

function subscriptionId(req: Request): number {
  const id = numericId(String(req.params.id));
  if (id === undefined) throw new AppError('resource_not_found', { message: 'There is no such subscription.' });
  return id;
}

/** When it renews next: the current period's end, unless it ends or is not running. */
function nextRenewal(s: SubscriptionDetails): string | null {
  if (s.cancel_at_period_end || s.cancel_at || !['active', 'trialing', 'past_due'].includes(s.status)) return null;
  return formatDate(s.current_period_end);
}

function cycle(s: SubscriptionDetails): SafeHtml {
  return fieldList([
    ['Current period', `${formatDate(s.current_period_start)} – ${formatDate(s.current_period_end)}`],
    ['Trial ends', s.trial_end ? formatDate(s.trial_end) : null],
    ['Next renewal', nextRenewal(s)],
    ['Ends', s.cancel_at ? formatDate(s.cancel_at) : s.cancel_at_period_end ? formatDate(s.current_period_end) : null],
    ['Canceled', s.canceled_at ? formatDate(s.canceled_at) : null],
    ['Paused', s.paused_at ? formatDate(s.paused_at) : null],
    ['Dunning attempts', s.status === 'past_due' || s.status === 'unpaid' ? String(s.dunning_attempts) : null],
    ['Credit', /^0(\.0+)?$/.test(s.credit_balance) ? null : formatMoney(s.credit_balance, s.currency)],
  ]);
}

const INVOICE_COLUMNS: Column<InvoiceRow>[] = [
  { heading: 'Number', cell: (i) => html`<a href="${sectionHref('invoices', `/${i.id}`)}">${i.invoice_number}</a>` },
  { heading: 'Status', cell: (i) => badge(i.status) },
  { heading: 'Total', numeric: true, cell: (i) => formatMoney(i.total, i.currency) },
  { heading: 'Period', cell: (i) => (i.period_start && i.period_end ? `${formatDate(i.period_start)} – ${formatDate(i.period_end)}` : '') },
];

function actions(ctx: DashboardContext, s: SubscriptionDetails): SafeHtml {
  if (!ctx.can(...UPDATE_SCOPES)) return html``;
  const base = sectionHref('subscriptions', `/${s.id}`);
  const parts: SafeHtml[] = [];
  if (s.status === 'paused') parts.push(postButton(ctx, `${base}/resume`, 'Resume', {}, 'primary'));
  if (['active', 'trialing'].includes(s.status)) parts.push(postButton(ctx, `${base}/pause`, 'Pause'));
  if (s.status !== 'canceled') {
    if (!s.cancel_at_period_end) parts.push(postButton(ctx, `${base}/cancel`, 'Cancel at period end', { when: 'period_end' }));
    parts.push(postButton(ctx, `${base}/cancel`, 'Cancel now', { when: 'now' }, 'danger'));
  }
  return parts.length ? section('Actions', html`<div class="actions">${parts}</div>`, 'actions') : html``;
}

async function sendSubscriptionPage(req: Request, res: Response, ctx: DashboardContext, flash: Flash = {}, status = 200): Promise<void> {
  const s = await getSubscription(ctx.db, ctx.tenant, subscriptionId(req));
  const invoices = await listSubscriptionInvoices(ctx.db, ctx.tenant, s.id, { limit: 24 });
  const fields = fieldList([
    ['Status', badge(s.status)],
    ['Customer', s.client_email ?? String(s.customer_id)],
    ['Plan', html`<a href="${sectionHref('plans', `/${s.plan_id}`)}">${s.plan_name}</a>`],
    ['Amount', `${formatMoney(s.amount, s.currency)} every ${s.interval_count > 1 ? `${s.interval_count} ` : ''}${s.interval}`],
    ['Items', s.items.map((i) => `${i.plan_name} × ${i.quantity}`).join(', ')],
    ['Subscription id', String(s.id)],
    ['Started', formatDate(s.start_date)],
  ]);
  const body = html`<p class="crumbs"><a href="${sectionHref('subscriptions')}">Subscriptions</a></p>
<h1>Subscription ${s.plan_name}</h1>${flashBox({ notice: DONE[String(req.query.done)], ...flash })}
${section('Details', fields, 'details')}${section('Cycle', cycle(s), 'cycle')}${actions(ctx, s)}
${section('Invoices', table('Invoices of the subscription', INVOICE_COLUMNS, invoices.data, 'No invoices yet.'), 'invoices')}`;
  sendDashboardPage(res, ctx, { title: `Subscription ${s.id}`, body, section: 'subscriptions', status });
}

const formValue = (req: Request, name: string): unknown => (req.body as Record<string, unknown> | undefined)?.[name];

/** The subscription page and its actions, under the subscriptions section. */
export function subscriptionPageRoutes(r: SectionRoutes): void {
  const act = (req: Request, res: Response, ctx: DashboardContext, done: string, action: (id: number) => Promise<unknown>) => {
    const id = subscriptionId(req);
    return runAction(
      res,
      sectionHref('subscriptions', `/${id}`),
      done,
      () => action(id),
      (flash, status) => sendSubscriptionPage(req, res, ctx, flash, status),
    );
  };
  r.get('/:id', (req, res, ctx) => sendSubscriptionPage(req, res, ctx));
  r.post('/:id/cancel', UPDATE_SCOPES, (req, res, ctx) => {
    const atPeriodEnd = formValue(req, 'when') === 'period_end';
    return act(req, res, ctx, atPeriodEnd ? 'scheduled' : 'canceled', (id) =>
      cancelSubscription(ctx.db, ctx.clock, ctx.tenant, id, { cancelAtPeriodEnd: atPeriodEnd, reason: 'Canceled from the dashboard' }),
    );
  });
  r.post('/:id/pause', UPDATE_SCOPES, (req, res, ctx) => act(req, res, ctx, 'paused', (id) => pauseSubscription(ctx.db, ctx.clock, ctx.tenant, id, {})));
  r.post('/:id/resume', UPDATE_SCOPES, (req, res, ctx) => act(req, res, ctx, 'resumed', (id) => resumeSubscription(ctx.db, ctx.clock, ctx.tenant, id)));
}
