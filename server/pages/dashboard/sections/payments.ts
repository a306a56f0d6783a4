// Payments: the list (filters by status, method, dates and amount; search by id, reference,
// checkout session or email), on keyset pages, and each payment's page (payment-page.ts).
// Reading needs `payment.read`, the scope of the API's payment reads.
import type { Request } from 'express';
import { type PaymentListFilter, type PaymentListItem, listPaymentPage } from '../../../domain/payments/payment-reads.service.js';
import type { PaymentStatus } from '../../../domain/payments/payment.tables.js';
import { html } from '../../kit/html.js';
import { formatDate, formatMoney } from '../../kit/format.js';
import { badge } from '../kit/detail.js';
import { field, flashBox, selectField } from '../kit/form.js';
import { type Column, cursorOf, filterForm, pageOf, pager, queryText, table } from '../kit/list.js';
import { sendDashboardPage } from '../layout.js';
import { type DashboardSection, sectionHref } from '../section.js';
import { methodOf, paymentPageRoutes } from './payment-page.js';

const STATUSES: PaymentStatus[] = [
  'succeeded',
  'failed',
  'authorized',
  'captured',
  'released',
  'expired',
  'refunded',
  'partially_refunded',
  'pending_reversal',
  'requires_action',
  'pending',
  'withdrawn',
];
const METHODS = [
  ['card', 'Card'],
  ['wallet', 'Wallet QR'],
  ['bank_transfer', 'Bank transfer'],
  ['account_balance', 'Account balance'],
] as const;

const AMOUNT = /^[0-9]{1,15}(\.[0-9]{1,4})?$/;
const DAY = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;

/** A `YYYY-MM-DD` day's start (UTC), or undefined when it is not one. */
function dayStart(text: string | undefined, plusDays = 0): Date | undefined {
  if (!text || !DAY.test(text)) return undefined;
  const at = new Date(`${text}T00:00:00Z`);
  return Number.isNaN(at.getTime()) ? undefined : new Date(at.getTime() + plusDays * 86_400_000);
}

/** The filters of the query; values that do not parse are left out (and the form shows them as typed). */
function filterOf(req: Request): PaymentListFilter {
  const status = queryText(req, 'status');
  const method = queryText(req, 'method');
  const min = queryText(req, 'min');
  const max = queryText(req, 'max');
  return {
    statuses: status && (STATUSES as string[]).includes(status) ? [status as PaymentStatus] : undefined,
    method: METHODS.some(([m]) => m === method) ? (method as PaymentListFilter['method']) : undefined,
    createdFrom: dayStart(queryText(req, 'from')),
    createdBefore: dayStart(queryText(req, 'to'), 1),
    amountMin: min && AMOUNT.test(min) ? min : undefined,
    amountMax: max && AMOUNT.test(max) ? max : undefined,
    search: queryText(req, 'q'),
  };
}

const COLUMNS: Column<PaymentListItem>[] = [
  { heading: 'Amount', numeric: true, cell: (p) => html`<a href="${sectionHref('payments', `/${p.id}`)}">${formatMoney(p.amount, p.currency)}</a>` },
  { heading: 'Status', cell: (p) => badge(p.status) },
  { heading: 'Method', cell: (p) => methodOf(p) },
  { heading: 'Email', cell: (p) => p.billing_email ?? '' },
  { heading: 'Reference', cell: (p) => p.reference_number },
  { heading: 'Created', cell: (p) => formatDate(p.created_at) },
];

function filters(req: Request) {
  return filterForm(sectionHref('payments'), [
    field('Search', 'q', { value: queryText(req, 'q'), placeholder: 'id, reference, cs_…, email' }),
    selectField('Status', 'status', [['', 'Any'], ...STATUSES.map((s) => [s, s.replace(/_/g, ' ')] as const)], queryText(req, 'status')),
    selectField('Method', 'method', [['', 'Any'], ...METHODS], queryText(req, 'method')),
    field('From', 'from', { type: 'date', value: queryText(req, 'from') }),
    field('To', 'to', { type: 'date', value: queryText(req, 'to') }),
    field('Min amount', 'min', { inputmode: 'decimal', value: queryText(req, 'min') }),
    field('Max amount', 'max', { inputmode: 'decimal', value: queryText(req, 'max') }),
  ]);
}

export const paymentsSection: DashboardSection = {
  path: 'payments',
  label: 'Payments',
  scopes: ['payment.read'],
  routes(r) {
    r.get('/', async (req, res, ctx) => {
      const cursor = cursorOf(req);
      const page = pageOf(await listPaymentPage(ctx.db, ctx.tenant, filterOf(req), cursor), cursor);
      const body = html`<h1>Payments</h1>${flashBox({})}${filters(req)}
${table('Payments', COLUMNS, page.rows, 'No payments match.')}${pager(req, sectionHref('payments'), page, (p) => p.id)}`;
      sendDashboardPage(res, ctx, { title: 'Payments', body, section: 'payments' });
    });
    paymentPageRoutes(r);
  },
};
