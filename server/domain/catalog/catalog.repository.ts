import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { ofMerchant } from '../../db/scope.js';
import type { Plan, PlansTable, Product, ProductsTable } from '../../db/tables/catalog.js';
import type { PageRequest } from '../../shared/pagination.js';
import type { MerchantRef } from '../../shared/tenant.js';

// Products and plans belong to a merchant and are shared by both modes: every statement is scoped
// to the merchant, never to a mode.

export async function insertProduct(db: Db, values: Insertable<ProductsTable>): Promise<Product> {
  return db.insertInto('products').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function findProduct(db: Db, owner: MerchantRef, id: number): Promise<Product | undefined> {
  return db.selectFrom('products').selectAll().where(ofMerchant(owner)).where('id', '=', id).executeTakeFirst();
}

export async function findProducts(db: Db, owner: MerchantRef, page: PageRequest): Promise<Product[]> {
  let q = db.selectFrom('products').selectAll().where(ofMerchant(owner));
  if (page.startingAfter !== undefined) q = q.where('id', '<', page.startingAfter);
  return q.orderBy('id', 'desc').limit(page.limit + 1).execute();
}

export async function insertPlan(db: Db, values: Insertable<PlansTable>): Promise<Plan> {
  return db.insertInto('plans').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function findPlan(db: Db, owner: MerchantRef, id: number, options: { lock?: boolean } = {}): Promise<Plan | undefined> {
  const query = db.selectFrom('plans').selectAll().where(ofMerchant(owner)).where('id', '=', id);
  return (options.lock ? query.forUpdate() : query).executeTakeFirst();
}

export async function findPlans(db: Db, owner: MerchantRef, page: PageRequest & { includeArchived: boolean }): Promise<Plan[]> {
  let q = db.selectFrom('plans').selectAll().where(ofMerchant(owner));
  if (!page.includeArchived) q = q.where('status', '=', 'available');
  if (page.startingAfter !== undefined) q = q.where('id', '<', page.startingAfter);
  return q.orderBy('id', 'desc').limit(page.limit + 1).execute();
}

export async function updatePlanRow(db: Db, owner: MerchantRef, id: number, changes: Updateable<PlansTable>): Promise<Plan> {
  return db.updateTable('plans').set(changes).where(ofMerchant(owner)).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}
