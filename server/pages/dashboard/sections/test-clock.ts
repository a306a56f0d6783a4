// Test clock (test mode only): the merchant's sandbox clock, a form to advance it (the service
// behind `advanceTestClock`, which runs the work that falls due on the way: renewals, retries,
// expiries…), and then what changed: the events the advance wrote. Needs `testhelpers.write`.
import type { Request } from 'express';
import { advanceSandboxClock, MAX_OFFSET_SECONDS } from '../../../domain/clocks/clock-advance.js';
import { listEvents } from '../../../domain/events/event-read.service.js';
import type { EventRecord } from '../../../domain/events/subjects.js';
import { AppError } from '../../../shared/errors.js';
import { html, type SafeHtml } from '../../kit/html.js';
import { formatDate } from '../../kit/format.js';
import { fieldList, section } from '../kit/detail.js';
import { csrfField, flashBox, redirectDone, selectField } from '../kit/form.js';
import { type Column, table } from '../kit/list.js';
import { sendDashboardPage } from '../layout.js';
import { type DashboardContext, type DashboardSection, sectionHref } from '../section.js';

const SCOPES = ['testhelpers.write'];
const UNITS = { minutes: 60, hours: 3600, days: 86_400 } as const;
const EVENT_ID = /^evt_[A-Za-z0-9_-]{1,64}$/;

const COLUMNS: Column<EventRecord>[] = [
  { heading: 'Event', cell: (e) => html`<a href="${sectionHref('events', `/${e.id}`)}">${e.type}</a>` },
  { heading: 'At (test clock)', cell: (e) => formatDate(e.created_at) },
];

/** The newest event's id, to tell the advance's events from older ones. */
async function newestEventId(ctx: DashboardContext): Promise<string | undefined> {
  return (await listEvents(ctx.db, ctx.tenant, { limit: 1 })).data[0]?.id;
}

/** The events written after `since` (newest first, at most 100). */
async function eventsSince(ctx: DashboardContext, since: string | undefined): Promise<EventRecord[]> {
  const page = await listEvents(ctx.db, ctx.tenant, { limit: 100 });
  const end = since === undefined ? -1 : page.data.findIndex((e) => e.id === since);
  return end === -1 ? (since === undefined ? page.data : []) : page.data.slice(0, end);
}

async function changes(req: Request, ctx: DashboardContext): Promise<SafeHtml> {
  if (req.query.done !== 'advanced') return html``;
  const since = typeof req.query.since === 'string' && EVENT_ID.test(req.query.since) ? req.query.since : undefined;
  const jobs = typeof req.query.jobs === 'string' && /^[0-9]{1,9}$/.test(req.query.jobs) ? req.query.jobs : '0';
  const events = await eventsSince(ctx, since);
  return section(
    'What the advance changed',
    html`<p>${jobs} item(s) of due work ran.</p>${table('Events of the advance', COLUMNS, events, 'No event was written: nothing fell due.')}`,
    'changes',
  );
}

function secondsOf(req: Request): number {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const amount = typeof body.amount === 'string' && /^[1-9][0-9]{0,8}$/.test(body.amount.trim()) ? Number(body.amount.trim()) : NaN;
  const unit = UNITS[String(body.unit) as keyof typeof UNITS];
  const seconds = amount * (unit ?? NaN);
  if (!(seconds > 0 && seconds <= MAX_OFFSET_SECONDS))
    throw new AppError('parameter_invalid', { param: 'seconds', message: 'Enter a whole number of minutes, hours or days (at most 100 years in all).' });
  return seconds;
}

export const testClockSection: DashboardSection = {
  path: 'test-clock',
  label: 'Test clock',
  scopes: SCOPES,
  testModeOnly: true,
  routes(r) {
    r.get('/', async (req, res, ctx) => {
      const fields = fieldList([
        ['Test clock', formatDate(ctx.clock.now())],
        ['Real time', formatDate(new Date())],
      ]);
      const form = html`<form method="post" action="${sectionHref('test-clock', '/advance')}" class="action-form" id="advance-form">${csrfField(ctx)}
<div class="field"><label for="f-amount">Advance by</label><input id="f-amount" name="amount" inputmode="numeric" autocomplete="off" required></div>
${selectField(
  'Unit',
  'unit',
  [
    ['days', 'days'],
    ['hours', 'hours'],
    ['minutes', 'minutes'],
  ],
  'days',
)}
<button type="submit" class="button primary">Advance the clock</button></form>`;
      const notice = req.query.done === 'advanced' ? 'The test clock was advanced; the work that fell due ran.' : undefined;
      const body = html`<h1>Test clock</h1>${flashBox({ notice })}<p>Test mode runs on this clock: advance it to see renewals, retries and expiries happen now.</p>
${section('Now', fields, 'now')}${section('Advance', form, 'advance')}${await changes(req, ctx)}`;
      sendDashboardPage(res, ctx, { title: 'Test clock', body, section: 'test-clock' });
    });
    r.post('/advance', SCOPES, async (req, res, ctx) => {
      const seconds = secondsOf(req);
      const since = await newestEventId(ctx);
      try {
        const advanced = await advanceSandboxClock(ctx.db, ctx.deps.clock, ctx.tenant.merchantId, seconds, ctx.deps.dueWork);
        redirectDone(res, `${sectionHref('test-clock')}?jobs=${advanced.jobsRun}${since ? `&since=${since}` : ''}`, 'advanced');
      } finally {
        ctx.deps.sandboxOffsets.forget(ctx.tenant.merchantId);
      }
    });
  },
};
