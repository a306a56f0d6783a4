// The Commerce interface's subscription catalog: products and plans, the same rows as the
// Checkout interface's /v1/products and /v1/plans.
import { getCatalogPlan, listCatalogPlans, listCatalogProducts } from '../../domain/catalog/catalog-lists.js';
import { archivePlan, createPlan, createProduct, updatePlan } from '../../domain/catalog/catalog.service.js';
import { deleteProduct, updateProduct } from '../../domain/catalog/product-changes.js';
import { compileQuery } from '../../odata/index.js';
import { created, noContent, ok } from '../kit.js';
import type { CommerceHandlers } from '../types.js';
import { planResource, productResource } from './odata/catalog.js';
import { odataBody, odataList } from './odata-list.js';
import {
  catalogPlanView,
  catalogProductView,
  expandedPlanView,
  PLAN_FIELD_SPELLING,
  planCreateInput,
  planUpdateInput,
  productInput,
} from './views/catalog.view.js';

export const catalogHandlers: CommerceHandlers = {
  async createSubscriptionProduct({ db, deps, tenant, body }) {
    return created(catalogProductView(await createProduct(db, deps.clock, tenant, { ...productInput(body), name: body.name }), { media: true }));
  },
  async listSubscriptionProducts({ db, tenant, query }) {
    const compiled = compileQuery(productResource, query);
    const media = compiled.expand.includes('Media');
    // A `$select` always keeps `id`, and `$expand=Media` adds the `media` field to it.
    const shown = { ...compiled, select: compiled.select && ['id', ...compiled.select, ...(media ? ['media'] : [])] };
    const page = await listCatalogProducts(db, tenant, compiled);
    return ok(odataList(page, shown, '/v1/SubscriptionProduct', (p) => catalogProductView(p, { media })));
  },
  async updateSubscriptionProduct({ db, tenant, path, body }) {
    return ok(catalogProductView(await updateProduct(db, tenant, path.id, productInput(body)), { media: true }));
  },
  async deleteSubscriptionProduct({ db, tenant, path }) {
    await deleteProduct(db, tenant, path.id);
    return noContent();
  },
  async createSubscriptionPlan({ db, deps, tenant, body }) {
    const plan = await createPlan(db, deps.clock, tenant, planCreateInput(body));
    return created(catalogPlanView(await getCatalogPlan(db, tenant, plan.id)));
  },
  async listSubscriptionPlans({ db, tenant, query }) {
    const compiled = compileQuery(planResource, query);
    const page = await listCatalogPlans(db, tenant, compiled, { withProducts: compiled.expand.includes('Product') });
    return ok(odataBody(page, compiled, '/v1/SubscriptionPlan', expandedPlanView));
  },
  async updateSubscriptionPlan({ db, deps, tenant, path, body }) {
    await updatePlan(db, deps.clock, tenant, path.id, planUpdateInput(body), PLAN_FIELD_SPELLING);
    return ok(catalogPlanView(await getCatalogPlan(db, tenant, path.id)));
  },
  async deleteSubscriptionPlan({ db, deps, tenant, path }) {
    await archivePlan(db, deps.clock, tenant, path.id);
    return ok(catalogPlanView(await getCatalogPlan(db, tenant, path.id)));
  },
};
