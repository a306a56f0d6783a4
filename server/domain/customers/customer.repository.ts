import { sql } from 'kysely';
import { SHARED_WRITE } from '../../db/pipelined-pool.js';
import { precompiled } from '../../db/precompiled.js';
import type { Db } from '../../db/database.js';
import { ofMerchant } from '../../db/scope.js';
import type { Customer } from './customer.tables.js';
import type { MerchantRef } from '../../shared/tenant.js';

// Customers belong to a merchant and are shared by both modes: every statement is scoped to the
// merchant, never to a mode. Cards on file are per mode (payments' cards-on-file), and so is
// whether a customer `hasPaymentMethod`.

const customers = (db: Db, owner: MerchantRef) => db.selectFrom('customers').selectAll().where(ofMerchant(owner));

export async function findCustomer(db: Db, owner: MerchantRef, id: number, options: { lock?: boolean } = {}): Promise<Customer | undefined> {
  const query = customers(db, owner).where('id', '=', id);
  return (options.lock ? query.forUpdate() : query).executeTakeFirst();
}

export async function findByExternalId(db: Db, owner: MerchantRef, externalId: string): Promise<Customer | undefined> {
  return customers(db, owner).where('external_id', '=', externalId).executeTakeFirst();
}

/** The customer with this email (case-insensitive): one made without an externalId first, then the oldest. */
export async function findByEmail(db: Db, owner: MerchantRef, email: string): Promise<Customer | undefined> {
  return customers(db, owner)
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .orderBy((eb) => eb.case().when('external_id', 'is', null).then(0).else(1).end())
    .orderBy('id', 'asc')
    .limit(1)
    .executeTakeFirst();
}

export interface NewCustomer {
  merchant_id: number;
  email: string;
  name: string | null;
  phone: string | null;
  external_id: string | null;
  metadata: string;
  created_at: Date;
}

/**
 * Inserts a customer unless the merchant has it already, in one statement: with an external id,
 * one with that external id; without, one with that email (case-insensitive), whatever its
 * external id. Undefined when it exists, or when a unique index says a concurrent create won.
 * A shared write: it inserts only when no such customer is visible, so its unique indexes can
 * wait only for another create like it (nothing else inserts customers).
 */
export async function insertCustomerUnlessFound(db: Db, values: NewCustomer): Promise<Customer | undefined> {
  const byExternalId = values.external_id !== null;
  const found = byExternalId ? values.external_id : values.email.toLowerCase();
  const { rows } = await insertCustomerQuery(
    db,
    [values.merchant_id, values.email, values.name, values.phone, values.external_id, values.metadata, values.created_at, found],
    byExternalId ? 'external_id' : 'email',
  );
  return rows[0];
}

/** The insert, where no customer of value(0) has the external id (shape `external_id`) or the lower-case email (`email`) value(7). */
const insertCustomerQuery = precompiled((db, value, shape) =>
  db
    .insertInto('customers')
    .columns(['merchant_id', 'email', 'name', 'phone', 'external_id', 'metadata', 'created_at'])
    .expression(
      db
        .selectNoFrom((eb) => [
          eb.cast(eb.val(value(0)), 'integer').as('merchant_id'),
          eb.cast(eb.val(value(1)), 'text').as('email'),
          eb.cast(eb.val(value(2)), 'text').as('name'),
          eb.cast(eb.val(value(3)), 'text').as('phone'),
          eb.cast(eb.val(value(4)), 'text').as('external_id'),
          eb.cast(eb.val(value(5)), 'jsonb').as('metadata'),
          eb.cast(eb.val(value(6)), 'timestamptz').as('created_at'),
        ])
        .where(({ not, exists, selectFrom }) => {
          const same = selectFrom('customers').select(sql.lit(1).as('found')).where('merchant_id', '=', value(0));
          return not(
            exists(shape === 'external_id' ? same.where('external_id', '=', value(7)) : same.where((w) => w(w.fn('lower', ['email']), '=', value(7)))),
          );
        }),
    )
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .modifyEnd(sql.raw(SHARED_WRITE)),
);

export interface CustomerFilter {
  limit: number;
  startingAfter?: number | undefined;
  /** The first id the caller holds: the page of newer customers before it (the dashboard's "newer" link). */
  endingBefore?: number | undefined;
  email?: string | undefined;
  externalId?: string | undefined;
}

/** Newest first, one more than the limit (to tell whether more follow, older ones or with `endingBefore` newer ones). */
export async function findCustomers(db: Db, owner: MerchantRef, filter: CustomerFilter): Promise<Customer[]> {
  let q = customers(db, owner);
  if (filter.email !== undefined) q = q.where((eb) => eb(eb.fn('lower', ['email']), '=', filter.email!.toLowerCase()));
  if (filter.externalId !== undefined) q = q.where('external_id', '=', filter.externalId);
  if (filter.endingBefore !== undefined) {
    const newer = await q
      .where('id', '>', filter.endingBefore)
      .orderBy('id', 'asc')
      .limit(filter.limit + 1)
      .execute();
    return newer.reverse();
  }
  if (filter.startingAfter !== undefined) q = q.where('id', '<', filter.startingAfter);
  return q
    .orderBy('id', 'desc')
    .limit(filter.limit + 1)
    .execute();
}

/** For a join in another statement (a subscription with its customer's email): the merchant's customers' emails. */
export function customerEmails(db: Db, owner: MerchantRef) {
  return db.selectFrom('customers').select(['id', 'email']).where(ofMerchant(owner));
}
