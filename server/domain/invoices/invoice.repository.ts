import { type Insertable, sql, type Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { inScope, ofTenant } from '../../db/scope.js';
import { placeholderRows, precompiled, rowsShape, rowsValues } from '../../db/precompiled.js';
import type { InvoiceRow, InvoicesTable } from './invoice.tables.js';
import { type ListPage, listPage, type ListQuery } from '../../odata/index.js';
import type { DueScope } from '../../shared/due-scope.js';
import type { PageRequest } from '../../shared/pagination.js';
import type { Tenant } from '../../shared/tenant.js';
import { primaryLocationIdQuery } from '../merchants/location.service.js';

/** Ids for new invoice lines, from one sequence. */
export async function nextLineIds(db: Db, count: number): Promise<number[]> {
  if (count === 0) return [];
  const { rows } = await sql<{ id: number }>`SELECT nextval('invoice_line_ids')::int AS id FROM generate_series(1, ${count})`.execute(db);
  return rows.map((r) => r.id);
}

/**
 * Inserts an invoice; without `merchant_location_id` it is issued by the merchant's primary location.
 * The database gives it its public code (`public_code`: no caller chooses one).
 */
export async function insertInvoice(db: Db, values: Insertable<InvoicesTable>): Promise<InvoiceRow> {
  const { merchant_location_id: location, ...rest } = values;
  const shape = rowsShape([rest]);
  if (shape === undefined || (location !== undefined && location !== null && typeof location !== 'number'))
    return db
      .insertInto('invoices')
      .values({ ...values, merchant_location_id: location ?? primaryLocationIdQuery(db, values.merchant_id) })
      .returningAll()
      .executeTakeFirstOrThrow();
  const run = [...rowsValues([rest], shape), location ?? values.merchant_id];
  return (await insertInvoiceQuery(db, run, `${shape}|${location ? 'location' : 'primary'}`)).rows[0]!;
}

/**
 * The insert of an invoice setting the columns of the shape's first part, then its location: the
 * last value, or (`primary`) the primary location of the merchant that last value names.
 */
const insertInvoiceQuery = precompiled((db, value, shape) => {
  const [columns = '', where] = shape.split('|');
  const [row] = placeholderRows(columns, value);
  const last = value(Object.keys(row!).length);
  return db
    .insertInto('invoices')
    .values({ ...row, merchant_location_id: where === 'primary' ? primaryLocationIdQuery(db, last) : last } as Insertable<InvoicesTable>)
    .returningAll();
});

export async function findInvoice(
  db: Db,
  tenant: Tenant,
  by: { id: number } | { reference: string },
  options: { lock?: boolean } = {},
): Promise<InvoiceRow | undefined> {
  let query = db.selectFrom('invoices').selectAll().where(ofTenant(tenant));
  query = 'id' in by ? query.where('id', '=', by.id) : query.where('reference', '=', by.reference);
  return (options.lock ? query.forUpdate() : query).executeTakeFirst();
}

/**
 * An invoice by its public identifier, whoever owns it. This read starts from a credential rather
 * than a tenant: the identifier is the secret part of the invoice's public link.
 */
export async function findInvoiceByIdentifier(db: Db, identifier: string): Promise<InvoiceRow | undefined> {
  return db.selectFrom('invoices').selectAll().where('identifier', '=', identifier).executeTakeFirst();
}

export async function updateInvoice(db: Db, tenant: Tenant, id: number, changes: Updateable<InvoicesTable>): Promise<InvoiceRow> {
  return db.updateTable('invoices').set(changes).where('id', '=', id).where(ofTenant(tenant)).returningAll().executeTakeFirstOrThrow();
}

/** Adds to the refunded amount, in the statement (refunds of one invoice may race). */
export async function addRefunded(db: Db, tenant: Tenant, id: number, amount: string): Promise<InvoiceRow> {
  return db
    .updateTable('invoices')
    .set({ amount_refunded: sql`amount_refunded + ${amount}::numeric` })
    .where('id', '=', id)
    .where(ofTenant(tenant))
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Cancels unpaid (`pending`, `sent`) invoices that a session raised: one by id, or every one of a session. A merchant's own invoice is never touched. */
export async function cancelUnpaid(db: Db, tenant: Tenant, which: { id: number } | { sessionId: string }): Promise<void> {
  let query = db
    .updateTable('invoices')
    .set({ status: 'cancelled' })
    .where(ofTenant(tenant))
    .where('status', 'in', ['pending', 'sent'])
    .where('session_id', 'is not', null);
  query = 'id' in which ? query.where('id', '=', which.id) : query.where('session_id', '=', which.sessionId);
  await query.execute();
}

export interface InvoiceFilter extends PageRequest {
  reference?: string | undefined;
  status?: string | undefined;
  customerId?: number | undefined;
  subscriptionId?: number | undefined;
  /** Created at or after this instant. */
  createdFrom?: Date | undefined;
  /** Created before this instant. */
  createdBefore?: Date | undefined;
}

/** The tenant's invoices, newest first, one more than the limit. */
export async function findInvoices(db: Db, tenant: Tenant, filter: InvoiceFilter): Promise<InvoiceRow[]> {
  let query = db.selectFrom('invoices').selectAll().where(ofTenant(tenant));
  if (filter.reference !== undefined) query = query.where('reference', '=', filter.reference);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.customerId !== undefined) query = query.where('customer_id', '=', filter.customerId);
  if (filter.subscriptionId !== undefined) query = query.where('subscription_id', '=', filter.subscriptionId);
  if (filter.createdFrom !== undefined) query = query.where('created_at', '>=', filter.createdFrom);
  if (filter.createdBefore !== undefined) query = query.where('created_at', '<', filter.createdBefore);
  if (filter.startingAfter !== undefined) query = query.where('id', '<', filter.startingAfter);
  return query
    .orderBy('id', 'desc')
    .limit(filter.limit + 1)
    .execute();
}

/** Statuses of an invoice that is owed and not yet overdue. */
const UNPAID = ['pending', 'sent', 'partially_paid'];

/** Unpaid invoices of a due-work scope whose due date has come, oldest due first. */
export async function findDueUnpaidInvoices(db: Db, scope: DueScope, now: Date, limit: number): Promise<Pick<InvoiceRow, 'id' | 'merchant_id' | 'livemode'>[]> {
  return db
    .selectFrom('invoices')
    .select(['id', 'merchant_id', 'livemode'])
    .where('status', 'in', UNPAID)
    .where('due_date', 'is not', null)
    .where('due_date', '<=', now)
    .where(inScope(scope, 'invoices'))
    .orderBy('due_date')
    .limit(limit)
    .execute();
}

/** When the scope's next unpaid invoice falls due, after `after`. */
export async function nextUnpaidInvoiceDue(db: Db, scope: DueScope, after: Date): Promise<Date | null> {
  const row = await db
    .selectFrom('invoices')
    .select((eb) => eb.fn.min('due_date').as('at'))
    .where('status', 'in', UNPAID)
    .where('due_date', '>', after)
    .where(inScope(scope, 'invoices'))
    .executeTakeFirst();
  return row?.at ? new Date(row.at) : null;
}

/** Marks an invoice `overdue` if it is still unpaid; answers it, or undefined when it was not. */
export async function markOverdueIfUnpaid(db: Db, tenant: Tenant, id: number): Promise<InvoiceRow | undefined> {
  return db
    .updateTable('invoices')
    .set({ status: 'overdue' })
    .where('id', '=', id)
    .where(ofTenant(tenant))
    .where('status', 'in', UNPAID)
    .returningAll()
    .executeTakeFirst();
}

/** Statuses of an invoice that can still expire (`validTo` passing). */
const EXPIRABLE = ['draft', 'pending', 'sent', 'partially_paid', 'overdue'];

/** Open invoices of a due-work scope whose `valid_to` has come, soonest first. */
export async function findDueExpiringInvoices(
  db: Db,
  scope: DueScope,
  now: Date,
  limit: number,
): Promise<Pick<InvoiceRow, 'id' | 'merchant_id' | 'livemode'>[]> {
  return db
    .selectFrom('invoices')
    .select(['id', 'merchant_id', 'livemode'])
    .where('status', 'in', EXPIRABLE)
    .where('valid_to', 'is not', null)
    .where('valid_to', '<=', now)
    .where(inScope(scope, 'invoices'))
    .orderBy('valid_to')
    .limit(limit)
    .execute();
}

/** When the scope's next open invoice expires, after `after`. */
export async function nextInvoiceExpiry(db: Db, scope: DueScope, after: Date): Promise<Date | null> {
  const row = await db
    .selectFrom('invoices')
    .select((eb) => eb.fn.min('valid_to').as('at'))
    .where('status', 'in', EXPIRABLE)
    .where('valid_to', '>', after)
    .where(inScope(scope, 'invoices'))
    .executeTakeFirst();
  return row?.at ? new Date(row.at) : null;
}

/** Marks an invoice `expired` if it is still open; answers it, or undefined when it was not. */
export async function markExpiredIfOpen(db: Db, tenant: Tenant, id: number): Promise<InvoiceRow | undefined> {
  return db
    .updateTable('invoices')
    .set({ status: 'expired' })
    .where('id', '=', id)
    .where(ofTenant(tenant))
    .where('status', 'in', EXPIRABLE)
    .returningAll()
    .executeTakeFirst();
}

/** Whether the tenant has an invoice of this reference (references are the merchant's, unique per merchant and mode). */
export async function referenceInUse(db: Db, tenant: Tenant, reference: string): Promise<boolean> {
  return (await db.selectFrom('invoices').select('id').where(ofTenant(tenant)).where('reference', '=', reference).executeTakeFirst()) !== undefined;
}

/**
 * An invoice by its public code, whoever owns it. Like `findInvoiceByIdentifier`, this read
 * starts from a credential (the code) rather than a tenant.
 */
export async function findInvoiceByPublicCode(db: Db, code: string): Promise<InvoiceRow | undefined> {
  return db.selectFrom('invoices').selectAll().where('public_code', '=', code).executeTakeFirst();
}

/** Every invoice of the tenant, all columns: what the OData list pages, filters and counts (the bench EXPLAINs it too). */
export function tenantInvoices(db: Db, tenant: Tenant) {
  return db.selectFrom('invoices').selectAll().where(ofTenant(tenant, 'invoices'));
}

/** One page of the tenant's invoices: the tenant ANDed outside the caller's filter. */
export async function findInvoicePage(db: Db, tenant: Tenant, query: ListQuery): Promise<ListPage<InvoiceRow>> {
  return listPage(query, tenantInvoices(db, tenant));
}
