// A webhook delivery's page: the event it carries, and each attempt with the request's headers, the
// answer's status and body (the first bytes the log keeps) and its time. A failed or dead-lettered
// delivery can be re-sent (the service behind `resendWebhookDelivery`).
import type { Request, Response } from 'express';
import { deliverySettings } from '../../../api/kit.js';
import { getDeliveryEntry, resendDelivery } from '../../../domain/webhooks/delivery-log.js';
import type { WebhookDeliveryAttemptRow } from '../../../domain/webhooks/webhook.tables.js';
import { AppError } from '../../../shared/errors.js';
import { html, type SafeHtml } from '../../kit/html.js';
import { formatDate } from '../../kit/format.js';
import { badge, fieldList, section } from '../kit/detail.js';
import { type Flash, flashBox, postButton, redirectDone } from '../kit/form.js';
import { sendDashboardPage } from '../layout.js';
import { type DashboardContext, type SectionRoutes, sectionHref } from '../section.js';
import { DELIVERY_ID, doneText, endpointId, WEBHOOK_UPDATE } from './webhook-common.js';

function deliveryId(req: Request): string {
  const text = String(req.params.deliveryId);
  if (!DELIVERY_ID.test(text)) throw new AppError('resource_not_found', { message: 'There is no such delivery.' });
  return text;
}

function attemptView(a: WebhookDeliveryAttemptRow, n: number): SafeHtml {
  const headers = Object.entries(a.request_headers ?? {}).map(([k, v]) => html`<li><code>${k}: ${v}</code></li>`);
  const fields = fieldList([
    ['Time', formatDate(a.attempted_at)],
    ['URL', a.url],
    ['Response status', a.http_status === null ? 'no answer' : String(a.http_status)],
    ['Error', a.error],
    ['Duration', `${a.duration_ms} ms`],
  ]);
  return html`<article class="attempt"><h3>Attempt ${String(n)}</h3>${fields}
<h4>Request headers</h4>${headers.length ? html`<ul class="plain">${headers}</ul>` : html`<p>No request was made.</p>`}
<h4>Response body</h4>${a.response_snippet ? html`<pre class="json">${a.response_snippet}</pre>` : html`<p>Empty.</p>`}</article>`;
}

async function sendDeliveryPage(req: Request, res: Response, ctx: DashboardContext, flash: Flash = {}, status = 200): Promise<void> {
  const id = endpointId(req);
  const { delivery, attempts, event } = await getDeliveryEntry(ctx.db, ctx.tenant, id, deliveryId(req));
  const base = sectionHref('webhooks', `/${id}`);
  const fields = fieldList([
    ['Event', `${event.type} (${event.id})`],
    ['Status', badge(delivery.status)],
    ['URL', delivery.url],
    ['Attempts', String(delivery.attempt_count)],
    ['Next automatic attempt', delivery.next_attempt_at ? formatDate(delivery.next_attempt_at) : null],
    ['Created', formatDate(delivery.created_at)],
  ]);
  const canResend = (delivery.status === 'failed' || delivery.status === 'dead_lettered') && ctx.can(...WEBHOOK_UPDATE);
  const actions = canResend ? section('Actions', postButton(ctx, `${base}/deliveries/${delivery.id}/resend`, 'Re-send now', {}, 'primary'), 'actions') : html``;
  const list = attempts.length ? html`${attempts.map((a, i) => attemptView(a, i + 1))}` : html`<p class="empty">No attempt yet.</p>`;
  const body = html`<p class="crumbs"><a href="${sectionHref('webhooks')}">Webhooks</a> › <a href="${base}">Endpoint ${String(id)}</a></p>
<h1>Delivery of ${delivery.event_type}</h1>${flashBox({ notice: doneText(req), ...flash })}
${section('Details', fields, 'details')}${actions}${section('Attempts', list, 'attempts')}`;
  sendDashboardPage(res, ctx, { title: `Delivery ${delivery.id}`, body, section: 'webhooks', status });
}

/** The delivery pages and the re-send action, under the webhooks section. */
export function deliveryPageRoutes(r: SectionRoutes): void {
  r.get('/:id/deliveries/:deliveryId', (req, res, ctx) => sendDeliveryPage(req, res, ctx));
  r.post('/:id/deliveries/:deliveryId/resend', WEBHOOK_UPDATE, async (req, res, ctx) => {
    const id = endpointId(req);
    const did = deliveryId(req);
    try {
      await resendDelivery(ctx.db, ctx.clock, deliverySettings(ctx.deps), ctx.tenant, id, did);
    } catch (err) {
      if (!(err instanceof AppError) || err.status >= 500 || err.code === 'resource_not_found') throw err;
      return sendDeliveryPage(req, res, ctx, { alert: err.message }, err.status);
    }
    redirectDone(res, sectionHref('webhooks', `/${id}/deliveries/${did}`), 'resent');
  });
}
