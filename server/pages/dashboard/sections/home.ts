// The home page: balances (pending, available, in transit) per currency, the last 30 days of
// payments as two charts (paid volume; succeeded vs failed), and the latest events. Each block
// shows only when the key holds the scope of the API read behind it.
import { Decimal } from 'decimal.js';
import { listEvents } from '../../../domain/events/event-read.service.js';
import { balancesByCurrency } from '../../../domain/ledger/ledger.service.js';
import { dailyPayments } from '../../../domain/payments/payment-reads.service.js';
import { html, type SafeHtml } from '../../kit/html.js';
import { formatDate, formatMoney } from '../../kit/format.js';
import { barChart } from '../kit/chart.js';
import { section } from '../kit/detail.js';
import { type Column, table } from '../kit/list.js';
import { sendDashboardPage } from '../layout.js';
import type { DashboardContext, DashboardSection } from '../section.js';

const DAYS = 30;

async function balancesBlock(ctx: DashboardContext): Promise<SafeHtml> {
  const balances = await balancesByCurrency(ctx.db, ctx.tenant);
  if (balances.length === 0) return section('Balances', html`<p class="empty">No money has moved yet in this mode.</p>`, 'balances');
  const tiles = balances.map(
    (b) => html`<div class="balance" data-currency="${b.currency}"><h3>${b.currency}</h3><dl class="fields">
<div class="kv"><dt>Available</dt><dd data-field="available">${formatMoney(b.available, b.currency)}</dd></div>
<div class="kv"><dt>Pending</dt><dd data-field="pending">${formatMoney(b.pending, b.currency)}</dd></div>
<div class="kv"><dt>In transit</dt><dd data-field="in-transit">${formatMoney(b.inTransit, b.currency)}</dd></div></dl></div>`,
  );
  return section('Balances', html`<div class="balances">${tiles}</div>`, 'balances');
}

/** The last 30 days (UTC), oldest first, as `YYYY-MM-DD`. */
function lastDays(now: Date): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: DAYS }, (_, i) => new Date(today - (DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

async function chartsBlock(ctx: DashboardContext): Promise<SafeHtml> {
  const days = lastDays(ctx.clock.now());
  const rows = await dailyPayments(ctx.db, ctx.tenant, new Date(`${days[0]}T00:00:00Z`));
  // The volume chart shows the currency with the most paid volume (amounts of two currencies do not add up).
  const byCurrency = new Map<string, Decimal>();
  for (const r of rows) byCurrency.set(r.currency, (byCurrency.get(r.currency) ?? new Decimal(0)).plus(r.volume));
  const currency = [...byCurrency.entries()].sort((a, b) => b[1].comparedTo(a[1]))[0]?.[0];
  const volume = days.map((d) => rows.filter((r) => r.day === d && r.currency === currency).reduce((s, r) => s.plus(r.volume), new Decimal(0)));
  const succeeded = days.map((d) => rows.filter((r) => r.day === d).reduce((s, r) => s + r.succeeded, 0));
  const failed = days.map((d) => rows.filter((r) => r.day === d).reduce((s, r) => s + r.failed, 0));
  const total = volume.reduce((s, v) => s.plus(v), new Decimal(0));
  const labels = days.map((d) => d.slice(5));
  const volumeChart = barChart(
    'volume',
    `Paid volume per day${currency ? ` (${currency})` : ''}`,
    labels,
    [{ label: `Volume${currency ? ` in ${currency}` : ''}`, className: 'bar-volume', values: volume.map((v) => v.toNumber()) }],
    currency ? `${formatMoney(total.toFixed(), currency)} paid over the last ${DAYS} days.` : `No payments over the last ${DAYS} days.`,
  );
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const outcomeChart = barChart(
    'outcomes',
    'Succeeded and failed payments per day',
    labels,
    [
      { label: 'Succeeded', className: 'bar-ok', values: succeeded },
      { label: 'Failed', className: 'bar-failed', values: failed },
    ],
    `${sum(succeeded)} payments succeeded and ${sum(failed)} failed over the last ${DAYS} days.`,
  );
  return section(`Last ${DAYS} days`, html`<div class="charts">${volumeChart}${outcomeChart}</div>`, 'charts');
}

const EVENT_COLUMNS: Column<Awaited<ReturnType<typeof listEvents>>['data'][number]>[] = [
  { heading: 'Event', cell: (e) => html`<code>${e.type}</code>` },
  { heading: 'Id', cell: (e) => e.id },
  { heading: 'When', cell: (e) => formatDate(e.created_at) },
];

async function activityBlock(ctx: DashboardContext): Promise<SafeHtml> {
  const events = await listEvents(ctx.db, ctx.tenant, { limit: 10 });
  return section('Recent activity', table('Recent events', EVENT_COLUMNS, events.data, 'No events yet in this mode.'), 'activity');
}

export const homeSection: DashboardSection = {
  path: '',
  label: 'Home',
  scopes: [],
  routes(r) {
    r.get('/', async (_req, res, ctx) => {
      const blocks = await Promise.all([
        ctx.can('account.read') ? balancesBlock(ctx) : html``,
        ctx.can('payment.read') ? chartsBlock(ctx) : html``,
        ctx.can('event.read') ? activityBlock(ctx) : html``,
      ]);
      const body = html`<h1>Home</h1>${blocks}`;
      sendDashboardPage(res, ctx, { title: 'Home', body, section: '' });
    });
  },
};
