// Disputes: the list (filter by status) on keyset pages, and each dispute's page with its timeline
// (opened, its dispute events with the status each one recorded, the evidence deadline, closed).
// Reading needs `dispute.read`, the scope of the API's dispute reads; its events need `event.read`.
import type { Request } from 'express';
import { getDispute, listDisputes } from '../../../domain/disputes/dispute.service.js';
import type { DisputeRow, DisputeStatus } from '../../../domain/disputes/dispute.tables.js';
import { eventsOfPayment } from '../../../domain/events/event-read.service.js';
import { AppError } from '../../../shared/errors.js';
import { html, type SafeHtml } from '../../kit/html.js';
import { formatDate, formatMoney } from '../../kit/format.js';
import { badge, fieldList, section, type TimelineItem, timeline } from '../kit/detail.js';
import { selectField } from '../kit/form.js';
import { afterToken, choiceOf, olderPager, PAGE_SIZE } from '../kit/keyset.js';
import { type Column, filterForm, queryText, table } from '../kit/list.js';
import { sendDashboardPage } from '../layout.js';
import { type DashboardContext, type DashboardSection, sectionHref } from '../section.js';

const DISPUTE_ID = /^dp_[A-Za-z0-9_-]{1,60}$/;
const STATUSES: readonly DisputeStatus[] = ['open', 'under_review', 'won', 'lost', 'accepted'];

const COLUMNS: Column<DisputeRow>[] = [
  { heading: 'Amount', numeric: true, cell: (d) => html`<a href="${sectionHref('disputes', `/${d.id}`)}">${formatMoney(d.amount, d.currency)}</a>` },
  { heading: 'Status', cell: (d) => badge(d.status) },
  { heading: 'Reason', cell: (d) => d.reason.replace(/_/g, ' ') },
  { heading: 'Evidence due', cell: (d) => (d.evidence_due_at ? formatDate(d.evidence_due_at) : '') },
  { heading: 'Opened', cell: (d) => formatDate(d.created_at) },
];

/** The status a dispute event recorded (its subject is the dispute as it was then). */
function statusOfEvent(subject: unknown): string | undefined {
  const s = subject as { kind?: string; dispute?: { status?: unknown } } | null;
  return s?.kind === 'dispute' && typeof s.dispute?.status === 'string' ? s.dispute.status : undefined;
}

async function timelineOf(ctx: DashboardContext, d: DisputeRow): Promise<SafeHtml> {
  const items: TimelineItem[] = [];
  if (ctx.can('event.read')) {
    for (const e of await eventsOfPayment(ctx.db, ctx.tenant, d.payment_id)) {
      if (!e.type.startsWith('dispute.')) continue;
      const status = statusOfEvent(e.subject);
      items.push({ at: e.created_at, title: `Event ${e.type}`, detail: status ? `status ${status.replace(/_/g, ' ')}` : e.id });
    }
  }
  if (items.length === 0) {
    items.push({ at: d.created_at, title: 'Dispute opened', detail: `${formatMoney(d.amount, d.currency)} · ${d.reason.replace(/_/g, ' ')}` });
    if (d.closed_at) items.push({ at: d.closed_at, title: `Dispute closed: ${d.status}` });
  }
  if (d.evidence_due_at && !d.closed_at) items.push({ at: d.evidence_due_at, title: 'Evidence due' });
  return timeline(items);
}

async function sendDisputePage(req: Request, ctx: DashboardContext): Promise<{ title: string; body: SafeHtml }> {
  const id = String(req.params.id);
  if (!DISPUTE_ID.test(id)) throw new AppError('resource_not_found', { message: 'There is no such dispute.' });
  const d = await getDispute(ctx.db, ctx.tenant, id);
  const fields = fieldList([
    ['Amount', formatMoney(d.amount, d.currency)],
    ['Status', badge(d.status)],
    ['Reason', d.reason.replace(/_/g, ' ')],
    ['Fee', formatMoney(d.fee, d.currency)],
    ['Payment', ctx.can('payment.read') ? html`<a href="${sectionHref('payments', `/${d.payment_id}`)}">${String(d.payment_id)}</a>` : String(d.payment_id)],
    ['Evidence due', d.evidence_due_at ? formatDate(d.evidence_due_at) : null],
    ['Closed', d.closed_at ? formatDate(d.closed_at) : null],
    ['Dispute id', d.id],
    ['Opened', formatDate(d.created_at)],
  ]);
  const body = html`<p class="crumbs"><a href="${sectionHref('disputes')}">Disputes</a></p><h1>Dispute ${formatMoney(d.amount, d.currency)}</h1>
${section('Details', fields, 'details')}${section('Timeline', await timelineOf(ctx, d), 'timeline')}`;
  return { title: `Dispute ${d.id}`, body };
}

export const disputesSection: DashboardSection = {
  path: 'disputes',
  label: 'Disputes',
  scopes: ['dispute.read'],
  routes(r) {
    r.get('/', async (req, res, ctx) => {
      const page = await listDisputes(ctx.db, ctx.tenant, {
        limit: PAGE_SIZE,
        startingAfter: afterToken(req, DISPUTE_ID),
        status: choiceOf(req, 'status', STATUSES),
      });
      const filters = filterForm(sectionHref('disputes'), [
        selectField('Status', 'status', [['', 'Any'], ...STATUSES.map((s) => [s, s.replace(/_/g, ' ')] as const)], queryText(req, 'status')),
      ]);
      const body = html`<h1>Disputes</h1>${filters}
${table('Disputes', COLUMNS, page.data, 'No disputes match.')}${olderPager(req, sectionHref('disputes'), page.hasMore, page.data.at(-1)?.id)}`;
      sendDashboardPage(res, ctx, { title: 'Disputes', body, section: 'disputes' });
    });
    r.get('/:id', async (req, res, ctx) => {
      const page = await sendDisputePage(req, ctx);
      sendDashboardPage(res, ctx, { ...page, section: 'disputes' });
    });
  },
};
