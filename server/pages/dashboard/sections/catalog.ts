// Products and plans (the merchant's catalog, the same in both modes): lists on keyset pages and a
// page each; a plan can be archived through the API's service (`subscriptionplan.delete`, the
// scope of archivePlan). Reading needs `subscriptionproduct.read` and `subscriptionplan.read`.
import type { Request, Response } from 'express';
import { archivePlan, getPlan, getProduct, listPlans, listProducts } from '../../../domain/catalog/catalog.service.js';
import type { Plan, Product } from '../../../domain/catalog/catalog.tables.js';
import { AppError } from '../../../shared/errors.js';
import { html, type SafeHtml } from '../../kit/html.js';
import { formatDate, formatMoney } from '../../kit/format.js';
import { runAction } from '../kit/action.js';
import { badge, fieldList, section } from '../kit/detail.js';
import { type Flash, flashBox, postButton, selectField } from '../kit/form.js';
import { afterNumber, numericId, olderPager, PAGE_SIZE } from '../kit/keyset.js';
import { type Column, filterForm, queryText, table } from '../kit/list.js';
import { sendDashboardPage } from '../layout.js';
import { type DashboardContext, type DashboardSection, sectionHref } from '../section.js';

const ARCHIVE_SCOPES = ['subscriptionplan.delete'];

function idOf(req: Request, what: string): number {
  const id = numericId(String(req.params.id));
  if (id === undefined) throw new AppError('resource_not_found', { message: `There is no such ${what}.` });
  return id;
}

const every = (p: Plan): string =>
  p.billing_type === 'one_time'
    ? 'once'
    : `every ${p.interval_count > 1 ? `${p.interval_count} ${p.interval}s` : p.interval}${p.billing_type === 'usage' ? ' (by usage)' : ''}`;
const planStatus = (p: Plan): SafeHtml => badge(p.status === 'discontinued' ? 'archived' : p.active ? 'active' : 'draft');

const PRODUCT_COLUMNS: Column<Product>[] = [
  { heading: 'Name', cell: (p) => html`<a href="${sectionHref('products', `/${p.id}`)}">${p.name}</a>` },
  { heading: 'Type', cell: (p) => p.type },
  { heading: 'Created', cell: (p) => formatDate(p.created_at) },
];

const PLAN_COLUMNS: Column<Plan>[] = [
  { heading: 'Name', cell: (p) => html`<a href="${sectionHref('plans', `/${p.id}`)}">${p.name}</a>` },
  { heading: 'Price', numeric: true, cell: (p) => `${formatMoney(p.amount, p.currency)} ${every(p)}` },
  { heading: 'Status', cell: planStatus },
  { heading: 'Product', cell: (p) => html`<a href="${sectionHref('products', `/${p.product_id}`)}">${String(p.product_id)}</a>` },
  { heading: 'Created', cell: (p) => formatDate(p.created_at) },
];

export const productsSection: DashboardSection = {
  path: 'products',
  label: 'Products',
  scopes: ['subscriptionproduct.read'],
  routes(r) {
    r.get('/', async (req, res, ctx) => {
      const page = await listProducts(ctx.db, ctx.tenant, { limit: PAGE_SIZE, startingAfter: afterNumber(req) });
      const body = html`<h1>Products</h1>${table('Products', PRODUCT_COLUMNS, page.data, 'No products yet.')}${olderPager(req, sectionHref('products'), page.hasMore, page.data.at(-1)?.id)}`;
      sendDashboardPage(res, ctx, { title: 'Products', body, section: 'products' });
    });
    r.get('/:id', async (req, res, ctx) => {
      const p = await getProduct(ctx.db, ctx.tenant, idOf(req, 'product'));
      const fields = fieldList([
        ['Name', p.name],
        ['Description', p.description],
        ['Type', p.type],
        ['Product id', String(p.id)],
        ['Created', formatDate(p.created_at)],
      ]);
      const body = html`<p class="crumbs"><a href="${sectionHref('products')}">Products</a></p><h1>Product ${p.name}</h1>${section('Details', fields, 'details')}`;
      sendDashboardPage(res, ctx, { title: `Product ${p.name}`, body, section: 'products' });
    });
  },
};

async function sendPlanPage(req: Request, res: Response, ctx: DashboardContext, flash: Flash = {}, status = 200): Promise<void> {
  const p = await getPlan(ctx.db, ctx.tenant, idOf(req, 'plan'));
  const fields = fieldList([
    ['Status', planStatus(p)],
    ['Price', `${formatMoney(p.amount, p.currency)} ${every(p)}`],
    ['Description', p.description],
    ['Product', html`<a href="${sectionHref('products', `/${p.product_id}`)}">${String(p.product_id)}</a>`],
    ['Subscriptions', html`<a href="${`${sectionHref('subscriptions')}?plan=${p.id}`}">Subscriptions on this plan</a>`],
    ['Valid', p.valid_from || p.valid_to ? `${p.valid_from ? formatDate(p.valid_from) : '…'} – ${p.valid_to ? formatDate(p.valid_to) : '…'}` : null],
    ['Plan id', String(p.id)],
    ['Created', formatDate(p.created_at)],
  ]);
  const archive =
    p.status !== 'discontinued' && ctx.can(...ARCHIVE_SCOPES)
      ? section(
          'Actions',
          html`<p>Existing subscriptions keep billing; new ones cannot start.</p><div class="actions">${postButton(ctx, `${sectionHref('plans', `/${p.id}`)}/archive`, 'Archive the plan', {}, 'danger')}</div>`,
          'actions',
        )
      : html``;
  const notice = req.query.done === 'archived' ? 'The plan was archived.' : undefined;
  const body = html`<p class="crumbs"><a href="${sectionHref('plans')}">Plans</a></p><h1>Plan ${p.name}</h1>${flashBox({ notice, ...flash })}${section('Details', fields, 'details')}${archive}`;
  sendDashboardPage(res, ctx, { title: `Plan ${p.name}`, body, section: 'plans', status });
}

export const plansSection: DashboardSection = {
  path: 'plans',
  label: 'Plans',
  scopes: ['subscriptionplan.read'],
  routes(r) {
    r.get('/', async (req, res, ctx) => {
      const includeArchived = queryText(req, 'show') === 'all';
      const page = await listPlans(ctx.db, ctx.tenant, { limit: PAGE_SIZE, startingAfter: afterNumber(req), includeArchived });
      const filters = filterForm(sectionHref('plans'), [
        selectField(
          'Show',
          'show',
          [
            ['', 'Available plans'],
            ['all', 'All, archived too'],
          ],
          includeArchived ? 'all' : '',
        ),
      ]);
      const body = html`<h1>Plans</h1>${filters}${table('Plans', PLAN_COLUMNS, page.data, 'No plans match.')}${olderPager(req, sectionHref('plans'), page.hasMore, page.data.at(-1)?.id)}`;
      sendDashboardPage(res, ctx, { title: 'Plans', body, section: 'plans' });
    });
    r.get('/:id', (req, res, ctx) => sendPlanPage(req, res, ctx));
    r.post('/:id/archive', ARCHIVE_SCOPES, (req, res, ctx) => {
      const id = idOf(req, 'plan');
      return runAction(
        res,
        sectionHref('plans', `/${id}`),
        'archived',
        () => archivePlan(ctx.db, ctx.clock, ctx.tenant, id),
        (flash, status) => sendPlanPage(req, res, ctx, flash, status),
      );
    });
  },
};
