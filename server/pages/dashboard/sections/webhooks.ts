// Webhooks: the merchant's endpoints (webhook configurations), newest first on keyset pages, and
// each endpoint's page: its URLs and events, its delivery log in this mode, and the actions the API
// allows (enable / disable, send a test event) through the services its operations call. Each
// delivery's page (webhook-delivery-page.ts) shows its attempts and re-sends a failed one.
import type { Request, Response } from 'express';
import { deliverySettings } from '../../../api/kit.js';
import { getConfiguration, listConfigurations, updateConfiguration } from '../../../domain/webhooks/configuration.service.js';
import { type DeliveryEntry, listDeliveries, sendTestEvent } from '../../../domain/webhooks/delivery-log.js';
import type { WebhookConfigurationRow, WebhookDeliveryStatus } from '../../../domain/webhooks/webhook.tables.js';
import { AppError } from '../../../shared/errors.js';
import { html, type SafeHtml } from '../../kit/html.js';
import { formatDate } from '../../kit/format.js';
import { badge, fieldList, section } from '../kit/detail.js';
import { type Flash, flashBox, postButton, redirectDone, selectField } from '../kit/form.js';
import { type Column, cursorOf, filterForm, queryText, table } from '../kit/list.js';
import { nextLink } from '../kit/forward-pager.js';
import { sendDashboardPage } from '../layout.js';
import { type DashboardContext, type DashboardSection, sectionHref } from '../section.js';
import { deliveryPageRoutes } from './webhook-delivery-page.js';
import { DELIVERY_ID, doneText, endpointId, STATUSES, WEBHOOK_READ, WEBHOOK_UPDATE } from './webhook-common.js';

const ENDPOINT_COLUMNS: Column<WebhookConfigurationRow>[] = [
  { heading: 'Endpoint', cell: (c) => html`<a href="${sectionHref('webhooks', `/${c.id}`)}">${c.description ?? `Endpoint ${c.id}`}</a>` },
  { heading: 'Sandbox URL', cell: (c) => c.sandbox_url ?? '—' },
  { heading: 'Live URL', cell: (c) => c.live_url ?? '—' },
  { heading: 'Events', cell: (c) => c.subscribed_events.join(', ') },
  { heading: 'Status', cell: (c) => badge(c.enabled ? 'enabled' : 'disabled') },
  { heading: 'Created', cell: (c) => formatDate(c.created_at) },
];

const DELIVERY_COLUMNS = (configurationId: number): Column<DeliveryEntry>[] => [
  {
    heading: 'Event',
    cell: (e) => html`<a href="${sectionHref('webhooks', `/${configurationId}/deliveries/${e.delivery.id}`)}">${e.delivery.event_type}</a>`,
  },
  { heading: 'Status', cell: (e) => badge(e.delivery.status) },
  { heading: 'Attempts', numeric: true, cell: (e) => String(e.delivery.attempt_count) },
  { heading: 'Last response', cell: (e) => lastResponse(e) },
  { heading: 'URL', cell: (e) => e.delivery.url },
  { heading: 'Created', cell: (e) => formatDate(e.delivery.created_at) },
];

function lastResponse(e: DeliveryEntry): string {
  const last = e.attempts[e.attempts.length - 1];
  if (!last) return '—';
  return last.http_status !== null ? `HTTP ${last.http_status}` : (last.error ?? 'no answer');
}

function endpointActions(ctx: DashboardContext, c: WebhookConfigurationRow): SafeHtml {
  if (!ctx.can(...WEBHOOK_UPDATE)) return html``;
  const base = sectionHref('webhooks', `/${c.id}`);
  const toggle = c.enabled
    ? postButton(ctx, `${base}/disable`, 'Disable the endpoint', {}, 'danger')
    : postButton(ctx, `${base}/enable`, 'Enable the endpoint', {}, 'primary');
  const url = ctx.tenant.livemode ? c.live_url : c.sandbox_url;
  const test = url ? postButton(ctx, `${base}/test`, 'Send a test event') : html``;
  return section('Actions', html`<div class="actions">${toggle}${test}</div>`, 'actions');
}

