// Audit log: who changed the merchant's roles, restricted keys, webhook configurations, locations
// or new merchants in this mode, newest first on keyset pages, filtered by action (or a family such as
// `restricted_key.*`), actor type and dates; each entry's actor (a key's display prefix or a
// dashboard session), target and changes (before → after). Needs `auditentry.read`.
import type { Request } from 'express';
import { type AuditEntry, type AuditFilters, listAuditEntries } from '../../../domain/audit/audit.service.js';
import { html, type SafeHtml } from '../../kit/html.js';
import { formatDate } from '../../kit/format.js';
import { field, selectField } from '../kit/form.js';
import { afterNumber, choiceOf, dayStart } from '../kit/keyset.js';
import { type Column, cursorOf, filterForm, queryText, table } from '../kit/list.js';
import { nextLink } from '../kit/forward-pager.js';
import { sendDashboardPage } from '../layout.js';
import { type DashboardSection, sectionHref } from '../section.js';

const ACTOR_TYPES = ['api_key', 'dashboard', 'operator'] as const;
const ACTION = /^[a-z_]{1,60}(\.[a-z_]{1,60}|\.\*)$/;

function filtersOf(req: Request): AuditFilters {
  const action = queryText(req, 'action');
  return {
    action: action && ACTION.test(action) ? action : undefined,
    actorType: choiceOf(req, 'actorType', ACTOR_TYPES),
    createdFrom: dayStart(queryText(req, 'from')),
    createdBefore: dayStart(queryText(req, 'to'), 1),
  };
}

const shown = (value: unknown): string => (value === null || value === undefined ? '—' : typeof value === 'string' ? value : JSON.stringify(value));

function changesOf(e: AuditEntry): SafeHtml {
  const entries = Object.entries(e.changes);
  if (entries.length === 0) return html`—`;
  return html`<ul class="changes">${entries.map(([name, c]) => html`<li><code>${name}</code>: ${shown(c.before)} → ${shown(c.after)}</li>`)}</ul>`;
}

const actorOf = (e: AuditEntry): SafeHtml =>
  e.actor_type === 'api_key'
    ? html`API key <code>${e.actor_key_prefix ?? ''}…</code>`
    : e.actor_type === 'dashboard'
      ? html`Dashboard session <code>${e.actor_session ?? ''}</code>`
      : html`Operator (merchant command)`;

const COLUMNS: Column<AuditEntry>[] = [
  { heading: 'Action', cell: (e) => html`<code>${e.action}</code>` },
  { heading: 'Actor', cell: actorOf },
  { heading: 'Target', cell: (e) => `${e.target_type.replace(/_/g, ' ')} ${e.target_id}` },
  { heading: 'Changes', cell: changesOf },
  { heading: 'When', cell: (e) => formatDate(e.created_at) },
];

export const auditLogSection: DashboardSection = {
  path: 'audit-log',
  label: 'Audit log',
  scopes: ['auditentry.read'],
  routes(r) {
    r.get('/', async (req, res, ctx) => {
      const page = await listAuditEntries(ctx.db, ctx.tenant, filtersOf(req), { limit: cursorOf(req).limit, startingAfter: afterNumber(req) });
      const base = sectionHref('audit-log');
      const filters = filterForm(base, [
        field('Action', 'action', { value: queryText(req, 'action'), placeholder: 'restricted_key.*' }),
        selectField(
          'Actor',
          'actorType',
          [
            ['', 'Any'],
            ['api_key', 'API key'],
            ['dashboard', 'Dashboard session'],
            ['operator', 'Operator'],
          ],
          queryText(req, 'actorType'),
        ),
        field('From', 'from', { type: 'date', value: queryText(req, 'from') }),
        field('To', 'to', { type: 'date', value: queryText(req, 'to') }),
      ]);
      const body = html`<h1>Audit log</h1><p>Changes to roles, restricted keys, webhook endpoints, locations and new merchants made in this mode, by an API key, a dashboard session or the operator's merchant command.</p>${filters}
${table('Audit entries', COLUMNS, page.data, 'No changes match.')}${nextLink(req, base, page.hasMore, page.data.at(-1)?.id)}`;
      sendDashboardPage(res, ctx, { title: 'Audit log', body, section: 'audit-log' });
    });
  },
};
