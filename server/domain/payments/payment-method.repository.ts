import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { ofTenant } from '../../db/scope.js';
import { precompiled, precompiledInsert } from '../../db/precompiled.js';
import type { PaymentMethodRow, PaymentMethodsTable } from './payment.tables.js';
import type { Tenant } from '../../shared/tenant.js';

// What is kept of cards: brand, last 4, expiry and a fingerprint, per tenant. Never a number, never a CVC.

export async function insertPaymentMethod(db: Db, values: Insertable<PaymentMethodsTable>): Promise<PaymentMethodRow> {
  return (await insertPaymentMethodRows(db, [values]))[0]!;
}

const insertPaymentMethodRows = precompiledInsert(
  (db) => db.insertInto('payment_methods'),
  (insert) => insert.returningAll(),
);

export async function findPaymentMethod(db: Db, tenant: Tenant, id: string): Promise<PaymentMethodRow | undefined> {
  return (await paymentMethodQuery(db, [id, tenant.merchantId, tenant.livemode])).rows[0];
}

/** A payment method by id (value(0)) in a tenant (value(1), value(2)). */
const paymentMethodQuery = precompiled((db, value) =>
  db
    .selectFrom('payment_methods')
    .selectAll()
    .where('id', '=', value(0))
    .where(ofTenant({ merchantId: value(1), livemode: value(2) })),
);

export async function updatePaymentMethod(db: Db, tenant: Tenant, id: string, changes: Updateable<PaymentMethodsTable>): Promise<PaymentMethodRow> {
  return db.updateTable('payment_methods').set(changes).where('id', '=', id).where(ofTenant(tenant)).returningAll().executeTakeFirstOrThrow();
}

/** A customer's cards on file in one mode. */
export function savedCardsOf(db: Db, tenant: Tenant, customerId: number) {
  return db.selectFrom('payment_methods').where(ofTenant(tenant)).where('customer_id', '=', customerId).where('saved_at', 'is not', null);
}

/** Which of these customers have a card on file in the tenant's mode. */
export async function findCustomersWithSavedCards(db: Db, tenant: Tenant, customerIds: readonly number[]): Promise<number[]> {
  if (customerIds.length === 0) return [];
  const rows = await db
    .selectFrom('payment_methods')
    .select('customer_id')
    .distinct()
    .where(ofTenant(tenant))
    .where('customer_id', 'in', customerIds)
    .where('saved_at', 'is not', null)
    .execute();
  return rows.flatMap((r) => (r.customer_id === null ? [] : [r.customer_id]));
}

/** A customer's cards on file, default first, then newest. */
export async function findSavedCards(db: Db, tenant: Tenant, customerId: number, limit: number): Promise<PaymentMethodRow[]> {
  return savedCardsOf(db, tenant, customerId).selectAll().orderBy('is_default', 'desc').orderBy('saved_at', 'desc').orderBy('id').limit(limit).execute();
}

/** One card on file of a customer, or undefined. */
export async function findSavedCard(db: Db, tenant: Tenant, customerId: number, id: string): Promise<PaymentMethodRow | undefined> {
  return savedCardsOf(db, tenant, customerId).selectAll().where('id', '=', id).executeTakeFirst();
}

/** Takes a customer's cards other than `keepId` off file when they are the default or the same card (`fingerprint`); answers their ids. */
export async function unfileReplacedCards(db: Db, tenant: Tenant, customerId: number, keepId: string, fingerprint: string): Promise<string[]> {
  const rows = await db
    .updateTable('payment_methods')
    .set({ saved_at: null, is_default: false })
    .where(ofTenant(tenant))
    .where('customer_id', '=', customerId)
    .where('saved_at', 'is not', null)
    .where('id', '!=', keepId)
    .where((eb) => eb.or([eb('is_default', '=', true), eb('fingerprint', '=', fingerprint)]))
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/** For a join in another statement (a funding source with its card): the tenant's payment methods' card details. */
export function methodCards(db: Db, tenant: Tenant) {
  return db.selectFrom('payment_methods').select(['id', 'last4', 'expiry_month', 'expiry_year', 'brand']).where(ofTenant(tenant));
}
