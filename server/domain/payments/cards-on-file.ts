import type { Transaction } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/schema.js';
import type { PaymentMethodRow } from './payment.table.js';

/**
 * Keeps a card on file for a customer (once paid with, and only after the payer was told): the
 * card becomes one of the customer's saved cards, their default when they had none, and the
 * customer `hasPaymentMethod`. Customers are shared by both modes; cards are per mode.
 */
export async function keepCardOnFile(trx: Transaction<Database>, clock: Clock, method: PaymentMethodRow, customerId: number): Promise<PaymentMethodRow> {
  const existing = await trx
    .selectFrom('payment_methods')
    .select('id')
    .where('merchant_id', '=', method.merchant_id)
    .where('livemode', '=', method.livemode)
    .where('customer_id', '=', customerId)
    .where('saved_at', 'is not', null)
    .where('is_default', '=', true)
    .executeTakeFirst();
  const saved = await trx
    .updateTable('payment_methods')
    .set({ customer_id: customerId, saved_at: method.saved_at ?? clock.now(), is_default: method.is_default || !existing })
    .where('id', '=', method.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await trx.updateTable('customers').set({ has_payment_method: true }).where('id', '=', customerId).where('merchant_id', '=', method.merchant_id).execute();
  return saved;
}
