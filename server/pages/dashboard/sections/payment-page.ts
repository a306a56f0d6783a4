// A payment's page: its fields, its timeline (events, webhook deliveries, refunds), and the
// actions the API allows on it, through the same services the API's operations call: refund
// (all or part; `checkout.session.refund`), capture and release of a hold (`checkout.session.capture`).
import type { Request, Response } from 'express';
import { captureHold, refund, releaseHold } from '../../../domain/checkout/payment-operations.js';
import { eventsOfPayment } from '../../../domain/events/event-read.service.js';
import { refundsOfPayment } from '../../../domain/payments/payment-reads.service.js';
import { cardOf, findPaymentRecord } from '../../../domain/payments/payment.service.js';
import type { PaymentRow } from '../../../domain/payments/payment.tables.js';
import { refundability } from '../../../domain/payments/refunds.js';
import { deliveriesOfEvents } from '../../../domain/webhooks/delivery-log.js';
import { AppError } from '../../../shared/errors.js';
import { html, type SafeHtml } from '../../kit/html.js';
import { formatDate, formatMoney } from '../../kit/format.js';
import { badge, fieldList, section, type TimelineItem, timeline } from '../kit/detail.js';
import { csrfField, type Flash, flashBox, postButton, redirectDone } from '../kit/form.js';
import { sendDashboardPage } from '../layout.js';
import { type DashboardContext, type SectionRoutes, sectionHref } from '../section.js';

const METHOD_NAMES: Record<string, string> = { wallet: 'Wallet QR', bank_transfer: 'Bank transfer', account_balance: 'Account balance' };

/** How a payment was paid, as a list shows it: `visa •••• 4242`, `Wallet QR`. */
export function methodOf(p: { method_type: string; brand: string | null; last4: string | null }): string {
  if (p.method_type === 'card') return p.last4 ? `${p.brand ?? 'card'} •••• ${p.last4}` : (p.brand ?? 'Card');
  return METHOD_NAMES[p.method_type] ?? p.method_type;
}

const REFUND_SCOPES = ['checkout.session.refund'];
const HOLD_SCOPES = ['checkout.session.capture'];

/** What the page says after an action (`?done=`): constant text. */
const DONE: Record<string, string> = {
  refunded: 'The refund was made.',
  captured: 'The payment was captured.',
  released: 'The hold was released.',
};

function paymentId(req: Request): number {
  const text = String(req.params.id);
  const id = /^[1-9][0-9]{0,9}$/.test(text) ? Number(text) : NaN;
  if (!(id <= 2147483647)) throw new AppError('resource_not_found', { message: 'There is no such payment.' });
  return id;
}

async function loadPayment(ctx: DashboardContext, id: number): Promise<PaymentRow> {
  const payment = await findPaymentRecord(ctx.db, ctx.tenant, id);
  if (!payment) throw new AppError('resource_not_found', { message: 'There is no such payment in this mode.' });
  return payment;
}

async function timelineOf(ctx: DashboardContext, payment: PaymentRow): Promise<SafeHtml> {
  const items: TimelineItem[] = [{ at: payment.created_at, title: 'Payment created', detail: formatMoney(payment.amount, payment.currency) }];
  for (const r of await refundsOfPayment(ctx.db, ctx.tenant, payment.id))
    items.push({ at: r.created_at, title: `Refund ${r.status}`, detail: `${formatMoney(r.amount, r.currency)}${r.reason ? ` · ${r.reason}` : ''}` });
  if (ctx.can('event.read')) {
    const events = await eventsOfPayment(ctx.db, ctx.tenant, payment.id);
    for (const e of events) items.push({ at: e.created_at, title: `Event ${e.type}`, detail: e.id });
    if (ctx.can('webhookconfiguration.read')) {
      for (const d of await deliveriesOfEvents(
        ctx.db,
        ctx.tenant,
        events.map((e) => e.id),
      ))
        items.push({ at: d.created_at, title: `Webhook ${d.event_type}: ${d.status}`, detail: `${d.url} · ${d.attempt_count} attempt(s)` });
    }
  }
  return timeline(items);
}

