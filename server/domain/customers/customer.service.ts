import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { Customer } from './customer.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { type Page, toPage } from '../../shared/pagination.js';
import type { MerchantRef } from '../../shared/tenant.js';
import { type CustomerFilter, findByEmail, findByExternalId, findCustomer, findCustomers, insertCustomerUnlessFound } from './customer.repository.js';

export type { CustomerFilter };

/** A customer to find or create: its email, and what else is known of it. */
export interface CustomerToCreate {
  email: string;
  name?: string | undefined;
  phone?: string | undefined;
  externalId?: string | undefined;
  metadata?: Record<string, string> | undefined;
}

/**
 * Repeat-safe create. With `externalId` it returns the merchant's customer with that id and never
 * matches by email, so accounts sharing an email stay separate customers. Without it, it returns
 * the existing customer with the same email (case-insensitive; one made without an externalId
 * first). Concurrent creates of the same customer are resolved by unique indexes: the loser
 * reads the winner's row.
 */
export async function createCustomer(
  db: Kysely<Database>,
  clock: Clock,
  owner: MerchantRef,
  input: CustomerToCreate,
): Promise<{ customer: Customer; created: boolean }> {
  // A new customer takes one statement; an existing one (or a concurrent create's) is read after.
  const inserted = await insertCustomerUnlessFound(db, {
    merchant_id: owner.merchantId,
    email: input.email,
    name: input.name ?? null,
    phone: input.phone ?? null,
    external_id: input.externalId ?? null,
    metadata: JSON.stringify(input.metadata ?? {}),
    created_at: clock.now(),
  });
  if (inserted) return { customer: inserted, created: true };
  const existing = await (input.externalId !== undefined ? findByExternalId(db, owner, input.externalId) : findByEmail(db, owner, input.email));
  if (!existing) throw new AppError('invalid_state', { message: 'The customer was created by a concurrent request; retry.' });
  return { customer: existing, created: false };
}

/** The merchant's customer; 404 for anyone else's, exactly like a missing one. */
export async function getCustomer(db: Db, owner: MerchantRef, id: number): Promise<Customer> {
  const customer = await findCustomer(db, owner, id);
  if (!customer) throw new AppError('resource_not_found', { param: 'id', message: `No such customer: ${id}.` });
  return customer;
}

/** The merchant's customer, or undefined (for rules that refuse someone else's customer in their own words). */
export const findOwnCustomer = (db: Db, owner: MerchantRef, id: number, options: { lock?: boolean } = {}): Promise<Customer | undefined> =>
  findCustomer(db, owner, id, options);

export async function listCustomers(db: Db, owner: MerchantRef, filter: CustomerFilter): Promise<Page<Customer>> {
  return toPage(await findCustomers(db, owner, filter), filter.limit);
}

/** The dashboard's page of customers: newest first, one more row than the limit in the direction asked (`startingAfter` older, `endingBefore` newer). */
export const customerRows = (db: Db, owner: MerchantRef, filter: CustomerFilter): Promise<Customer[]> => findCustomers(db, owner, filter);
