import type { Kysely } from 'kysely';
import type { Clock } from '../../shared/clock.js';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../shared/errors.js';
import { amountToDecimal } from '../../shared/money.js';
import { type PageRequest, toPage } from '../../shared/pagination.js';
import type { Plan, PlanInterval, Product } from '../../db/tables/catalog.js';

// Products and plans belong to a merchant and are shared by both modes, so these functions take
// the merchant id and never a mode.

export async function createProduct(db: Kysely<Database>, clock: Clock, merchantId: number, input: { name: string; description?: string | null; type?: Product['type'] }): Promise<Product> {
  return db
    .insertInto('products')
    .values({ merchant_id: merchantId, name: input.name, description: input.description ?? null, type: input.type ?? 'service', media: '[]', created_at: clock.now() })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function getProduct(db: Kysely<Database>, merchantId: number, id: number): Promise<Product> {
  const product = await db.selectFrom('products').selectAll().where('merchant_id', '=', merchantId).where('id', '=', id).executeTakeFirst();
  if (!product) throw new AppError('resource_not_found', { param: 'id', message: `No such product: ${id}.` });
  return product;
}

export async function listProducts(db: Kysely<Database>, merchantId: number, page: PageRequest) {
  let q = db.selectFrom('products').selectAll().where('merchant_id', '=', merchantId);
  if (page.startingAfter !== undefined) q = q.where('id', '<', page.startingAfter);
  return toPage(await q.orderBy('id', 'desc').limit(page.limit + 1).execute(), page.limit);
}

export interface CreatePlanInput {
  productId: number;
  name: string;
  description?: string | null;
  amount: number;
  currency: string;
  interval: PlanInterval;
  intervalCount?: number;
  active?: boolean;
}

/** Creates a plan of one of the merchant's products; `active: false` makes a draft. */
export async function createPlan(db: Kysely<Database>, clock: Clock, merchantId: number, input: CreatePlanInput): Promise<Plan> {
  const currency = input.currency.toUpperCase();
  const amount = amountToDecimal(input.amount, currency);
  return db.transaction().execute(async (trx) => {
    const product = await trx.selectFrom('products').select('id').where('merchant_id', '=', merchantId).where('id', '=', input.productId).executeTakeFirst();
    if (!product) throw new AppError('validation_error', { param: 'productId', message: `productId ${input.productId} is not one of your products. Create the product first (POST /v1/products).` });
    const now = clock.now();
    return trx
      .insertInto('plans')
      .values({
        merchant_id: merchantId,
        product_id: input.productId,
        name: input.name,
        description: input.description ?? null,
        details: null,
        amount,
        currency,
        interval: input.interval,
        interval_count: input.intervalCount ?? 1,
        billing_type: 'recurring',
        active: input.active ?? true,
        status: 'available',
        valid_from: null,
        valid_to: null,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

export async function getPlan(db: Kysely<Database>, merchantId: number, id: number): Promise<Plan> {
  const plan = await db.selectFrom('plans').selectAll().where('merchant_id', '=', merchantId).where('id', '=', id).executeTakeFirst();
  if (!plan) throw new AppError('resource_not_found', { param: 'id', message: `No such plan: ${id}.` });
  return plan;
}

export async function listPlans(db: Kysely<Database>, merchantId: number, page: PageRequest & { includeArchived: boolean }) {
  let q = db.selectFrom('plans').selectAll().where('merchant_id', '=', merchantId);
  if (!page.includeArchived) q = q.where('status', '=', 'available');
  if (page.startingAfter !== undefined) q = q.where('id', '<', page.startingAfter);
  return toPage(await q.orderBy('id', 'desc').limit(page.limit + 1).execute(), page.limit);
}

/** The fields of a plan that can never change: create a new plan and move subscribers instead. */
export const IMMUTABLE_PLAN_FIELDS = ['amount', 'currency', 'interval', 'intervalCount'] as const;

export async function updatePlan(
  db: Kysely<Database>,
  clock: Clock,
  merchantId: number,
  id: number,
  input: { name?: string; description?: string | null; active?: boolean } & Partial<Record<(typeof IMMUTABLE_PLAN_FIELDS)[number], unknown>>,
): Promise<Plan> {
  const immutable = IMMUTABLE_PLAN_FIELDS.find((f) => input[f] !== undefined);
  if (immutable) {
    throw new AppError('field_immutable', {
      param: immutable,
      message: `${immutable} of a plan cannot be changed. Create a new plan and move subscribers to it.`,
    });
  }
  return db.transaction().execute(async (trx) => {
    const plan = await trx.selectFrom('plans').selectAll().where('merchant_id', '=', merchantId).where('id', '=', id).forUpdate().executeTakeFirst();
    if (!plan) throw new AppError('resource_not_found', { param: 'id', message: `No such plan: ${id}.` });
    if (plan.status === 'discontinued') throw new AppError('invalid_state', { message: 'This plan is archived (discontinued) and can no longer be changed.' });
    const changes = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.active !== undefined ? { active: input.active } : {}),
    };
    if (Object.keys(changes).length === 0) return plan;
    return trx.updateTable('plans').set({ ...changes, updated_at: clock.now() }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  });
}

/** Archives a plan: `discontinued`; existing subscriptions keep billing, new ones cannot start. Repeating it changes nothing. */
export async function archivePlan(db: Kysely<Database>, clock: Clock, merchantId: number, id: number): Promise<Plan> {
  const plan = await getPlan(db, merchantId, id);
  if (plan.status === 'discontinued') return plan;
  return db
    .updateTable('plans')
    .set({ status: 'discontinued', active: false, updated_at: clock.now() })
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
