// Events: the tenant's events newest first on keyset pages (filter by type or family), and one
// event's page with its JSON exactly as a webhook delivers it (the API's event view renders it).
// Reading needs `event.read`, the scope of the API's event reads.
import type { Request } from 'express';
import { eventEnvelope } from '../../../api/checkout/views/event.view.js';
import { getEvent, listEvents } from '../../../domain/events/event-read.service.js';
import type { EventRecord } from '../../../domain/events/subjects.js';
import { EVENT_TYPES } from '../../../domain/webhooks/event-types.js';
import { AppError } from '../../../shared/errors.js';
import { html } from '../../kit/html.js';
import { formatDate } from '../../kit/format.js';
import { fieldList, section } from '../kit/detail.js';
import { selectField } from '../kit/form.js';
import { type Column, cursorOf, filterForm, queryText, table } from '../kit/list.js';
import { nextLink } from '../kit/forward-pager.js';
import { sendDashboardPage } from '../layout.js';
import { type DashboardSection, sectionHref } from '../section.js';

const EVENT_ID = /^evt_[A-Za-z0-9_-]{1,64}$/;
const FAMILIES = [...new Set(EVENT_TYPES.map((t) => `${t.slice(0, t.lastIndexOf('.'))}.*`))];
const TYPE_CHOICES = [['', 'Any'] as const, ...FAMILIES.map((f) => [f, f] as const), ...EVENT_TYPES.map((t) => [t, t] as const)];

/** The type filter of the query: an event type or a family, else none. */
function typeOf(req: Request): string | undefined {
  const type = queryText(req, 'type');
  return type && TYPE_CHOICES.some(([v]) => v === type) ? type : undefined;
}

const COLUMNS: Column<EventRecord>[] = [
  { heading: 'Type', cell: (e) => html`<a href="${sectionHref('events', `/${e.id}`)}">${e.type}</a>` },
  { heading: 'Event id', cell: (e) => html`<code>${e.id}</code>` },
  { heading: 'Created', cell: (e) => formatDate(e.created_at) },
];

export const eventsSection: DashboardSection = {
  path: 'events',
  label: 'Events',
  scopes: ['event.read'],
  routes(r) {
    r.get('/', async (req, res, ctx) => {
      const after = queryText(req, 'after');
      const type = typeOf(req);
      const page = await listEvents(ctx.db, ctx.tenant, { limit: cursorOf(req).limit, startingAfter: after && EVENT_ID.test(after) ? after : undefined, type });
      const body = html`<h1>Events</h1>${filterForm(sectionHref('events'), [selectField('Type', 'type', TYPE_CHOICES, type)])}
${table('Events', COLUMNS, page.data, 'No events match.')}${nextLink(req, sectionHref('events'), page.hasMore, page.data.at(-1)?.id)}`;
      sendDashboardPage(res, ctx, { title: 'Events', body, section: 'events' });
    });
    r.get('/:id', async (req, res, ctx) => {
      const id = String(req.params.id);
      if (!EVENT_ID.test(id)) throw new AppError('resource_not_found', { message: 'There is no such event.' });
      const event = await getEvent(ctx.db, ctx.tenant, id);
      const fields = fieldList([
        ['Type', event.type],
        ['Event id', event.id],
        ['Mode', event.livemode ? 'live' : 'test'],
        ['Created', formatDate(event.created_at)],
      ]);
      const json = JSON.stringify(eventEnvelope(event), null, 2);
      const body = html`<p class="crumbs"><a href="${sectionHref('events')}">Events</a></p><h1>Event ${event.type}</h1>
${section('Details', fields, 'details')}${section('As delivered (JSON)', html`<pre class="json" id="event-json" tabindex="0">${json}</pre>`, 'body')}`;
      sendDashboardPage(res, ctx, { title: `Event ${event.type}`, body, section: 'events' });
    });
  },
};
