// Payouts and transfers: each a list on keyset pages with its chart, and a page each. Payouts need
// `dashboard.read` (the scope of the API's payouts dashboard, the one read of payouts there is);
// transfers need `transfer.read` (listGatewayTransfers), their chart `dashboard.read` too.
import type { Request } from 'express';
import { payoutsPerDay } from '../../../domain/payouts/payouts-dashboard.js';
import { getPayoutEntry, listPayoutEntries } from '../../../domain/payouts/payouts.service.js';
import type { PayoutEntryRow } from '../../../domain/payouts/payout.tables.js';
import { transfersByStatus } from '../../../domain/transfers/transfer-dashboard.js';
import { getTransfer, listTransferRows } from '../../../domain/transfers/transfer-lists.js';
import type { TransferRow, TransferStatus } from '../../../domain/transfers/transfer.tables.js';
import { AppError } from '../../../shared/errors.js';
import { html, type SafeHtml } from '../../kit/html.js';
import { formatDate, formatMoney } from '../../kit/format.js';
import { barChart } from '../kit/chart.js';
import { badge, fieldList, section } from '../kit/detail.js';
import { selectField } from '../kit/form.js';
import { afterNumber, afterToken, choiceOf, numericId, olderPager, PAGE_SIZE } from '../kit/keyset.js';
import { type Column, filterForm, queryText, table } from '../kit/list.js';
import { sendDashboardPage } from '../layout.js';
import { type DashboardContext, type DashboardSection, sectionHref } from '../section.js';

const PAYOUT_ID = /^po_[A-Za-z0-9_-]{1,60}$/;
const TRANSFER_STATUSES: readonly TransferStatus[] = ['Pending', 'Processing', 'Completed', 'Failed', 'Cancelled'];

const PAYOUT_COLUMNS: Column<PayoutEntryRow>[] = [
  { heading: 'Amount', numeric: true, cell: (p) => html`<a href="${sectionHref('payouts', `/${p.id}`)}">${formatMoney(p.amount, p.currency)}</a>` },
  { heading: 'Status', cell: (p) => badge(p.status) },
  { heading: 'Arrival', cell: (p) => formatDate(p.arrival_at) },
  { heading: 'Created', cell: (p) => formatDate(p.created_at) },
];

const TRANSFER_COLUMNS: Column<TransferRow>[] = [
  { heading: 'Amount', numeric: true, cell: (t) => html`<a href="${sectionHref('transfers', `/${t.id}`)}">${formatMoney(t.amount, t.currency)}</a>` },
  { heading: 'Status', cell: (t) => badge(t.status.toLowerCase()) },
  { heading: 'Action', cell: (t) => t.transfer_action },
  { heading: 'Reference', cell: (t) => t.reference_number },
  { heading: 'Created', cell: (t) => formatDate(t.created_at) },
];

/** Payouts per day over the last 30 days (the merchant's default currency), as the API's payouts dashboard counts them. */
async function payoutsChart(ctx: DashboardContext): Promise<SafeHtml> {
  const d = await payoutsPerDay(ctx.db, ctx.clock, ctx.tenant);
  const total = d.timeSeries.reduce((n, b) => n + b.entry_count, 0);
  return barChart(
    'payouts-chart',
    `Payouts per day, last 30 days (${d.currency})`,
    d.timeSeries.map((b) => b.bucket.slice(5)),
    [{ label: 'Payouts', className: 'bar-volume', values: d.timeSeries.map((b) => b.entry_count) }],
    `${total} payouts in ${d.currency} over ${d.timeSeries.length} days; ${formatMoney(d.summary.total_amount ?? '0', d.currency)} in all.`,
  );
}

/** Transfers by status over the last 30 days (default currency), as the API's transfers dashboard groups them. */
async function transfersChart(ctx: DashboardContext): Promise<SafeHtml> {
  const d = await transfersByStatus(ctx.db, ctx.clock, ctx.tenant);
  const counts = TRANSFER_STATUSES.map((s) => d.byStatus.find((g) => g.key === s)?.count ?? 0);
  return barChart(
    'transfers-chart',
    `Transfers by status, last 30 days (${d.currency})`,
    TRANSFER_STATUSES,
    [{ label: 'Transfers', className: 'bar-ok', values: counts }],
    TRANSFER_STATUSES.map((s, i) => `${s}: ${counts[i]}`).join(', '),
  );
}

