// The payment links' tables: the links (tenant-scoped), the invoices made through them and their
// counters. Public reads start from a credential (the identifier, or the merchant's slug and the
// link's code) rather than a tenant.
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { inScope, ofTenant } from '../../db/scope.js';
import { precompiled } from '../../db/precompiled.js';
import type { NewPaymentLink, PaymentLinkInvoiceRow, PaymentLinkRow, PaymentLinkUpdate } from './link.tables.js';
import { type ListPage, listPage, type ListQuery } from '../../odata/index.js';
import type { DueScope } from '../../shared/due-scope.js';
import type { PageRequest } from '../../shared/pagination.js';
import type { Tenant } from '../../shared/tenant.js';
import { merchantSlugs } from '../merchants/merchant.repository.js';

export const insertLink = (db: Db, values: NewPaymentLink): Promise<PaymentLinkRow> =>
  db.insertInto('payment_links').values(values).returningAll().executeTakeFirstOrThrow();

/** The tenant's link; `lock` holds its row for the transaction. */
export async function findLink(db: Db, tenant: Tenant, id: number, options: { lock?: boolean } = {}): Promise<PaymentLinkRow | undefined> {
  const query = db.selectFrom('payment_links').selectAll().where(ofTenant(tenant)).where('id', '=', id);
  return (options.lock ? query.forUpdate() : query).executeTakeFirst();
}

/** A link by its public identifier, whoever owns it (the identifier is the public part of its URL). */
export async function findLinkByIdentifier(db: Db, identifier: string, options: { lock?: boolean } = {}): Promise<PaymentLinkRow | undefined> {
  const query = db.selectFrom('payment_links').selectAll().where('identifier', '=', identifier);
  return (options.lock ? query.forUpdate() : query).executeTakeFirst();
}

/** A link by its merchant's slug and its code (a vanity URL), whoever owns it. */
export async function findLinkBySlug(db: Db, slug: string, code: string): Promise<PaymentLinkRow | undefined> {
  return db
    .selectFrom('payment_links as l')
    .innerJoin(merchantSlugs(db).as('m'), 'm.id', 'l.merchant_id')
    .selectAll('l')
    .where('m.slug', '=', slug)
    .where('l.code', '=', code)
    .executeTakeFirst();
}

export async function codeTaken(db: Db, merchantId: number, code: string): Promise<boolean> {
  return (await db.selectFrom('payment_links').select('id').where('merchant_id', '=', merchantId).where('code', '=', code).executeTakeFirst()) !== undefined;
}

export async function updateLink(db: Db, tenant: Tenant, id: number, values: PaymentLinkUpdate): Promise<PaymentLinkRow> {
  return db.updateTable('payment_links').set(values).where(ofTenant(tenant)).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

export async function deleteLink(db: Db, tenant: Tenant, id: number): Promise<void> {
  await db.deleteFrom('payment_links').where(ofTenant(tenant)).where('id', '=', id).execute();
}

export async function findLinkPage(db: Db, tenant: Tenant, query: ListQuery): Promise<ListPage<PaymentLinkRow>> {
  return listPage(query, db.selectFrom('payment_links').selectAll().where(ofTenant(tenant, 'payment_links')));
}

/** The dashboard's page of the tenant's links: newest first, after an id, one more than the limit. */
export async function findLinks(db: Db, tenant: Tenant, filter: PageRequest & { status?: PaymentLinkRow['status'] | undefined }): Promise<PaymentLinkRow[]> {
  let query = db.selectFrom('payment_links').selectAll().where(ofTenant(tenant));
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.startingAfter !== undefined) query = query.where('id', '<', filter.startingAfter);
  return query
    .orderBy('id', 'desc')
    .limit(filter.limit + 1)
    .execute();
}

/** One more view of the link's page. */
export async function countClick(db: Db, id: number): Promise<void> {
  await db
    .updateTable('payment_links')
    .set({ click_count: sql`click_count + 1` })
    .where('id', '=', id)
    .execute();
}

/** Records an invoice made through the link, and counts it. */
export async function recordLinkInvoice(
  db: Db,
  link: PaymentLinkRow,
  values: { invoiceId: number; payerEmail: string; subscriptionId: number | null; createdAt: Date },
): Promise<void> {
  await db
    .insertInto('payment_link_invoices')
    .values({
      invoice_id: values.invoiceId,
      link_id: link.id,
      link_name: link.name,
      link_code: link.code,
      merchant_id: link.merchant_id,
      livemode: link.livemode,
      payer_email: values.payerEmail,
      subscription_id: values.subscriptionId,
      created_at: values.createdAt,
    })
    .execute();
  await db
    .updateTable('payment_links')
    .set({ invoice_count: sql`invoice_count + 1` })
    .where('id', '=', link.id)
    .execute();
}

/** The link record of an invoice, when it was made through a link. */
export async function findLinkInvoice(db: Db, tenant: Tenant, invoiceId: number): Promise<PaymentLinkInvoiceRow | undefined> {
  return (await linkInvoiceQuery(db, [tenant.merchantId, tenant.livemode, invoiceId])).rows[0];
}

