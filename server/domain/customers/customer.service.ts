import type { Kysely } from 'kysely';
import type { Clock } from '../../shared/clock.js';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../shared/errors.js';
import { type PageRequest, toPage } from '../../shared/pagination.js';
import type { Customer } from '../../db/tables/customers.js';

export interface CreateCustomerInput {
  email: string;
  name?: string;
  phone?: string;
  externalId?: string;
  metadata?: Record<string, string>;
}

/**
 * Repeat-safe create. With `externalId` it returns the merchant's customer with that id and never
 * matches by email, so accounts sharing an email stay separate customers. Without it, it returns
 * the existing customer with the same email (case-insensitive; one made without an externalId
 * first). Concurrent creates of the same customer are resolved by unique indexes: the loser
 * reads the winner's row.
 */
export async function createCustomer(db: Kysely<Database>, clock: Clock, merchantId: number, input: CreateCustomerInput): Promise<{ customer: Customer; created: boolean }> {
  const find = () => {
    let q = db.selectFrom('customers').selectAll().where('merchant_id', '=', merchantId);
    if (input.externalId !== undefined) return q.where('external_id', '=', input.externalId).executeTakeFirst();
    q = q.where((eb) => eb(eb.fn('lower', ['email']), '=', input.email.toLowerCase()));
    return q.orderBy((eb) => eb.case().when('external_id', 'is', null).then(0).else(1).end()).orderBy('id', 'asc').limit(1).executeTakeFirst();
  };
  const existing = await find();
  if (existing) return { customer: existing, created: false };
  const inserted = await db
    .insertInto('customers')
    .values({
      merchant_id: merchantId,
      email: input.email,
      name: input.name ?? null,
      phone: input.phone ?? null,
      external_id: input.externalId ?? null,
      metadata: JSON.stringify(input.metadata ?? {}),
      created_at: clock.now(),
    })
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return { customer: inserted, created: true };
  const raced = await find();
  if (!raced) throw new AppError('invalid_state', { message: 'The customer was created by a concurrent request; retry.' });
  return { customer: raced, created: false };
}

export async function getCustomer(db: Kysely<Database>, merchantId: number, id: number): Promise<Customer> {
  const customer = await db.selectFrom('customers').selectAll().where('merchant_id', '=', merchantId).where('id', '=', id).executeTakeFirst();
  if (!customer) throw new AppError('resource_not_found', { param: 'id', message: `No such customer: ${id}.` });
  return customer;
}

export async function listCustomers(db: Kysely<Database>, merchantId: number, page: PageRequest & { email?: string | undefined; externalId?: string | undefined }) {
  let q = db.selectFrom('customers').selectAll().where('merchant_id', '=', merchantId);
  if (page.email !== undefined) q = q.where((eb) => eb(eb.fn('lower', ['email']), '=', page.email!.toLowerCase()));
  if (page.externalId !== undefined) q = q.where('external_id', '=', page.externalId);
  if (page.startingAfter !== undefined) q = q.where('id', '<', page.startingAfter);
  return toPage(await q.orderBy('id', 'desc').limit(page.limit + 1).execute(), page.limit);
}
