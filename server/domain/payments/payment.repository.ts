import type { Transaction } from 'kysely';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../shared/errors.js';
import type { Caller } from '../sessions/session.repository.js';
import type { PaymentRow } from '../../db/tables/payments.js';

/**
 * The caller's payment, locked for the transaction; 404 for another merchant's or the other
 * mode's. With `fromSession`, also for a payment that did not come from a checkout session.
 */
export async function lockPayment(trx: Transaction<Database>, caller: Caller, paymentId: number, options: { fromSession?: boolean } = {}): Promise<PaymentRow> {
  let query = trx.selectFrom('payments').selectAll().where('id', '=', paymentId).where('merchant_id', '=', caller.merchantId).where('livemode', '=', caller.livemode);
  if (options.fromSession) query = query.where('session_id', 'is not', null);
  const payment = await query.forUpdate().executeTakeFirst();
  if (!payment) throw new AppError('resource_not_found', { param: 'paymentId', message: `No such payment${options.fromSession ? ' from a checkout session' : ''}: ${paymentId}.` });
  return payment;
}

/** The caller's payment made through a checkout session, locked (holds and refunds act only on these). */
export const lockCheckoutPayment = (trx: Transaction<Database>, caller: Caller, paymentId: number) => lockPayment(trx, caller, paymentId, { fromSession: true });
