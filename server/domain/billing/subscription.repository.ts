import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { inScope, ofTenant } from '../../db/scope.js';
import type {
  SubscriptionDetails,
  SubscriptionItemRow,
  SubscriptionItemsTable,
  SubscriptionRow,
  SubscriptionStatus,
  SubscriptionsTable,
} from './subscription.tables.js';
import { type ListPage, listPage, type ListQuery } from '../../odata/index.js';
import type { DueScope } from '../../shared/due-scope.js';
import type { PageRequest } from '../../shared/pagination.js';
import type { Tenant } from '../../shared/tenant.js';
import type { PlanBillingType } from '../catalog/catalog.tables.js';
import { planNames } from '../catalog/catalog.repository.js';
import { customerEmails } from '../customers/customer.repository.js';

export interface SubscriptionFilter extends PageRequest {
  clientId?: number | undefined;
  status?: SubscriptionStatus | undefined;
  planId?: number | undefined;
}

/** Subscriptions with their customer's email and their plan's name, always of one tenant. */
function subscriptions(db: Db, tenant: Tenant) {
  return db
    .selectFrom('subscriptions')
    .innerJoin(planNames(db, tenant).as('plans'), 'plans.id', 'subscriptions.plan_id')
    .leftJoin(customerEmails(db, tenant).as('customers'), 'customers.id', 'subscriptions.customer_id')
    .selectAll('subscriptions')
    .select(['customers.email as client_email', 'plans.name as plan_name'])
    .where(ofTenant(tenant, 'subscriptions'));
}

/** Adds each subscription's items (with their plans' names), in one query. */
async function withItems(db: Db, tenant: Tenant, rows: Omit<SubscriptionDetails, 'items'>[]): Promise<SubscriptionDetails[]> {
  if (rows.length === 0) return [];
  const items = await db
    .selectFrom('subscription_items')
    .innerJoin(planNames(db, tenant).as('plans'), 'plans.id', 'subscription_items.plan_id')
    .selectAll('subscription_items')
    .select(['plans.name as plan_name', 'plans.billing_type as billing_type'])
    .where(ofTenant(tenant, 'subscription_items'))
    .where(
      'subscription_items.subscription_id',
      'in',
      rows.map((r) => r.id),
    )
    .orderBy('subscription_items.id')
    .execute();
  const details = items.map(({ billing_type, ...item }) => ({ ...item, is_metered: billing_type === 'usage' }));
  return rows.map((r) => ({ ...r, items: details.filter((i) => i.subscription_id === r.id) }));
}

/** The tenant's subscription with its details, or undefined. */
export async function findSubscription(db: Db, tenant: Tenant, id: number): Promise<SubscriptionDetails | undefined> {
  const row = await subscriptions(db, tenant).where('subscriptions.id', '=', id).executeTakeFirst();
  return row ? (await withItems(db, tenant, [row]))[0] : undefined;
}

/** A subscription described for a list: with its customer's email, its plan's name, product and billing type. */
export type DescribedSubscription = SubscriptionRow & {
  client_email: string | null;
  plan_name: string;
  product_id: number;
  plan_billing_type: PlanBillingType;
};

/** The tenant's subscriptions with their customers' emails and their plans' names and products (a derived table the OData engine can filter on). */
function describedSubscriptions(db: Db, tenant: Tenant) {
  return db
    .selectFrom('subscriptions')
    .innerJoin(planNames(db, tenant).as('plans'), 'plans.id', 'subscriptions.plan_id')
    .leftJoin(customerEmails(db, tenant).as('customers'), 'customers.id', 'subscriptions.customer_id')
    .selectAll('subscriptions')
    .select(['customers.email as client_email', 'plans.name as plan_name', 'plans.product_id as product_id', 'plans.billing_type as plan_billing_type'])
    .where(ofTenant(tenant, 'subscriptions'));
}

/** The tenant's subscription, described (customer's email, plan's name and product), or undefined. */
export async function findDescribedSubscription(db: Db, tenant: Tenant, id: number): Promise<DescribedSubscription | undefined> {
  return describedSubscriptions(db, tenant).where('subscriptions.id', '=', id).executeTakeFirst();
}

/** One page of the tenant's subscriptions (the tenant ANDed outside the caller's filter). */
export async function findDescribedSubscriptionPage(db: Db, tenant: Tenant, query: ListQuery): Promise<ListPage<DescribedSubscription>> {
  return listPage(query, db.selectFrom(describedSubscriptions(db, tenant).as('s')).selectAll());
}

