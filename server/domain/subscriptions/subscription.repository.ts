import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../shared/errors.js';
import type { Caller } from '../sessions/session.repository.js';
import type { PageRequest } from '../../shared/pagination.js';
import type { SubscriptionView } from './subscription.mapper.js';
import type { SubscriptionStatus } from '../../db/tables/subscriptions.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface SubscriptionFilter extends PageRequest {
  clientId?: number | undefined;
  status?: SubscriptionStatus | undefined;
  planId?: number | undefined;
}

/** Subscriptions with their customer's email and their plan's name, always of one merchant and mode. */
function subscriptions(db: Db, caller: Caller) {
  return db
    .selectFrom('subscriptions')
    .innerJoin('plans', 'plans.id', 'subscriptions.plan_id')
    .leftJoin('customers', 'customers.id', 'subscriptions.customer_id')
    .selectAll('subscriptions')
    .select(['customers.email as client_email', 'plans.name as plan_name'])
    .where('subscriptions.merchant_id', '=', caller.merchantId)
    .where('subscriptions.livemode', '=', caller.livemode);
}

/** Adds each subscription's items (with their plans' names), in one query. */
async function withItems(db: Db, caller: Caller, rows: Omit<SubscriptionView, 'items'>[]): Promise<SubscriptionView[]> {
  if (rows.length === 0) return [];
  const items = await db
    .selectFrom('subscription_items')
    .innerJoin('plans', 'plans.id', 'subscription_items.plan_id')
    .selectAll('subscription_items')
    .select('plans.name as plan_name')
    .where('subscription_items.merchant_id', '=', caller.merchantId)
    .where('subscription_items.livemode', '=', caller.livemode)
    .where('subscription_items.subscription_id', 'in', rows.map((r) => r.id))
    .orderBy('subscription_items.id')
    .execute();
  return rows.map((r) => ({ ...r, items: items.filter((i) => i.subscription_id === r.id) }));
}

/** The caller's subscription in the key's mode; 404 for anyone else's, exactly like a missing one. */
export async function findSubscription(db: Db, caller: Caller, id: number): Promise<SubscriptionView> {
  const row = await subscriptions(db, caller).where('subscriptions.id', '=', id).executeTakeFirst();
  if (!row) throw new AppError('resource_not_found', { param: 'id', message: `No such subscription: ${id}.` });
  return (await withItems(db, caller, [row]))[0]!;
}

/** A newest-first page of the caller's subscriptions (one extra row tells whether more follow). */
export async function findSubscriptions(db: Db, caller: Caller, filter: SubscriptionFilter): Promise<SubscriptionView[]> {
  let q = subscriptions(db, caller);
  if (filter.clientId !== undefined) q = q.where('subscriptions.customer_id', '=', filter.clientId);
  if (filter.status !== undefined) q = q.where('subscriptions.status', '=', filter.status);
  if (filter.planId !== undefined) {
    const planId = filter.planId;
    q = q.where(({ exists, selectFrom }) => exists(selectFrom('subscription_items').select('subscription_items.id').whereRef('subscription_items.subscription_id', '=', 'subscriptions.id').where('subscription_items.plan_id', '=', planId)));
  }
  if (filter.startingAfter !== undefined) q = q.where('subscriptions.id', '<', filter.startingAfter);
  return withItems(db, caller, await q.orderBy('subscriptions.id', 'desc').limit(filter.limit + 1).execute());
}
