import type { Transaction } from 'kysely';
import type { Clock } from '../../shared/clock.js';
import type { Database } from '../../db/schema.js';
import { isSrcToken } from '../saved-cards/src.service.js';
import type { CheckoutSessionRow } from '../../db/tables/checkout-sessions.js';
import type { PaymentMethodRow } from '../../db/tables/payments.js';

/** A customer's cards on file in the mode of `method` (cards are per mode; customers are shared). */
export const cardsOnFile = (trx: Transaction<Database>, method: PaymentMethodRow, customerId: number) =>
  trx
    .selectFrom('payment_methods')
    .select('id')
    .where('merchant_id', '=', method.merchant_id)
    .where('livemode', '=', method.livemode)
    .where('customer_id', '=', customerId)
    .where('saved_at', 'is not', null);

/**
 * Keeps a card on file for a customer (once paid with, and only after the payer was told): the
 * card becomes one of the customer's saved cards, their default when they had none, and the
 * customer `hasPaymentMethod`. Customers are shared by both modes; cards are per mode.
 */
export async function keepCardOnFile(trx: Transaction<Database>, clock: Clock, method: PaymentMethodRow, customerId: number): Promise<PaymentMethodRow> {
  const existing = await cardsOnFile(trx, method, customerId).where('is_default', '=', true).executeTakeFirst();
  const saved = await trx
    .updateTable('payment_methods')
    .set({ customer_id: customerId, saved_at: method.saved_at ?? clock.now(), is_default: method.is_default || !existing })
    .where('id', '=', method.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await trx.updateTable('customers').set({ has_payment_method: true }).where('id', '=', customerId).where('merchant_id', '=', method.merchant_id).execute();
  return saved;
}

/**
 * Saved cards at checkout: a card that pays (or is authorized for a hold) through a one-time
 * session with a customer (`clientId`, one of the merchant's own) and `allowSavedCards` true is
 * kept on file for that customer, in the session's mode. The payment page tells the payer
 * beforehand. Not kept: a card already on file (a saved card paying again, or the same card number, by fingerprint) and
 * click-to-pay tokens (they lapse within minutes). Runs in the payment's transaction.
 */
export async function keepSessionCard(trx: Transaction<Database>, clock: Clock, session: CheckoutSessionRow, method: PaymentMethodRow | null): Promise<void> {
  // A subscription session keeps its first card by its own rule (startPaidSubscription).
  if (!method || session.payment_type !== 'one_time' || !session.allow_saved_cards || session.client_id === null || method.saved_at !== null) return;
  const customer = await trx.selectFrom('customers').select('id').where('id', '=', session.client_id).where('merchant_id', '=', session.merchant_id).executeTakeFirst();
  if (!customer || (await isSrcToken(trx, method))) return;
  const sameCard = await cardsOnFile(trx, method, customer.id).where('fingerprint', '=', method.fingerprint).executeTakeFirst();
  if (sameCard) return;
  await keepCardOnFile(trx, clock, method, customer.id);
}
