import { Decimal } from 'decimal.js';
import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { Plan, PlanInterval, Product } from './catalog.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { amountToDecimal, currencyCode } from '../../shared/money.js';
import { type Page, type PageRequest, toPage } from '../../shared/pagination.js';
import type { MerchantRef } from '../../shared/tenant.js';
import { findPlan, findPlans, findProduct, findProducts, insertPlan, insertProduct, updatePlanRow } from './catalog.repository.js';
import { type NewProductMedia, productMedia } from './product-media.js';

// Products and plans belong to a merchant and are shared by both modes, so these functions take
// the merchant id and never a mode.

export async function createProduct(
  db: Db,
  clock: Clock,
  owner: MerchantRef,
  input: { name: string; description?: string | null | undefined; type?: Product['type'] | undefined; media?: NewProductMedia[] | undefined },
): Promise<Product> {
  const media = JSON.stringify(productMedia(input.media ?? []));
  return insertProduct(db, {
    merchant_id: owner.merchantId,
    name: input.name,
    description: input.description ?? null,
    type: input.type ?? 'service',
    media,
    created_at: clock.now(),
  });
}

export async function getProduct(db: Db, owner: MerchantRef, id: number): Promise<Product> {
  const product = await findProduct(db, owner, id);
  if (!product) throw new AppError('resource_not_found', { param: 'id', message: `No such product: ${id}.` });
  return product;
}

export async function listProducts(db: Db, owner: MerchantRef, page: PageRequest): Promise<Page<Product>> {
  return toPage(await findProducts(db, owner, page), page.limit);
}

/** A new plan: its price in the currency's units as exact decimal text, its period, its validity as Dates. */
export interface NewPlan {
  productId: number;
  name: string;
  description?: string | null | undefined;
  details?: string | null | undefined;
  /** In the currency's units, exact decimal text. */
  amount: string;
  currency: string;
  interval: PlanInterval;
  intervalCount?: number | undefined;
  active?: boolean | undefined;
  /** Created already discontinued (the Commerce catalog lets `status` Archived be set through create). */
  archived?: boolean | undefined;
  billingType?: Plan['billing_type'] | undefined;
  validFrom?: Date | undefined;
  validTo?: Date | undefined;
}

/** The price of a plan: more than zero, exact to the currency's minor units. */
function planPrice(input: Pick<NewPlan, 'amount' | 'currency'>): { amount: string; currency: string } {
  const currency = currencyCode(input.currency);
  const amount = amountToDecimal(input.amount, currency);
  if (new Decimal(amount).lessThanOrEqualTo(0)) throw new AppError('parameter_invalid', { param: 'amount', message: 'amount must be more than zero.' });
  return { amount, currency };
}

/** `validTo` must come after `validFrom` (the creation time when there is none). */
function checkValidity(validFrom: Date, validTo: Date | null): void {
  if (validTo !== null && validTo.getTime() <= validFrom.getTime()) {
    throw new AppError('validation_error', { param: 'validTo', message: `validTo must be later than validFrom (${validFrom.toISOString()}).` });
  }
}

/** Creates a plan of one of the merchant's products; `active: false` makes a draft, `archived` a discontinued plan. */
export async function createPlan(db: Kysely<Database>, clock: Clock, owner: MerchantRef, input: NewPlan): Promise<Plan> {
  const { amount, currency } = planPrice(input);
  checkValidity(input.validFrom ?? clock.now(), input.validTo ?? null);
  return db.transaction().execute(async (trx) => {
    const product = await findProduct(trx, owner, input.productId);
    if (!product)
      throw new AppError('validation_error', {
        param: 'productId',
        message: `productId ${input.productId} is not one of your products. Create the product first (POST /v1/products).`,
      });
    const now = clock.now();
    return insertPlan(trx, {
      merchant_id: owner.merchantId,
      product_id: input.productId,
      name: input.name,
      description: input.description ?? null,
      details: input.details ?? null,
      amount,
      currency,
      interval: input.interval,
      interval_count: input.intervalCount ?? 1,
      billing_type: input.billingType ?? 'recurring',
      active: input.archived ? false : (input.active ?? true),
      status: input.archived ? 'discontinued' : 'available',
      valid_from: input.validFrom ?? null,
      valid_to: input.validTo ?? null,
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

type ImmutablePlanField = (typeof IMMUTABLE_PLAN_FIELDS)[number];

/** What a plan update may change, and the fixed fields a caller may have sent (always refused). */
export type PlanChanges = {
  name?: string | undefined;
  description?: string | null | undefined;
  details?: string | null | undefined;
  active?: boolean | undefined;
  /** Discontinues the plan, as archivePlan does. */
  archive?: boolean | undefined;
  /**
   * Brings an archived plan back: `available` again, `active` as sent (the Commerce catalog's
   * `status` `Active` or `Inactive`; the Checkout interface has no way back).
   */
  restore?: boolean | undefined;
  validFrom?: Date | undefined;
  validTo?: Date | null | undefined;
} & Partial<Record<ImmutablePlanField, unknown>>;

/** The changes an update makes to a plan's row (only the fields sent). */
function planChanges(plan: Plan, input: PlanChanges) {
  const validFrom = input.validFrom ?? plan.valid_from ?? plan.created_at;
  if (input.validFrom !== undefined || input.validTo !== undefined) checkValidity(validFrom, input.validTo !== undefined ? input.validTo : plan.valid_to);
  return {
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.details !== undefined ? { details: input.details } : {}),
    ...(input.active !== undefined ? { active: input.active } : {}),
    ...(input.validFrom !== undefined ? { valid_from: input.validFrom } : {}),
    ...(input.validTo !== undefined ? { valid_to: input.validTo } : {}),
    ...(input.restore && plan.status === 'discontinued' ? { status: 'available' as const } : {}),
    ...(input.archive ? { status: 'discontinued' as const, active: false } : {}),
  };
}

/**
 * Changes the fields sent. A plan's price and period (`amount`, `currency`, `interval`,
 * `intervalCount`) never change, whether or not subscriptions use it: sending any of them answers
 * 400 `field_immutable`, its `param` in the caller's spelling (`spelling` renames, for the Commerce
 * catalog's `timeUnit` and `timeInterval`). An archived plan is changed only by bringing it back
 * (`restore`, with any other fields sent); any other change to it is 409, and being archived
 * again changes nothing.
 */
export async function updatePlan(
  db: Kysely<Database>,
  clock: Clock,
  owner: MerchantRef,
  id: number,
  input: PlanChanges,
  spelling: Partial<Record<ImmutablePlanField, string>> = {},
): Promise<Plan> {
  const immutable = IMMUTABLE_PLAN_FIELDS.find((f) => input[f] !== undefined);
  if (immutable) {
    const param = spelling[immutable] ?? immutable;
    throw new AppError('field_immutable', { param, message: `${param} of a plan cannot be changed. Create a new plan and move subscribers to it.` });
  }
  return db.transaction().execute(async (trx) => {
    const plan = await findPlan(trx, owner, id, { lock: true });
    if (!plan) throw new AppError('resource_not_found', { param: 'id', message: `No such plan: ${id}.` });
    const onlyArchive = input.archive === true && Object.entries(input).every(([k, v]) => k === 'archive' || v === undefined);
    if (plan.status === 'discontinued' && onlyArchive) return plan;
    if (plan.status === 'discontinued' && !(input.restore === true && input.archive !== true))
      throw new AppError('invalid_state', { message: 'This plan is archived (discontinued); it cannot be changed while it is archived.' });
    const changes = planChanges(plan, input);
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
