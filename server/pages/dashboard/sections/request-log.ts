// Request log: the API requests of this mode, newest first on keyset pages, filtered by status,
// operation, dates and request id, and each request's page with its bodies as stored (already
// redacted when written: no key, card number or secret). Needs `requestlog.read`.
import type { Request } from 'express';
import { getRequestLog, listRequestLogs, type RequestLogFilters, type RequestLogRow } from '../../../domain/request-logs/request-log.service.js';
import { AppError } from '../../../shared/errors.js';
import { html } from '../../kit/html.js';
import { formatDate } from '../../kit/format.js';
import { badge, fieldList, section } from '../kit/detail.js';
import { field } from '../kit/form.js';
import { type Column, cursorOf, filterForm, queryText, table } from '../kit/list.js';
import { nextLink } from '../kit/forward-pager.js';
import { sendDashboardPage } from '../layout.js';
import { type DashboardSection, sectionHref } from '../section.js';

const LOG_ID = /^rl_[A-Za-z0-9_-]{1,64}$/;
const DAY = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;

function dayStart(text: string | undefined, plusDays = 0): Date | undefined {
  if (!text || !DAY.test(text)) return undefined;
  const at = new Date(`${text}T00:00:00Z`);
  return Number.isNaN(at.getTime()) ? undefined : new Date(at.getTime() + plusDays * 86_400_000 - (plusDays ? 1 : 0));
}

function filtersOf(req: Request): RequestLogFilters {
  const status = queryText(req, 'status');
  const operation = queryText(req, 'operation');
  return {
    status: status && /^[1-5][0-9]{2}$/.test(status) ? Number(status) : undefined,
    operationId: operation && /^[A-Za-z0-9_]{1,100}$/.test(operation) ? operation : undefined,
    requestId: queryText(req, 'requestId'),
    createdFrom: dayStart(queryText(req, 'from')),
    createdTo: dayStart(queryText(req, 'to'), 1),
  };
}

const statusBadge = (status: number) => badge(status < 400 ? 'succeeded' : 'failed');
const COLUMNS: Column<RequestLogRow>[] = [
  { heading: 'Status', cell: (l) => html`${statusBadge(l.status)} <a href="${sectionHref('request-log', `/${l.id}`)}">${String(l.status)}</a>` },
  { heading: 'Request', cell: (l) => html`<code>${l.method} ${l.path}</code>` },
  { heading: 'Operation', cell: (l) => l.operation_id },
  { heading: 'Duration', numeric: true, cell: (l) => `${l.duration_ms} ms` },
  { heading: 'Created', cell: (l) => formatDate(l.created_at) },
];

const jsonBlock = (value: unknown, id: string) =>
  value === null || value === undefined ? html`<p>None.</p>` : html`<pre class="json" id="${id}" tabindex="0">${JSON.stringify(value, null, 2)}</pre>`;

export const requestLogSection: DashboardSection = {
  path: 'request-log',
  label: 'Request log',
  scopes: ['requestlog.read'],
  routes(r) {
    r.get('/', async (req, res, ctx) => {
      const after = queryText(req, 'after');
      const page = await listRequestLogs(ctx.db, ctx.tenant, filtersOf(req), {
        limit: cursorOf(req).limit,
        startingAfter: after && LOG_ID.test(after) ? after : undefined,
      });
      const base = sectionHref('request-log');
      const filters = filterForm(base, [
        field('Status', 'status', { inputmode: 'numeric', value: queryText(req, 'status'), placeholder: '402' }),
        field('Operation', 'operation', { value: queryText(req, 'operation'), placeholder: 'createCheckoutSession' }),
        field('Request id', 'requestId', { value: queryText(req, 'requestId') }),
        field('From', 'from', { type: 'date', value: queryText(req, 'from') }),
        field('To', 'to', { type: 'date', value: queryText(req, 'to') }),
      ]);
      const body = html`<h1>Request log</h1><p>The API requests of this mode over the last 30 days; bodies are stored redacted.</p>${filters}
${table('API requests', COLUMNS, page.data, 'No requests match.')}${nextLink(req, base, page.hasMore, page.data.at(-1)?.id)}`;
      sendDashboardPage(res, ctx, { title: 'Request log', body, section: 'request-log' });
    });
    r.get('/:id', async (req, res, ctx) => {
      const id = String(req.params.id);
      if (!LOG_ID.test(id)) throw new AppError('resource_not_found', { message: 'There is no such request.' });
      const l = await getRequestLog(ctx.db, ctx.tenant, id);
      const fields = fieldList([
        ['Request', html`<code>${l.method} ${l.path}</code>`],
        ['Status', String(l.status)],
        ['Operation', l.operation_id],
        ['Request id', l.request_id],
        ['Idempotency key', l.idempotency_key],
        ['Key', l.key_prefix ? `${l.key_prefix}…` : null],
        ['Client address', l.client_address],
        ['Duration', `${l.duration_ms} ms`],
        ['Created', formatDate(l.created_at)],
      ]);
      const body = html`<p class="crumbs"><a href="${sectionHref('request-log')}">Request log</a></p><h1>${l.method} ${l.path}</h1>
${section('Details', fields, 'details')}${section('Request body', jsonBlock(l.request_body, 'request-body'), 'request')}${section('Response body', jsonBlock(l.response_body, 'response-body'), 'response')}`;
      sendDashboardPage(res, ctx, { title: `Request ${l.request_id}`, body, section: 'request-log' });
    });
  },
};
