import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { Plan, PlanInterval, Product } from '../../db/tables/catalog.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { amountToDecimal, currencyCode } from '../../shared/money.js';
import { type Page, type PageRequest, toPage } from '../../shared/pagination.js';
import type { MerchantRef } from '../../shared/tenant.js';
import { findPlan, findPlans, findProduct, findProducts, insertPlan, insertProduct, updatePlanRow } from './catalog.repository.js';

// Products and plans belong to a merchant and are shared by both modes, so these functions take
// the merchant id and never a mode.

export async function createProduct(db: Db, clock: Clock, owner: MerchantRef, input: { name: string; description?: string | null | undefined; type?: Product['type'] | undefined }): Promise<Product> {
  return insertProduct(db, { merchant_id: owner.merchantId, name: input.name, description: input.description ?? null, type: input.type ?? 'service', media: '[]', created_at: clock.now() });
}

export async function getProduct(db: Db, owner: MerchantRef, id: number): Promise<Product> {
  const product = await findProduct(db, owner, id);
  if (!product) throw new AppError('resource_not_found', { param: 'id', message: `No such product: ${id}.` });
  return product;
}

export async function listProducts(db: Db, owner: MerchantRef, page: PageRequest): Promise<Page<Product>> {
  return toPage(await findProducts(db, owner, page), page.limit);
}

export interface CreatePlanInput {
  productId: number;
  name: string;
  description?: string | null | undefined;
  /** In the currency's units: an exact decimal text, or a JSON number read through its shortest text. */
  amount: number | string;
  currency: string;
  interval: PlanInterval;
  intervalCount?: number | undefined;
  active?: boolean | undefined;
}

/** Creates a plan of one of the merchant's products; `active: false` makes a draft. */
export async function createPlan(db: Kysely<Database>, clock: Clock, owner: MerchantRef, input: CreatePlanInput): Promise<Plan> {
  const currency = currencyCode(input.currency);
  const amount = amountToDecimal(input.amount, currency);
  return db.transaction().execute(async (trx) => {
    const product = await findProduct(trx, owner, input.productId);
    if (!product) throw new AppError('validation_error', { param: 'productId', message: `productId ${input.productId} is not one of your products. Create the product first (POST /v1/products).` });
    const now = clock.now();
    return insertPlan(trx, {
        merchant_id: owner.merchantId,
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
    });
  });
}

export async function getPlan(db: Db, owner: MerchantRef, id: number): Promise<Plan> {
  const plan = await findPlan(db, owner, id);
  if (!plan) throw new AppError('resource_not_found', { param: 'id', message: `No such plan: ${id}.` });
  return plan;
}

/** The merchant's plan, or undefined (for rules that refuse someone else's plan in their own words). */
export const findOwnPlan = (db: Db, owner: MerchantRef, id: number): Promise<Plan | undefined> => findPlan(db, owner, id);

export async function listPlans(db: Db, owner: MerchantRef, page: PageRequest & { includeArchived: boolean }): Promise<Page<Plan>> {
  return toPage(await findPlans(db, owner, page), page.limit);
}

/** The fields of a plan that can never change: create a new plan and move subscribers instead. */
export const IMMUTABLE_PLAN_FIELDS = ['amount', 'currency', 'interval', 'intervalCount'] as const;

export async function updatePlan(
  db: Kysely<Database>,
  clock: Clock,
  owner: MerchantRef,
  id: number,
  input: { name?: string | undefined; description?: string | null | undefined; active?: boolean | undefined } & Partial<Record<(typeof IMMUTABLE_PLAN_FIELDS)[number], unknown>>,
): Promise<Plan> {
  const immutable = IMMUTABLE_PLAN_FIELDS.find((f) => input[f] !== undefined);
  if (immutable) {
    throw new AppError('field_immutable', {
      param: immutable,
      message: `${immutable} of a plan cannot be changed. Create a new plan and move subscribers to it.`,
    });
  }
  return db.transaction().execute(async (trx) => {
    const plan = await findPlan(trx, owner, id, { lock: true });
    if (!plan) throw new AppError('resource_not_found', { param: 'id', message: `No such plan: ${id}.` });
    if (plan.status === 'discontinued') throw new AppError('invalid_state', { message: 'This plan is archived (discontinued) and can no longer be changed.' });
    const changes = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.active !== undefined ? { active: input.active } : {}),
    };
    if (Object.keys(changes).length === 0) return plan;
    return updatePlanRow(trx, owner, id, { ...changes, updated_at: clock.now() });
  });
}

/** Archives a plan: `discontinued`; existing subscriptions keep billing, new ones cannot start. Repeating it changes nothing. */
export async function archivePlan(db: Db, clock: Clock, owner: MerchantRef, id: number): Promise<Plan> {
  const plan = await getPlan(db, owner, id);
  if (plan.status === 'discontinued') return plan;
  return updatePlanRow(db, owner, id, { status: 'discontinued', active: false, updated_at: clock.now() });
}
