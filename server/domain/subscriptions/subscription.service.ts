import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { InvoiceRow } from '../../db/tables/payments.js';
import type { Caller } from '../sessions/session.repository.js';
import { type PageRequest, toPage } from '../../shared/pagination.js';
import type { SubscriptionView } from './subscription.mapper.js';
import { findSubscription, findSubscriptions, type SubscriptionFilter } from './subscription.repository.js';

// Subscriptions belong to one merchant and one mode: every read filters on both, and anyone
// else's subscription answers 404 exactly like a missing one.

export const getSubscription = (db: Kysely<Database>, caller: Caller, id: number): Promise<SubscriptionView> => findSubscription(db, caller, id);

/** A newest-first page of the caller's subscriptions, filtered by customer, status or plan. */
export async function listSubscriptions(db: Kysely<Database>, caller: Caller, filter: SubscriptionFilter): Promise<{ data: SubscriptionView[]; hasMore: boolean }> {
  return toPage(await findSubscriptions(db, caller, filter), filter.limit);
}

/** A newest-first page of the invoices a subscription raised (one per billing period). */
export async function listSubscriptionInvoices(db: Kysely<Database>, caller: Caller, id: number, page: PageRequest): Promise<{ data: InvoiceRow[]; hasMore: boolean }> {
  await findSubscription(db, caller, id);
  let q = db.selectFrom('invoices').selectAll().where('merchant_id', '=', caller.merchantId).where('livemode', '=', caller.livemode).where('subscription_id', '=', id);
  if (page.startingAfter !== undefined) q = q.where('id', '<', page.startingAfter);
  return toPage(await q.orderBy('id', 'desc').limit(page.limit + 1).execute(), page.limit);
}
