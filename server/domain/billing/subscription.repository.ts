import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import { ofTenant } from '../../db/scope.js';
import type { SubscriptionDetails, SubscriptionItemsTable, SubscriptionRow, SubscriptionStatus, SubscriptionsTable } from '../../db/tables/subscriptions.js';
import type { PageRequest } from '../../shared/pagination.js';
import type { Tenant } from '../../shared/tenant.js';

export interface SubscriptionFilter extends PageRequest {
  clientId?: number | undefined;
  status?: SubscriptionStatus | undefined;
  planId?: number | undefined;
}

/** Subscriptions with their customer's email and their plan's name, always of one tenant. */
function subscriptions(db: Db, tenant: Tenant) {
  return db
    .selectFrom('subscriptions')
    .innerJoin('plans', 'plans.id', 'subscriptions.plan_id')
    .leftJoin('customers', 'customers.id', 'subscriptions.customer_id')
    .selectAll('subscriptions')
    .select(['customers.email as client_email', 'plans.name as plan_name'])
    .where(ofTenant(tenant, 'subscriptions'));
}

/** Adds each subscription's items (with their plans' names), in one query. */
async function withItems(db: Db, tenant: Tenant, rows: Omit<SubscriptionDetails, 'items'>[]): Promise<SubscriptionDetails[]> {
  if (rows.length === 0) return [];
  const items = await db
    .selectFrom('subscription_items')
    .innerJoin('plans', 'plans.id', 'subscription_items.plan_id')
    .selectAll('subscription_items')
    .select('plans.name as plan_name')
    .where(ofTenant(tenant, 'subscription_items'))
    .where('subscription_items.subscription_id', 'in', rows.map((r) => r.id))
    .orderBy('subscription_items.id')
    .execute();
  return rows.map((r) => ({ ...r, items: items.filter((i) => i.subscription_id === r.id) }));
}

/** The tenant's subscription with its details, or undefined. */
export async function findSubscription(db: Db, tenant: Tenant, id: number): Promise<SubscriptionDetails | undefined> {
  const row = await subscriptions(db, tenant).where('subscriptions.id', '=', id).executeTakeFirst();
  return row ? (await withItems(db, tenant, [row]))[0] : undefined;
}

/** A newest-first page of the tenant's subscriptions (one extra row tells whether more follow). */
export async function findSubscriptions(db: Db, tenant: Tenant, filter: SubscriptionFilter): Promise<SubscriptionDetails[]> {
  let q = subscriptions(db, tenant);
  if (filter.clientId !== undefined) q = q.where('subscriptions.customer_id', '=', filter.clientId);
  if (filter.status !== undefined) q = q.where('subscriptions.status', '=', filter.status);
  if (filter.planId !== undefined) {
    const planId = filter.planId;
    q = q.where(({ exists, selectFrom }) => exists(selectFrom('subscription_items').select('subscription_items.id').whereRef('subscription_items.subscription_id', '=', 'subscriptions.id').where('subscription_items.plan_id', '=', planId)));
  }
  if (filter.startingAfter !== undefined) q = q.where('subscriptions.id', '<', filter.startingAfter);
  return withItems(db, tenant, await q.orderBy('subscriptions.id', 'desc').limit(filter.limit + 1).execute());
}

export async function insertSubscription(db: Db, values: Insertable<SubscriptionsTable>): Promise<SubscriptionRow> {
  return db.insertInto('subscriptions').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function insertItem(db: Db, values: Insertable<SubscriptionItemsTable>) {
  return db.insertInto('subscription_items').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function setStatus(db: Db, tenant: Tenant, id: number, status: SubscriptionStatus, now: Date): Promise<void> {
  await db.updateTable('subscriptions').set({ status, updated_at: now }).where('id', '=', id).where(ofTenant(tenant)).execute();
}
