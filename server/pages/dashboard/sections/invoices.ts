// Invoices: the list (filters by status and created dates), on keyset pages, and each invoice's
// page with its lines, payments and PDF (invoice-page.ts). Reading needs `invoice.read`, the scope
// of the API's invoice reads.
import type { Request } from 'express';
import { listInvoices } from '../../../domain/invoices/invoice.service.js';
import type { InvoiceRow } from '../../../domain/invoices/invoice.tables.js';
import { html } from '../../kit/html.js';
import { formatDate, formatMoney } from '../../kit/format.js';
import { badge } from '../kit/detail.js';
import { field, selectField } from '../kit/form.js';
import { afterNumber, choiceOf, dayStart, olderPager, PAGE_SIZE } from '../kit/keyset.js';
import { type Column, filterForm, queryText, table } from '../kit/list.js';
import { sendDashboardPage } from '../layout.js';
import { type DashboardSection, sectionHref } from '../section.js';
import { invoicePageRoutes } from './invoice-page.js';

const STATUSES = ['draft', 'pending', 'sent', 'partially_paid', 'paid', 'overdue', 'cancelled', 'expired', 'rejected'] as const;

const COLUMNS: Column<InvoiceRow>[] = [
  { heading: 'Number', cell: (i) => html`<a href="${sectionHref('invoices', `/${i.id}`)}">${i.invoice_number}</a>` },
  { heading: 'Total', numeric: true, cell: (i) => formatMoney(i.total, i.currency) },
  { heading: 'Status', cell: (i) => badge(i.status) },
  { heading: 'Payer', cell: (i) => i.payer_email ?? '' },
  { heading: 'Due', cell: (i) => (i.due_date ? formatDate(i.due_date) : '') },
  { heading: 'Created', cell: (i) => formatDate(i.created_at) },
];

function filters(req: Request) {
  return filterForm(sectionHref('invoices'), [
    selectField('Status', 'status', [['', 'Any'], ...STATUSES.map((s) => [s, s.replace(/_/g, ' ')] as const)], queryText(req, 'status')),
    field('From', 'from', { type: 'date', value: queryText(req, 'from') }),
    field('To', 'to', { type: 'date', value: queryText(req, 'to') }),
  ]);
}

export const invoicesSection: DashboardSection = {
  path: 'invoices',
  label: 'Invoices',
  scopes: ['invoice.read'],
  routes(r) {
    r.get('/', async (req, res, ctx) => {
      const page = await listInvoices(ctx.db, ctx.tenant, {
        limit: PAGE_SIZE,
        startingAfter: afterNumber(req),
        status: choiceOf(req, 'status', STATUSES),
        createdFrom: dayStart(queryText(req, 'from')),
        createdBefore: dayStart(queryText(req, 'to'), 1),
      });
      const body = html`<h1>Invoices</h1>${filters(req)}
${table('Invoices', COLUMNS, page.data, 'No invoices match.')}${olderPager(req, sectionHref('invoices'), page.hasMore, page.data.at(-1)?.id)}`;
      sendDashboardPage(res, ctx, { title: 'Invoices', body, section: 'invoices' });
    });
    invoicePageRoutes(r);
  },
};
