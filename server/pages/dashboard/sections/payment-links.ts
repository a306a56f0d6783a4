// Payment links: the list (filter by status) on keyset pages, and each link's page with its QR
// (the public QR image the API serves), its address and counters, and the actions the API allows
// through the same services (`paymentlink.update`): activate, deactivate. Reading needs `paymentlink.read`.
import type { Request, Response } from 'express';
import { activateLink, deactivateLink, getLink, listLinkRows } from '../../../domain/links/link.service.js';
import type { PaymentLinkRow, PaymentLinkStatus } from '../../../domain/links/link.tables.js';
import { AppError } from '../../../shared/errors.js';
import { html, type SafeHtml } from '../../kit/html.js';
import { formatDate, formatMoney } from '../../kit/format.js';
import { runAction } from '../kit/action.js';
import { badge, fieldList, section } from '../kit/detail.js';
import { type Flash, flashBox, postButton, selectField } from '../kit/form.js';
import { afterNumber, choiceOf, numericId, olderPager, PAGE_SIZE } from '../kit/keyset.js';
import { type Column, filterForm, queryText, table } from '../kit/list.js';
import { sendDashboardPage } from '../layout.js';
import { type DashboardContext, type DashboardSection, type SectionRoutes, sectionHref } from '../section.js';

const STATUSES: readonly PaymentLinkStatus[] = ['active', 'inactive', 'draft', 'expired'];
const UPDATE_SCOPES = ['paymentlink.update'];
const DONE: Record<string, string> = { activated: 'The link was activated.', deactivated: 'The link was deactivated.' };

const priceOf = (l: PaymentLinkRow): string =>
  l.is_variable_amount ? `Payer chooses (${l.currency})` : l.unit_price === null ? '' : formatMoney(l.unit_price, l.currency);

const COLUMNS: Column<PaymentLinkRow>[] = [
  { heading: 'Name', cell: (l) => html`<a href="${sectionHref('payment-links', `/${l.id}`)}">${l.name}</a>` },
  { heading: 'Price', numeric: true, cell: priceOf },
  { heading: 'Status', cell: (l) => badge(l.status) },
  { heading: 'Payments', numeric: true, cell: (l) => String(l.completed_payment_count) },
  { heading: 'Collected', numeric: true, cell: (l) => formatMoney(l.total_amount_collected, l.currency) },
  { heading: 'Created', cell: (l) => formatDate(l.created_at) },
];

function linkId(req: Request): number {
  const id = numericId(String(req.params.id));
  if (id === undefined) throw new AppError('resource_not_found', { message: 'There is no such payment link.' });
  return id;
}

function actions(ctx: DashboardContext, link: PaymentLinkRow): SafeHtml {
  if (!ctx.can(...UPDATE_SCOPES)) return html``;
  const base = sectionHref('payment-links', `/${link.id}`);
  if (link.status === 'active')
    return section('Actions', html`<div class="actions">${postButton(ctx, `${base}/deactivate`, 'Deactivate', {}, 'danger')}</div>`, 'actions');
  if (link.status === 'inactive' || link.status === 'draft')
    return section('Actions', html`<div class="actions">${postButton(ctx, `${base}/activate`, 'Activate', {}, 'primary')}</div>`, 'actions');
  return html``;
}

async function sendLinkPage(req: Request, res: Response, ctx: DashboardContext, flash: Flash = {}, status = 200): Promise<void> {
  const link = await getLink(ctx.db, ctx.tenant, linkId(req));
  const url = `${ctx.deps.config.publicBaseUrl}/pay/link/${link.identifier}`;
  const fields = fieldList([
    ['Status', badge(link.status)],
    ['Price', priceOf(link)],
    ['Address', html`<a href="${url}" class="break">${url}</a>`],
    ['Type', `${link.link_type.replace(/_/g, ' ')}, ${link.usage_mode.replace(/_/g, ' ')}`],
    ['Valid', `${formatDate(link.valid_from)}${link.valid_to ? ` – ${formatDate(link.valid_to)}` : ''}`],
    ['Uses allowed', link.max_uses === null ? 'No limit' : String(link.max_uses)],
    ['Created', formatDate(link.created_at)],
  ]);
  const counters = fieldList([
    ['Views', String(link.click_count)],
    ['Invoices', String(link.invoice_count)],
    ['Payments', String(link.completed_payment_count)],
    ['Collected', formatMoney(link.total_amount_collected, link.currency)],
  ]);
  const qr = html`<img class="qr" src="${`/v1/PaymentLink/qr/${link.identifier}`}" width="200" height="200" alt="${`QR code of the link ${link.name}`}">`;
  const body = html`<p class="crumbs"><a href="${sectionHref('payment-links')}">Payment links</a></p>
<h1>Payment link ${link.name}</h1>${flashBox({ notice: DONE[String(req.query.done)], ...flash })}
${section('Details', fields, 'details')}${section('Counters', counters, 'counters')}${actions(ctx, link)}${section('QR code', qr, 'qr')}`;
  sendDashboardPage(res, ctx, { title: `Payment link ${link.name}`, body, section: 'payment-links', status });
}

function linkRoutes(r: SectionRoutes): void {
  const act = (req: Request, res: Response, ctx: DashboardContext, done: string, action: (id: number) => Promise<unknown>) => {
    const id = linkId(req);
    return runAction(
      res,
      sectionHref('payment-links', `/${id}`),
      done,
      () => action(id),
      (flash, status) => sendLinkPage(req, res, ctx, flash, status),
    );
  };
  r.get('/:id', (req, res, ctx) => sendLinkPage(req, res, ctx));
  r.post('/:id/activate', UPDATE_SCOPES, (req, res, ctx) => act(req, res, ctx, 'activated', (id) => activateLink(ctx.db, ctx.clock, ctx.tenant, id)));
  r.post('/:id/deactivate', UPDATE_SCOPES, (req, res, ctx) => act(req, res, ctx, 'deactivated', (id) => deactivateLink(ctx.db, ctx.clock, ctx.tenant, id)));
}

export const paymentLinksSection: DashboardSection = {
  path: 'payment-links',
  label: 'Payment links',
  scopes: ['paymentlink.read'],
  routes(r) {
    r.get('/', async (req, res, ctx) => {
      const rows = await listLinkRows(ctx.db, ctx.tenant, { limit: PAGE_SIZE, startingAfter: afterNumber(req), status: choiceOf(req, 'status', STATUSES) });
      const data = rows.slice(0, PAGE_SIZE);
      const filters = filterForm(sectionHref('payment-links'), [
        selectField('Status', 'status', [['', 'Any'], ...STATUSES.map((s) => [s, s] as const)], queryText(req, 'status')),
      ]);
      const body = html`<h1>Payment links</h1>${filters}
${table('Payment links', COLUMNS, data, 'No payment links match.')}${olderPager(req, sectionHref('payment-links'), rows.length > PAGE_SIZE, data.at(-1)?.id)}`;
      sendDashboardPage(res, ctx, { title: 'Payment links', body, section: 'payment-links' });
    });
    linkRoutes(r);
  },
};