function actions(ctx: DashboardContext, payment: PaymentRow): SafeHtml {
  const base = sectionHref('payments', `/${payment.id}`);
  const parts: SafeHtml[] = [];
  if (payment.session_id !== null && refundability(payment).refundable && ctx.can(...REFUND_SCOPES)) {
    parts.push(html`<form method="post" action="${base}/refund" class="action-form" id="refund-form">${csrfField(ctx)}
<div class="field"><label for="refund-amount">Amount to refund (${payment.currency}; empty for all that is left)</label><input id="refund-amount" name="amount" inputmode="decimal" autocomplete="off"></div>
<button type="submit" class="button danger">Refund</button></form>`);
  }
  if (payment.session_id !== null && payment.status === 'authorized' && ctx.can(...HOLD_SCOPES)) {
    parts.push(html`<form method="post" action="${base}/capture" class="action-form" id="capture-form">${csrfField(ctx)}
<div class="field"><label for="capture-amount">Amount to capture (empty for all)</label><input id="capture-amount" name="amount" inputmode="decimal" autocomplete="off"></div>
<button type="submit" class="button primary">Capture</button></form>`);
    parts.push(postButton(ctx, `${base}/release`, 'Release the hold'));
  }
  return parts.length ? section('Actions', html`<div class="actions">${parts}</div>`, 'actions') : html``;
}

async function sendPaymentPage(req: Request, res: Response, ctx: DashboardContext, flash: Flash = {}, status = 200): Promise<void> {
  const payment = await loadPayment(ctx, paymentId(req));
  const card = await cardOf(ctx.db, payment);
  const fields = fieldList([
    ['Amount', formatMoney(payment.amount, payment.currency)],
    ['Status', badge(payment.status)],
    ['Method', methodOf({ method_type: payment.method_type, brand: card?.brand ?? payment.card_brand, last4: card?.last4 ?? null })],
    ['Email', card?.billing_email],
    ['Reference', payment.reference_number],
    ['Payment id', String(payment.id)],
    ['Checkout session', payment.session_id],
    ['Captured', payment.captured_amount === null ? null : formatMoney(payment.captured_amount, payment.currency)],
    ['Refunded', formatMoney(payment.refunded_amount, payment.currency)],
    ['Fee', formatMoney(payment.fee, payment.currency)],
    ['Failure', payment.failure_message],
    ['Created', formatDate(payment.created_at)],
  ]);
  const done = DONE[String(req.query.done)];
  const body = html`<p class="crumbs"><a href="${sectionHref('payments')}">Payments</a></p>
<h1>Payment ${formatMoney(payment.amount, payment.currency)}</h1>${flashBox({ notice: done, ...flash })}
${section('Details', fields, 'details')}${actions(ctx, payment)}${section('Timeline', await timelineOf(ctx, payment), 'timeline')}`;
  sendDashboardPage(res, ctx, { title: `Payment ${payment.reference_number}`, body, section: 'payments', status });
}

/** An amount typed in a form: undefined when empty (all of it), else the text (the service checks it as the API does). */
function amountField(req: Request): string | undefined {
  const value = (req.body as Record<string, unknown> | undefined)?.amount;
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** Runs an action; a refusal shows on the payment's page with its message and status. */
async function act(req: Request, res: Response, ctx: DashboardContext, done: string, action: (id: number) => Promise<unknown>): Promise<void> {
  const id = paymentId(req);
  try {
    await action(id);
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500 || err.code === 'resource_not_found') throw err;
    return sendPaymentPage(req, res, ctx, { alert: err.message }, err.status);
  }
  redirectDone(res, sectionHref('payments', `/${id}`), done);
}

/** The payment page and its actions, under the payments section. */
export function paymentPageRoutes(r: SectionRoutes): void {
  r.get('/:id', (req, res, ctx) => sendPaymentPage(req, res, ctx));
  r.post('/:id/refund', REFUND_SCOPES, (req, res, ctx) =>
    act(req, res, ctx, 'refunded', (id) => refund(ctx.db, ctx.clock, ctx.tenant, { paymentId: id }, { amount: amountField(req) })),
  );
  r.post('/:id/capture', HOLD_SCOPES, (req, res, ctx) =>
    act(req, res, ctx, 'captured', (id) => captureHold(ctx.db, ctx.clock, ctx.tenant, id, { amount: amountField(req) })),
  );
  r.post('/:id/release', HOLD_SCOPES, (req, res, ctx) => act(req, res, ctx, 'released', (id) => releaseHold(ctx.db, ctx.clock, ctx.tenant, id)));
}