/** The link record of invoice value(2) in a tenant (value(0), value(1)): read for every invoice paid. */
const linkInvoiceQuery = precompiled((db, value) =>
  db
    .selectFrom('payment_link_invoices')
    .selectAll()
    .where(ofTenant({ merchantId: value(0), livemode: value(1) }))
    .where('invoice_id', '=', value(2)),
);

/** Marks a link invoice paid, once: false when it already was. */
export async function markLinkInvoicePaid(db: Db, tenant: Tenant, invoiceId: number, paidAt: Date, amount: string): Promise<boolean> {
  const row = await db
    .updateTable('payment_link_invoices')
    .set({ paid_at: paidAt, amount_paid: amount })
    .where(ofTenant(tenant))
    .where('invoice_id', '=', invoiceId)
    .where('paid_at', 'is', null)
    .returning('invoice_id')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Counts one completed payment of `amount` on the link, only while it has uses left: a
 * conditional UPDATE, so on PostgreSQL two payments racing for the last use are serialized by the
 * row lock and the second finds none left. Answers the link after, or undefined when no use was left.
 */
export async function takeUse(db: Db, linkId: number, amount: string, at: Date): Promise<PaymentLinkRow | undefined> {
  return db
    .updateTable('payment_links')
    .set({
      completed_payment_count: sql`completed_payment_count + 1`,
      total_amount_collected: sql`total_amount_collected + ${amount}::numeric`,
      status: sql`CASE WHEN max_uses IS NOT NULL AND completed_payment_count + 1 >= max_uses THEN 'expired' ELSE status END`,
      updated_at: at,
    })
    .where('id', '=', linkId)
    .where(sql<boolean>`max_uses IS NULL OR completed_payment_count < max_uses`)
    .returningAll()
    .executeTakeFirst();
}

/** A refund of a payment made through the link comes off what it collected (`totalAmountCollected` is net of refunds). */
export async function takeBackCollected(db: Db, linkId: number, amount: string, at: Date): Promise<void> {
  await db
    .updateTable('payment_links')
    .set({ total_amount_collected: sql`total_amount_collected - ${amount}::numeric`, updated_at: at })
    .where('id', '=', linkId)
    .execute();
}

/** Completed payments of one payer (by lower-case email) through the link. */
export async function paidCountOf(db: Db, linkId: number, email: string): Promise<number> {
  const row = await db
    .selectFrom('payment_link_invoices')
    .select(sql<string>`count(*)`.as('n'))
    .where('link_id', '=', linkId)
    .where('payer_email', '=', email)
    .where('paid_at', 'is not', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Links of the scope still open whose `validTo` has come (`at`), oldest first. */
export async function findDueExpiringLinks(db: Db, scope: DueScope, at: Date, limit: number): Promise<PaymentLinkRow[]> {
  return db
    .selectFrom('payment_links')
    .selectAll()
    .where(inScope(scope, 'payment_links'))
    .where('status', 'in', ['draft', 'active', 'inactive'])
    .where('valid_to', '<=', at)
    .orderBy('valid_to')
    .limit(limit)
    .execute();
}

/** The next `validTo` of an open link of the scope after `after`. */
export async function nextLinkExpiry(db: Db, scope: DueScope, after: Date): Promise<Date | null> {
  const row = await db
    .selectFrom('payment_links')
    .select('valid_to')
    .where(inScope(scope, 'payment_links'))
    .where('status', 'in', ['draft', 'active', 'inactive'])
    .where('valid_to', '>', after)
    .orderBy('valid_to')
    .limit(1)
    .executeTakeFirst();
  return row?.valid_to ?? null;
}

/** Expires the link if it is still open and its `validTo` has come. */
export async function markLinkExpired(db: Db, tenant: Tenant, id: number, at: Date): Promise<boolean> {
  const row = await db
    .updateTable('payment_links')
    .set({ status: 'expired', updated_at: at })
    .where(ofTenant(tenant))
    .where('id', '=', id)
    .where('status', 'in', ['draft', 'active', 'inactive'])
    .where('valid_to', '<=', at)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** The payment link each of `invoiceIds` was made through, where that link has a notification URL (per-link webhooks). */
export async function linkTargets(
  db: Db,
  invoiceIds: number[],
): Promise<Map<number, { linkId: number; merchant_id: number; livemode: boolean; notification_url: string }>> {
  const targets = new Map<number, { linkId: number; merchant_id: number; livemode: boolean; notification_url: string }>();
  if (invoiceIds.length === 0) return targets;
  const rows = await db
    .selectFrom('payment_link_invoices as li')
    .innerJoin('payment_links as l', 'l.id', 'li.link_id')
    .select(['li.invoice_id', 'l.id', 'l.merchant_id', 'l.livemode', 'l.notification_url'])
    .where('li.invoice_id', 'in', invoiceIds)
    .where('l.notification_url', 'is not', null)
    .execute();
  for (const r of rows) targets.set(r.invoice_id, { linkId: r.id, merchant_id: r.merchant_id, livemode: r.livemode, notification_url: r.notification_url! });
  return targets;
}

/** For a join in another statement (a webhook delivery's claim): each link's notification URL and secret, with its merchant. */
export function linkNotifications(db: Db) {
  return db.selectFrom('payment_links').select(['id', 'merchant_id', 'notification_url', 'notification_secret']);
}