export const payoutsSection: DashboardSection = {
  path: 'payouts',
  label: 'Payouts',
  scopes: ['dashboard.read'],
  routes(r) {
    r.get('/', async (req, res, ctx) => {
      const [rows, chart] = await Promise.all([
        listPayoutEntries(ctx.db, ctx.tenant, { limit: PAGE_SIZE, after: afterToken(req, PAYOUT_ID) }),
        payoutsChart(ctx),
      ]);
      const data = rows.slice(0, PAGE_SIZE);
      const body = html`<h1>Payouts</h1>${section('Payouts per day', chart, 'chart')}
${table('Payouts', PAYOUT_COLUMNS, data, 'No payouts yet.')}${olderPager(req, sectionHref('payouts'), rows.length > PAGE_SIZE, data.at(-1)?.id)}`;
      sendDashboardPage(res, ctx, { title: 'Payouts', body, section: 'payouts' });
    });
    r.get('/:id', async (req, res, ctx) => {
      const id = String(req.params.id);
      if (!PAYOUT_ID.test(id)) throw new AppError('resource_not_found', { message: 'There is no such payout.' });
      const p = await getPayoutEntry(ctx.db, ctx.tenant, id);
      const fields = fieldList([
        ['Amount', formatMoney(p.amount, p.currency)],
        ['Status', badge(p.status)],
        ['Fee', formatMoney(p.fee, p.currency)],
        ['Destination', `${p.destination_type.replace(/_/g, ' ')}${p.destination_last4 ? ` •••• ${p.destination_last4}` : ''}`],
        ['Carried by', p.transfer_type],
        ['Arrival', formatDate(p.arrival_at)],
        ['Arrived', p.completed_at ? formatDate(p.completed_at) : null],
        ['Failed', p.failed_at ? `${formatDate(p.failed_at)}: ${p.failure_reason ?? ''}` : null],
        ['Payout id', p.id],
        ['Created', formatDate(p.created_at)],
      ]);
      const body = html`<p class="crumbs"><a href="${sectionHref('payouts')}">Payouts</a></p><h1>Payout ${formatMoney(p.amount, p.currency)}</h1>${section('Details', fields, 'details')}`;
      sendDashboardPage(res, ctx, { title: 'Payout', body, section: 'payouts' });
    });
  },
};

function transferFilters(req: Request): SafeHtml {
  return filterForm(sectionHref('transfers'), [
    selectField('Status', 'status', [['', 'Any'], ...TRANSFER_STATUSES.map((s) => [s, s] as const)], queryText(req, 'status')),
  ]);
}

export const transfersSection: DashboardSection = {
  path: 'transfers',
  label: 'Transfers',
  scopes: ['transfer.read'],
  routes(r) {
    r.get('/', async (req, res, ctx) => {
      const page = { limit: PAGE_SIZE, startingAfter: afterNumber(req), status: choiceOf(req, 'status', TRANSFER_STATUSES) };
      const [rows, counts] = await Promise.all([listTransferRows(ctx.db, ctx.tenant, page), ctx.can('dashboard.read') ? transfersChart(ctx) : undefined]);
      const data = rows.slice(0, PAGE_SIZE);
      const chart = counts ? section('Transfers by status', counts, 'chart') : html``;
      const body = html`<h1>Transfers</h1>${chart}${transferFilters(req)}
${table('Transfers', TRANSFER_COLUMNS, data, 'No transfers match.')}${olderPager(req, sectionHref('transfers'), rows.length > PAGE_SIZE, data.at(-1)?.id)}`;
      sendDashboardPage(res, ctx, { title: 'Transfers', body, section: 'transfers' });
    });
    r.get('/:id', async (req, res, ctx) => {
      const id = numericId(String(req.params.id));
      if (id === undefined) throw new AppError('resource_not_found', { message: 'There is no such transfer.' });
      const t = await getTransfer(ctx.db, ctx.tenant, id);
      const fields = fieldList([
        ['Amount', formatMoney(t.amount, t.currency)],
        ['Status', badge(t.status.toLowerCase())],
        ['Action', t.transfer_action],
        ['Fee', `${formatMoney(t.fee, t.currency)} (paid by ${t.fee_payer})`],
        ['From account', String(t.source_account_id)],
        ['To account', `•••• ${t.destination_account_number.slice(-4)}`],
        ['Reference', t.reference_number],
        ['Description', t.description],
        ['Completes', formatDate(t.completes_at)],
        ['Completed', t.completed_at ? formatDate(t.completed_at) : null],
        ['Failed', t.failed_at ? `${formatDate(t.failed_at)}: ${t.failure_reason ?? ''}` : null],
        ['Created', formatDate(t.created_at)],
      ]);
      const body = html`<p class="crumbs"><a href="${sectionHref('transfers')}">Transfers</a></p><h1>Transfer ${formatMoney(t.amount, t.currency)}</h1>${section('Details', fields, 'details')}`;
      sendDashboardPage(res, ctx, { title: `Transfer ${t.reference_number}`, body, section: 'transfers' });
    });
  },
};
