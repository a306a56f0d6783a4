// Checkout sessions: the list (by status; search by session id or customer email) on keyset
// pages, and a session's page with its payment and its events. Reading needs
// `checkout.session.read`, the scope of the API's retrieve.
import type { Request } from 'express';
import { eventsOfSession } from '../../../domain/events/event-read.service.js';
import { getSession, listSessionPage, type SessionListItem } from '../../../domain/checkout/session.service.js';
import { AppError } from '../../../shared/errors.js';
import { html } from '../../kit/html.js';
import { formatDate, formatMoney } from '../../kit/format.js';
import { badge, fieldList, section, timeline } from '../kit/detail.js';
import { field, selectField } from '../kit/form.js';
import { type Column, filterForm, pageOf, pager, queryText, table, textCursorOf } from '../kit/list.js';
import { sendDashboardPage } from '../layout.js';
import { type DashboardSection, sectionHref } from '../section.js';

const SESSION_ID = /^cs_(test|live)_[A-Za-z0-9]{1,64}$/;
const STATUSES = ['created', 'payment_pending', 'processing', 'requires_action', 'completed', 'unpaid', 'expired', 'cancelled'];
const base = sectionHref('checkout-sessions');

const COLUMNS: Column<SessionListItem>[] = [
  { heading: 'Amount', numeric: true, cell: (s) => html`<a href="${base}/${s.id}">${formatMoney(s.amount, s.currency)}</a>` },
  { heading: 'Status', cell: (s) => badge(s.status) },
  { heading: 'Payment', cell: (s) => s.payment_status.replace(/_/g, ' ') },
  { heading: 'Customer', cell: (s) => s.customer_email ?? '' },
  { heading: 'Session', cell: (s) => html`<code>${s.id}</code>` },
  { heading: 'Created', cell: (s) => formatDate(s.created_at) },
];

function listFilters(req: Request) {
  const status = queryText(req, 'status');
  return filterForm(base, [
    field('Search', 'q', { value: queryText(req, 'q'), placeholder: 'cs_…, email' }),
    selectField('Status', 'status', [['', 'Any'], ...STATUSES.map((s) => [s, s.replace(/_/g, ' ')] as const)], status),
  ]);
}

export const checkoutSessionsSection: DashboardSection = {
  path: 'checkout-sessions',
  label: 'Checkout sessions',
  scopes: ['checkout.session.read'],
  routes(r) {
    r.get('/', async (req, res, ctx) => {
      const cursor = textCursorOf(req, SESSION_ID);
      const status = queryText(req, 'status');
      const filter = { status: status && STATUSES.includes(status) ? status : undefined, search: queryText(req, 'q') };
      const page = pageOf(await listSessionPage(ctx.db, ctx.tenant, filter, cursor), cursor);
      const body = html`<h1>Checkout sessions</h1>${listFilters(req)}
${table('Checkout sessions', COLUMNS, page.rows, 'No checkout sessions match.')}${pager(req, base, page, (s) => s.id)}`;
      sendDashboardPage(res, ctx, { title: 'Checkout sessions', body, section: 'checkout-sessions' });
    });
    r.get('/:id', async (req, res, ctx) => {
      const id = String(req.params.id);
      if (!SESSION_ID.test(id)) throw new AppError('resource_not_found', { message: 'There is no such checkout session.' });
      const s = await getSession(ctx.db, ctx.clock, ctx.tenant, id);
      const payment =
        s.payment_id !== null && ctx.can('payment.read')
          ? html`<a href="${sectionHref('payments', `/${s.payment_id}`)}">Payment ${s.payment_id}</a>`
          : s.payment_id === null
            ? null
            : String(s.payment_id);
      const fields = fieldList([
        ['Amount', formatMoney(s.amount, s.currency)],
        ['Status', badge(s.status)],
        ['Payment status', s.payment_status.replace(/_/g, ' ')],
        ['Payment', payment],
        ['Mode', `${s.mode}, ${s.payment_type.replace(/_/g, ' ')}`],
        ['Capture', s.capture_method],
        ['Customer', s.customer_email],
        ['Invoice reference', s.invoice_reference],
        ['Description', s.description],
        ['Created', formatDate(s.created_at)],
        ['Expires', formatDate(s.expires_at)],
      ]);
      const events = ctx.can('event.read')
        ? section(
            'Timeline',
            timeline((await eventsOfSession(ctx.db, ctx.tenant, s.id)).map((e) => ({ at: e.created_at, title: `Event ${e.type}`, detail: e.id }))),
            'timeline',
          )
        : html``;
      const body = html`<p class="crumbs"><a href="${base}">Checkout sessions</a></p>
<h1>Checkout session ${formatMoney(s.amount, s.currency)}</h1><p><code>${s.id}</code></p>${section('Details', fields, 'details')}${events}`;
      sendDashboardPage(res, ctx, { title: `Checkout session ${s.id}`, body, section: 'checkout-sessions' });
    });
  },
};
