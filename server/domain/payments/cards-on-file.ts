// Cards on file: a card a customer paid with, kept (by reference: brand, last 4, expiry, fingerprint)
// for their saved cards and their subscriptions' renewals. Cards are per mode; customers are shared,
// so whether a customer `hasPaymentMethod` is asked in one mode (customersWithCardOnFile).
import type { Db, Trx } from '../../db/database.js';
import type { PaymentMethodRow } from './payment.tables.js';
import type { Clock } from '../../shared/clock.js';
import { type Tenant, tenantOf } from '../../shared/tenant.js';
import {
  findCustomersWithSavedCards,
  findSavedCard,
  findSavedCards,
  savedCardsOf,
  unfileReplacedCards,
  updatePaymentMethod,
} from './payment-method.repository.js';

/** A customer's cards on file, default first, then newest. */
export const listCardsOnFile = (db: Db, tenant: Tenant, customerId: number, limit: number): Promise<PaymentMethodRow[]> =>
  findSavedCards(db, tenant, customerId, limit);

/**
 * Which of these customers `hasPaymentMethod` in the tenant's mode: a card on file in test mode
 * counts for test keys only, one in live mode for live keys only.
 */
export async function customersWithCardOnFile(db: Db, tenant: Tenant, customerIds: readonly number[]): Promise<Set<number>> {
  return new Set(await findCustomersWithSavedCards(db, tenant, customerIds));
}

/** One card on file of a customer, or undefined. */
export const findCardOnFile = (db: Db, tenant: Tenant, customerId: number, id: string): Promise<PaymentMethodRow | undefined> =>
  findSavedCard(db, tenant, customerId, id);

/** Whether the customer has a card on file in the card's mode other than `method` itself. */
export async function hasOtherCardOnFile(db: Db, method: PaymentMethodRow, customerId: number): Promise<boolean> {
  return (await savedCardsOf(db, tenantOf(method), customerId).select('id').where('id', '!=', method.id).executeTakeFirst()) !== undefined;
}

/** Whether the same card (by fingerprint) is on file for the customer already. */
export async function sameCardOnFile(db: Db, method: PaymentMethodRow, customerId: number): Promise<boolean> {
  return (await savedCardsOf(db, tenantOf(method), customerId).select('id').where('fingerprint', '=', method.fingerprint).executeTakeFirst()) !== undefined;
}

/**
 * Keeps a card on file for a customer (once paid with, and only after the payer was told): it
 * becomes one of the customer's saved cards, their default when they had none, and the customer
 * `hasPaymentMethod` in the card's mode.
 */
export async function keepCardOnFile(trx: Trx, clock: Clock, method: PaymentMethodRow, customerId: number): Promise<PaymentMethodRow> {
  const tenant = tenantOf(method);
  const existing = await savedCardsOf(trx, tenant, customerId).select('id').where('is_default', '=', true).executeTakeFirst();
  return updatePaymentMethod(trx, tenant, method.id, {
    customer_id: customerId,
    saved_at: method.saved_at ?? clock.now(),
    is_default: method.is_default || !existing,
  });
}

/**
 * Makes a card the customer's card on file in its mode, replacing the one they had: the card
 * becomes their default, the previous default (and an older copy of the same card) is taken off
 * file, and the customer `hasPaymentMethod` in that mode. Other saved cards stay. The caller locks the customer.
 */
export async function replaceCardOnFile(trx: Trx, clock: Clock, method: PaymentMethodRow, customerId: number): Promise<PaymentMethodRow> {
  const tenant = tenantOf(method);
  await unfileReplacedCards(trx, tenant, customerId, method.id, method.fingerprint);
  return updatePaymentMethod(trx, tenant, method.id, { customer_id: customerId, saved_at: clock.now(), is_default: true });
}

/** The customer's default card on file in the tenant's mode, or undefined. */
export async function defaultCardOnFile(db: Db, tenant: Tenant, customerId: number): Promise<PaymentMethodRow | undefined> {
  return (await findSavedCards(db, tenant, customerId, 1))[0];
}
