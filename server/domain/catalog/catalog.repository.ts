import { type Insertable, sql, type Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { ofMerchant } from '../../db/scope.js';
import { precompiled } from '../../db/precompiled.js';
import type { Plan, PlansTable, Product, ProductsTable } from './catalog.tables.js';
import { type ListPage, listPage, type ListQuery } from '../../odata/index.js';
import type { PageRequest } from '../../shared/pagination.js';
import type { MerchantRef } from '../../shared/tenant.js';

// Products and plans belong to a merchant and are shared by both modes: every statement is scoped
// to the merchant, never to a mode.

export async function insertProduct(db: Db, values: Insertable<ProductsTable>): Promise<Product> {
  return db.insertInto('products').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function findProduct(db: Db, owner: MerchantRef, id: number, options: { lock?: boolean } = {}): Promise<Product | undefined> {
  const query = db.selectFrom('products').selectAll().where(ofMerchant(owner)).where('id', '=', id);
  return (options.lock ? query.forUpdate() : query).executeTakeFirst();
}

export async function findProducts(db: Db, owner: MerchantRef, page: PageRequest): Promise<Product[]> {
  let q = db.selectFrom('products').selectAll().where(ofMerchant(owner));
  if (page.startingAfter !== undefined) q = q.where('id', '<', page.startingAfter);
  return q
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .execute();
}

export async function insertPlan(db: Db, values: Insertable<PlansTable>): Promise<Plan> {
  return db.insertInto('plans').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function findPlan(db: Db, owner: MerchantRef, id: number, options: { lock?: boolean } = {}): Promise<Plan | undefined> {
  return (await planQuery(db, [owner.merchantId, id], options.lock ? 'lock' : '')).rows[0];
}

const planQuery = precompiled((db, value, shape) => {
  const query = db
    .selectFrom('plans')
    .selectAll()
    .where(ofMerchant({ merchantId: value(0) }))
    .where('id', '=', value(1));
  return shape === 'lock' ? query.forUpdate() : query;
});

export async function findPlans(db: Db, owner: MerchantRef, page: PageRequest & { includeArchived: boolean }): Promise<Plan[]> {
  let q = db.selectFrom('plans').selectAll().where(ofMerchant(owner));
  if (!page.includeArchived) q = q.where('status', '=', 'available');
  if (page.startingAfter !== undefined) q = q.where('id', '<', page.startingAfter);
  return q
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .execute();
}

export async function updatePlanRow(db: Db, owner: MerchantRef, id: number, changes: Updateable<PlansTable>): Promise<Plan> {
  return db.updateTable('plans').set(changes).where(ofMerchant(owner)).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function updateProductRow(db: Db, owner: MerchantRef, id: number, changes: Updateable<ProductsTable>): Promise<Product | undefined> {
  return db.updateTable('products').set(changes).where(ofMerchant(owner)).where('id', '=', id).returningAll().executeTakeFirst();
}

/** Deletes the merchant's product; answers whether there was one. */
export async function deleteProductRow(db: Db, owner: MerchantRef, id: number): Promise<boolean> {
  const result = await db.deleteFrom('products').where(ofMerchant(owner)).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** How many plans and inventory items refer to the merchant's product. */
export async function productUsage(db: Db, owner: MerchantRef, id: number): Promise<{ plans: number; items: number }> {
  const [plans, items] = await Promise.all([
    db
      .selectFrom('plans')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where(ofMerchant(owner))
      .where('product_id', '=', id)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('subscription_inventory_items')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where(ofMerchant(owner))
      .where('product_id', '=', id)
      .executeTakeFirstOrThrow(),
  ]);
  return { plans: Number(plans.n), items: Number(items.n) };
}

/** The merchant's products of these ids (any order). */
export async function findProductsByIds(db: Db, owner: MerchantRef, ids: number[]): Promise<Product[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('products')
    .selectAll()
    .where(ofMerchant(owner))
    .where('id', 'in', [...new Set(ids)])
    .execute();
}

/** A plan with its product's name and one status for listing (archived, else active or inactive), so a list filters and sorts on it. */
export type CatalogPlan = Plan & { product_name: string; listing_status: 'active' | 'inactive' | 'archived'; effective_valid_from: Date };

/** The merchant's plans with their products' names (a derived table the OData engine can filter on). */
function catalogPlans(db: Db, owner: MerchantRef) {
  return db
    .selectFrom('plans')
    .innerJoin('products', 'products.id', 'plans.product_id')
    .selectAll('plans')
    .select([
      'products.name as product_name',
      sql<CatalogPlan['listing_status']>`CASE WHEN plans.status = 'discontinued' THEN 'archived' WHEN plans.active THEN 'active' ELSE 'inactive' END`.as(
        'listing_status',
      ),
      sql<Date>`coalesce(plans.valid_from, plans.created_at)`.as('effective_valid_from'),
    ])
    .where(ofMerchant(owner, 'plans'));
}

/** The merchant's plan with its product's name, or undefined. */
export async function findCatalogPlan(db: Db, owner: MerchantRef, id: number): Promise<CatalogPlan | undefined> {
  return catalogPlans(db, owner).where('plans.id', '=', id).executeTakeFirst();
}

/** One page of the merchant's plans (the merchant ANDed outside the caller's filter). */
export async function findCatalogPlanPage(db: Db, owner: MerchantRef, query: ListQuery): Promise<ListPage<CatalogPlan>> {
  return listPage(query, db.selectFrom(catalogPlans(db, owner).as('p')).selectAll());
}

/** One page of the merchant's products. */
export async function findProductPage(db: Db, owner: MerchantRef, query: ListQuery): Promise<ListPage<Product>> {
  return listPage(query, db.selectFrom('products').selectAll().where(ofMerchant(owner, 'products')));
}

/** For a join in another statement (a subscription or its items with their plans' names): the merchant's plans' names and products. */
export function planNames(db: Db, owner: MerchantRef) {
  return db.selectFrom('plans').select(['id', 'name', 'product_id', 'billing_type']).where(ofMerchant(owner));
}

/**
 * The plans a subscription link offers: its product's active Recurring and OneTime plans valid at
 * `now` (no subscription starts on a Usage plan), with the product's name.
 */
export async function findOfferedPlans(db: Db, merchantId: number, productId: number, now: Date): Promise<{ plan: Plan; productName: string }[]> {
  const rows = await db
    .selectFrom('plans as p')
    .innerJoin('products as pr', 'pr.id', 'p.product_id')
    .selectAll('p')
    .select('pr.name as product_name')
    .where('p.merchant_id', '=', merchantId)
    .where('p.product_id', '=', productId)
    .where('p.active', '=', true)
    .where('p.status', '=', 'available')
    .where('p.billing_type', '!=', 'usage')
    .where((eb) => eb.or([eb('p.valid_from', 'is', null), eb('p.valid_from', '<=', now)]))
    .where((eb) => eb.or([eb('p.valid_to', 'is', null), eb('p.valid_to', '>', now)]))
    .orderBy('p.id')
    .limit(100)
    .execute();
  return rows.map(({ product_name, ...plan }) => ({ plan, productName: product_name }));
}
