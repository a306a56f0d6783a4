// The Commerce catalog's OData lists of products and plans, and a plan as that catalog shows it
// (with its product's name, and its product when expanded).
import type { Db } from '../../db/database.js';
import type { Product } from './catalog.tables.js';
import type { ListPage, ListQuery } from '../../odata/index.js';
import { AppError } from '../../shared/errors.js';
import type { MerchantRef } from '../../shared/tenant.js';
import { type CatalogPlan, findCatalogPlan, findCatalogPlanPage, findProductPage, findProductsByIds } from './catalog.repository.js';

export type { CatalogPlan };

/** A catalog plan and, when asked for, its product. */
export interface ExpandedPlan {
  plan: CatalogPlan;
  product?: Product | undefined;
}

/** The merchant's plan as the catalog shows it; 404 for anyone else's. */
export async function getCatalogPlan(db: Db, owner: MerchantRef, id: number): Promise<CatalogPlan> {
  const plan = await findCatalogPlan(db, owner, id);
  if (!plan) throw new AppError('resource_not_found', { param: 'id', message: `No such plan: ${id}.` });
  return plan;
}

/** One page of the merchant's products. */
export const listCatalogProducts = (db: Db, owner: MerchantRef, query: ListQuery): Promise<ListPage<Product>> => findProductPage(db, owner, query);

/** One page of the merchant's plans, each with its product when asked for. */
export async function listCatalogPlans(db: Db, owner: MerchantRef, query: ListQuery, options: { withProducts: boolean }): Promise<ListPage<ExpandedPlan>> {
  const page = await findCatalogPlanPage(db, owner, query);
  const products = options.withProducts
    ? await findProductsByIds(
        db,
        owner,
        page.data.map((p) => p.product_id),
      )
    : undefined;
  const byId = new Map((products ?? []).map((p) => [p.id, p]));
  return { ...page, data: page.data.map((plan) => ({ plan, ...(products ? { product: byId.get(plan.product_id) } : {}) })) };
}
