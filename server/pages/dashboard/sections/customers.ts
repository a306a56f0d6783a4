// Customers (shared by both modes): the list, filtered by email, and a customer's page with a
// link to their payments. Reading needs `merchantclient.read`, the scope of the API's customer reads.
import { customerRows, getCustomer } from '../../../domain/customers/customer.service.js';
import type { Customer } from '../../../domain/customers/customer.tables.js';
import { AppError } from '../../../shared/errors.js';
import { html } from '../../kit/html.js';
import { formatDate } from '../../kit/format.js';
import { fieldList, section } from '../kit/detail.js';
import { field } from '../kit/form.js';
import { type Column, cursorOf, filterForm, pageOf, pager, queryText, table } from '../kit/list.js';
import { sendDashboardPage } from '../layout.js';
import { type DashboardSection, sectionHref } from '../section.js';

const COLUMNS: Column<Customer>[] = [
  { heading: 'Name', cell: (c) => html`<a href="${sectionHref('customers', `/${c.id}`)}">${c.name ?? c.email ?? `Customer ${c.id}`}</a>` },
  { heading: 'Email', cell: (c) => c.email ?? '' },
  { heading: 'External id', cell: (c) => c.external_id ?? '' },
  { heading: 'Created', cell: (c) => formatDate(c.created_at) },
];

export const customersSection: DashboardSection = {
  path: 'customers',
  label: 'Customers',
  scopes: ['merchantclient.read'],
  routes(r) {
    r.get('/', async (req, res, ctx) => {
      const cursor = cursorOf(req);
      const email = queryText(req, 'email');
      const rows = await customerRows(ctx.db, ctx.tenant, { limit: cursor.limit, startingAfter: cursor.after, endingBefore: cursor.before, email });
      const page = pageOf(rows, cursor);
      const base = sectionHref('customers');
      const body = html`<h1>Customers</h1>${filterForm(base, [field('Email', 'email', { type: 'email', value: email })])}
${table('Customers', COLUMNS, page.rows, 'No customers match.')}${pager(req, base, page, (c) => c.id)}`;
      sendDashboardPage(res, ctx, { title: 'Customers', body, section: 'customers' });
    });
    r.get('/:id', async (req, res, ctx) => {
      const text = String(req.params.id);
      if (!/^[1-9][0-9]{0,9}$/.test(text) || Number(text) > 2147483647) throw new AppError('resource_not_found', { message: 'There is no such customer.' });
      const customer = await getCustomer(ctx.db, ctx.tenant, Number(text));
      const metadata = Object.entries(customer.metadata).map(([k, v]) => [k, v] as const);
      const payments =
        customer.email && ctx.can('payment.read')
          ? html`<p><a href="${sectionHref('payments')}?q=${encodeURIComponent(customer.email)}">Payments by this email</a></p>`
          : html``;
      const body = html`<p class="crumbs"><a href="${sectionHref('customers')}">Customers</a></p>
<h1>${customer.name ?? customer.email ?? `Customer ${customer.id}`}</h1>
${section(
  'Details',
  fieldList([
    ['Customer id', String(customer.id)],
    ['Email', customer.email],
    ['Name', customer.name],
    ['Phone', customer.phone],
    ['External id', customer.external_id],
    ['Created', formatDate(customer.created_at)],
  ]),
  'details',
)}${metadata.length ? section('Metadata', fieldList(metadata), 'metadata') : ''}${payments}`;
      sendDashboardPage(res, ctx, { title: `Customer ${customer.id}`, body, section: 'customers' });
    });
  },
};