async function sendEndpointPage(req: Request, res: Response, ctx: DashboardContext, flash: Flash = {}, status = 200): Promise<void> {
  const id = endpointId(req);
  const c = await getConfiguration(ctx.db, ctx.tenant, id);
  const statusFilter = queryText(req, 'status');
  const after = queryText(req, 'after');
  const log = await listDeliveries(ctx.db, ctx.tenant, id, {
    limit: cursorOf(req).limit,
    startingAfter: after && DELIVERY_ID.test(after) ? after : undefined,
    status: STATUSES.includes(statusFilter as WebhookDeliveryStatus) ? (statusFilter as WebhookDeliveryStatus) : undefined,
  });
  const base = sectionHref('webhooks', `/${id}`);
  const fields = fieldList([
    ['Description', c.description],
    ['Status', badge(c.enabled ? 'enabled' : 'disabled')],
    ['Sandbox URL', c.sandbox_url],
    ['Live URL', c.live_url],
    ['Events', c.subscribed_events.join(', ')],
    ['Endpoint id', String(c.id)],
    ['Created', formatDate(c.created_at)],
  ]);
  const filters = filterForm(base, [selectField('Status', 'status', [['', 'Any'], ...STATUSES.map((s) => [s, s.replace(/_/g, ' ')] as const)], statusFilter)]);
  const deliveries = html`${filters}${table('Deliveries', DELIVERY_COLUMNS(id), log.data, 'No deliveries in this mode yet.')}${nextLink(req, base, log.hasMore, log.data.at(-1)?.delivery.id)}`;
  const body = html`<p class="crumbs"><a href="${sectionHref('webhooks')}">Webhooks</a></p>
<h1>${c.description ?? `Webhook endpoint ${c.id}`}</h1>${flashBox({ notice: doneText(req), ...flash })}
${section('Details', fields, 'details')}${endpointActions(ctx, c)}${section(`Deliveries (${ctx.tenant.livemode ? 'live' : 'test'} mode)`, deliveries, 'deliveries')}`;
  sendDashboardPage(res, ctx, { title: `Webhook endpoint ${c.id}`, body, section: 'webhooks', status });
}

/** Runs an action on an endpoint; a refusal (4xx) shows on its page with the service's message. */
async function act(req: Request, res: Response, ctx: DashboardContext, done: string, action: (id: number) => Promise<unknown>): Promise<void> {
  const id = endpointId(req);
  try {
    await action(id);
  } catch (err) {
    if (!(err instanceof AppError) || err.status >= 500 || err.code === 'resource_not_found') throw err;
    return sendEndpointPage(req, res, ctx, { alert: err.message }, err.status);
  }
  redirectDone(res, sectionHref('webhooks', `/${id}`), done);
}

const urlPolicy = (ctx: DashboardContext) => ({ allowLoopback: ctx.deps.config.allowLoopbackWebhooks });

export const webhooksSection = {
  path: 'webhooks',
  label: 'Webhooks',
  scopes: WEBHOOK_READ,
  routes(r) {
    r.get('/', async (req, res, ctx) => {
      const after = cursorOf(req).after;
      const page = await listConfigurations(ctx.db, ctx.tenant, { limit: cursorOf(req).limit, startingAfter: after });
      const body = html`<h1>Webhooks</h1>${flashBox({})}<p>Endpoints receive the events of both modes: test-mode events at their sandbox URL, live ones at their live URL.</p>
${table('Webhook endpoints', ENDPOINT_COLUMNS, page.data, 'No webhook endpoints yet: create one through the API (POST /v1/WebhookConfiguration).')}${nextLink(req, sectionHref('webhooks'), page.hasMore, page.data.at(-1)?.id)}`;
      sendDashboardPage(res, ctx, { title: 'Webhooks', body, section: 'webhooks' });
    });
    r.get('/:id', (req, res, ctx) => sendEndpointPage(req, res, ctx));
    r.post('/:id/enable', WEBHOOK_UPDATE, (req, res, ctx) =>
      act(req, res, ctx, 'enabled', (id) => updateConfiguration(ctx.db, ctx.clock, urlPolicy(ctx), ctx.tenant, id, { enabled: true }, ctx.audit)),
    );
    r.post('/:id/disable', WEBHOOK_UPDATE, (req, res, ctx) =>
      act(req, res, ctx, 'disabled', (id) => updateConfiguration(ctx.db, ctx.clock, urlPolicy(ctx), ctx.tenant, id, { enabled: false }, ctx.audit)),
    );
    r.post('/:id/test', WEBHOOK_UPDATE, (req, res, ctx) =>
      act(req, res, ctx, 'tested', (id) => sendTestEvent(ctx.db, ctx.clock, deliverySettings(ctx.deps), ctx.tenant, id, { live: ctx.tenant.livemode })),
    );
    deliveryPageRoutes(r);
  },
} satisfies DashboardSection;
