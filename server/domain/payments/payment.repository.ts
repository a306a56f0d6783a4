import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../errors/catalog.js';
import type { Caller } from '../sessions/session.repository.js';
import type { PaymentRow } from './payment.table.js';

/**
 * The caller's payment made through a checkout session, locked for the transaction; 404 for
 * another merchant's, the other mode's, or a payment that did not come from a session.
 */
export async function lockCheckoutPayment(trx: Transaction<Database>, caller: Caller, paymentId: number): Promise<PaymentRow> {
  const payment = await trx
    .selectFrom('payments')
    .selectAll()
    .where('id', '=', paymentId)
    .where('merchant_id', '=', caller.merchantId)
    .where('livemode', '=', caller.livemode)
    .where('session_id', 'is not', null)
    .forUpdate()
    .executeTakeFirst();
  if (!payment) throw new AppError('resource_not_found', { param: 'paymentId', message: `No such payment from a checkout session: ${paymentId}.` });
  return payment;
}
