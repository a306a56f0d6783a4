import type { Db } from '../../db/database.js';
import type { InvoiceRow } from '../invoices/invoice.tables.js';
import type { SubscriptionDetails } from './subscription.tables.js';
import { AppError } from '../../shared/errors.js';
import { type Page, type PageRequest, toPage } from '../../shared/pagination.js';
import type { Tenant } from '../../shared/tenant.js';
import { listInvoices } from '../invoices/invoice.service.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { ListPage, ListQuery } from '../../odata/index.js';
import type { Clock } from '../../shared/clock.js';
import { cancelSubscription } from './subscription-changes.js';
import {
  type DescribedSubscription,
  findDescribedSubscription,
  findDescribedSubscriptionPage,
  findSubscription,
  findSubscriptions,
  type SubscriptionFilter,
} from './subscription.repository.js';

export type { DescribedSubscription, SubscriptionFilter };

// Subscriptions belong to one merchant and one mode: every read filters on both, and anyone
// else's subscription answers 404 exactly like a missing one.

export async function getSubscription(db: Db, tenant: Tenant, id: number): Promise<SubscriptionDetails> {
  const subscription = await findSubscription(db, tenant, id);
  if (!subscription) throw new AppError('resource_not_found', { param: 'id', message: `No such subscription: ${id}.` });
  return subscription;
}

/** A newest-first page of the tenant's subscriptions, filtered by customer, status or plan. */
export async function listSubscriptions(db: Db, tenant: Tenant, filter: SubscriptionFilter): Promise<Page<SubscriptionDetails>> {
  return toPage(await findSubscriptions(db, tenant, filter), filter.limit);
}

/** A newest-first page of the invoices a subscription raised (one per billing period). */
export async function listSubscriptionInvoices(db: Db, tenant: Tenant, id: number, page: PageRequest): Promise<Page<InvoiceRow>> {
  await getSubscription(db, tenant, id);
  return listInvoices(db, tenant, { ...page, subscriptionId: id });
}

/** One page of the tenant's subscriptions, described (customer's email, plan's name and product). */
export const listDescribedSubscriptions = (db: Db, tenant: Tenant, query: ListQuery): Promise<ListPage<DescribedSubscription>> =>
  findDescribedSubscriptionPage(db, tenant, query);

/** Cancels (the one cancel: same rules, same events) and answers the subscription described. */
export async function cancelDescribedSubscription(
  db: Kysely<Database>,
  clock: Clock,
  tenant: Tenant,
  id: number,
  input: { cancelAtPeriodEnd?: boolean | undefined; reason?: string | undefined },
): Promise<DescribedSubscription> {
  await cancelSubscription(db, clock, tenant, id, input);
  return (await findDescribedSubscription(db, tenant, id))!;
}