/** A newest-first page of the tenant's subscriptions (one extra row tells whether more follow). */
export async function findSubscriptions(db: Db, tenant: Tenant, filter: SubscriptionFilter): Promise<SubscriptionDetails[]> {
  let q = subscriptions(db, tenant);
  if (filter.clientId !== undefined) q = q.where('subscriptions.customer_id', '=', filter.clientId);
  if (filter.status !== undefined) q = q.where('subscriptions.status', '=', filter.status);
  if (filter.planId !== undefined) {
    const planId = filter.planId;
    q = q.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('subscription_items')
          .select('subscription_items.id')
          .whereRef('subscription_items.subscription_id', '=', 'subscriptions.id')
          .where('subscription_items.plan_id', '=', planId),
      ),
    );
  }
  if (filter.startingAfter !== undefined) q = q.where('subscriptions.id', '<', filter.startingAfter);
  return withItems(
    db,
    tenant,
    await q
      .orderBy('subscriptions.id', 'desc')
      .limit(filter.limit + 1)
      .execute(),
  );
}

export async function insertSubscription(db: Db, values: Insertable<SubscriptionsTable>): Promise<SubscriptionRow> {
  return db.insertInto('subscriptions').values(values).returningAll().executeTakeFirstOrThrow();
}

/** The tenant's subscription item, or undefined. */
export async function findItem(db: Db, tenant: Tenant, id: number): Promise<SubscriptionItemRow | undefined> {
  return db.selectFrom('subscription_items').selectAll().where('id', '=', id).where(ofTenant(tenant)).executeTakeFirst();
}

export async function insertItem(db: Db, values: Insertable<SubscriptionItemsTable>) {
  return db.insertInto('subscription_items').values(values).returningAll().executeTakeFirstOrThrow();
}

type DueFields = Pick<SubscriptionRow, 'status' | 'current_period_end' | 'cancel_at' | 'next_retry_at'>;

const earliest = (...times: (Date | null)[]): Date | null => {
  const set = times.filter((t): t is Date => t !== null);
  return set.length === 0 ? null : new Date(Math.min(...set.map((t) => t.getTime())));
};

/**
 * When a subscription's next due work falls due, from its state: an active or trialing one at its
 * period end (the renewal, the trial's end, or the scheduled cancellation), a past-due one at its
 * next dunning retry, and any not canceled at a scheduled cancellation; null when nothing is due.
 */
export function dueAtOf(s: DueFields): Date | null {
  const cancelAt = s.status === 'canceled' ? null : s.cancel_at;
  if (s.status === 'active' || s.status === 'trialing') return earliest(s.current_period_end, cancelAt);
  if (s.status === 'past_due') return earliest(s.next_retry_at, cancelAt);
  return cancelAt;
}

/** The tenant's subscription row, locked for the transaction, or undefined. */
export async function lockSubscription(db: Db, tenant: Tenant, id: number): Promise<SubscriptionRow | undefined> {
  return db.selectFrom('subscriptions').selectAll().where('id', '=', id).where(ofTenant(tenant)).forUpdate().executeTakeFirst();
}

/** Changes a subscription (locked by the caller, as `current`), keeping its `next_due_at`; answers it with its details. */
export async function updateSubscription(db: Db, current: SubscriptionRow, changes: Updateable<SubscriptionsTable>, now: Date): Promise<SubscriptionDetails> {
  const merged = { ...current, ...changes } as DueFields;
  const tenant = { merchantId: current.merchant_id, livemode: current.livemode };
  await db
    .updateTable('subscriptions')
    .set({ ...changes, next_due_at: dueAtOf(merged), updated_at: now })
    .where('id', '=', current.id)
    .where(ofTenant(tenant))
    .execute();
  return (await findSubscription(db, tenant, current.id))!;
}

/** Moves a subscription's one item to another plan and price. */
export async function updateItemPlan(db: Db, tenant: Tenant, subscriptionId: number, from: number, to: { planId: number; amount: string }): Promise<void> {
  await db
    .updateTable('subscription_items')
    .set({ plan_id: to.planId, amount: to.amount })
    .where('subscription_id', '=', subscriptionId)
    .where('plan_id', '=', from)
    .where(ofTenant(tenant))
    .execute();
}

/** Subscriptions of a due-work scope whose next due work has come, earliest first. */
export async function findDueSubscriptions(
  db: Db,
  scope: DueScope,
  now: Date,
  limit: number,
): Promise<Pick<SubscriptionRow, 'id' | 'merchant_id' | 'livemode'>[]> {
  return db
    .selectFrom('subscriptions')
    .select(['id', 'merchant_id', 'livemode'])
    .where('next_due_at', '<=', now)
    .where(inScope(scope, 'subscriptions'))
    .orderBy('next_due_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** When the scope's next subscription work falls due, after `after`. */
export async function nextSubscriptionDue(db: Db, scope: DueScope, after: Date): Promise<Date | null> {
  const row = await db
    .selectFrom('subscriptions')
    .select((eb) => eb.fn.min('next_due_at').as('at'))
    .where('next_due_at', '>', after)
    .where(inScope(scope, 'subscriptions'))
    .executeTakeFirst();
  return row?.at ? new Date(row.at) : null;
}
