// Subscriptions: the list (filters by status, plan and customer), on keyset pages, and each
// subscription's page with its cycle and its invoices (subscription-page.ts). Reading needs
// `subscription.read`, the scope of the API's subscription reads.
import type { Request } from 'express';
import { listSubscriptions } from '../../../domain/billing/subscription.service.js';
import type { SubscriptionDetails, SubscriptionStatus } from '../../../domain/billing/subscription.tables.js';
import { html } from '../../kit/html.js';
import { formatDate, formatMoney } from '../../kit/format.js';
import { badge } from '../kit/detail.js';
import { field, selectField } from '../kit/form.js';
import { afterNumber, choiceOf, numericId, olderPager, PAGE_SIZE } from '../kit/keyset.js';
import { type Column, filterForm, queryText, table } from '../kit/list.js';
import { sendDashboardPage } from '../layout.js';
import { type DashboardSection, sectionHref } from '../section.js';
import { subscriptionPageRoutes } from './subscription-page.js';

export const SUBSCRIPTION_STATUSES: readonly SubscriptionStatus[] = ['active', 'trialing', 'past_due', 'unpaid', 'paused', 'canceled', 'pending'];

const COLUMNS: Column<SubscriptionDetails>[] = [
  { heading: 'Customer', cell: (s) => html`<a href="${sectionHref('subscriptions', `/${s.id}`)}">${s.client_email ?? `Customer ${s.customer_id}`}</a>` },
  { heading: 'Plan', cell: (s) => s.plan_name },
  { heading: 'Status', cell: (s) => badge(s.status) },
  {
    heading: 'Amount',
    numeric: true,
    cell: (s) => `${formatMoney(s.amount, s.currency)} / ${s.interval_count > 1 ? `${s.interval_count} ` : ''}${s.interval}`,
  },
  { heading: 'Period ends', cell: (s) => formatDate(s.current_period_end) },
  { heading: 'Created', cell: (s) => formatDate(s.created_at) },
];

function filters(req: Request) {
  return filterForm(sectionHref('subscriptions'), [
    selectField('Status', 'status', [['', 'Any'], ...SUBSCRIPTION_STATUSES.map((s) => [s, s.replace(/_/g, ' ')] as const)], queryText(req, 'status')),
    field('Plan id', 'plan', { inputmode: 'numeric', value: queryText(req, 'plan') }),
    field('Customer id', 'customer', { inputmode: 'numeric', value: queryText(req, 'customer') }),
  ]);
}

export const subscriptionsSection: DashboardSection = {
  path: 'subscriptions',
  label: 'Subscriptions',
  scopes: ['subscription.read'],
  routes(r) {
    r.get('/', async (req, res, ctx) => {
      const page = await listSubscriptions(ctx.db, ctx.tenant, {
        limit: PAGE_SIZE,
        startingAfter: afterNumber(req),
        status: choiceOf(req, 'status', SUBSCRIPTION_STATUSES),
        planId: numericId(queryText(req, 'plan') ?? ''),
        clientId: numericId(queryText(req, 'customer') ?? ''),
      });
      const body = html`<h1>Subscriptions</h1>${filters(req)}
${table('Subscriptions', COLUMNS, page.data, 'No subscriptions match.')}${olderPager(req, sectionHref('subscriptions'), page.hasMore, page.data.at(-1)?.id)}`;
      sendDashboardPage(res, ctx, { title: 'Subscriptions', body, section: 'subscriptions' });
    });
    subscriptionPageRoutes(r);
  },
};
