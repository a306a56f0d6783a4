import type { Transaction } from 'kysely';
import type { Clock } from '../../shared/clock.js';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../shared/errors.js';
import { useVerifiedSavedCard } from '../saved-cards/saved-card.service.js';
import { assertSrcTokenUsable } from '../saved-cards/src.service.js';
import type { Caller } from '../sessions/session.repository.js';
import type { CheckoutSessionRow } from '../../db/tables/checkout-sessions.js';
import type { PaymentMethodRow } from '../../db/tables/payments.js';

/**
 * The card a confirm pays with: a `pm_…` of this session (tokenized, or a click-to-pay token
 * before it expires), or a saved card of the session's customer verified by OTP on this session
 * (each verification pays once). Anything else, or another merchant's, mode's or session's card,
 * answers 400 naming `paymentMethodId`.
 */
export async function resolveConfirmMethod(trx: Transaction<Database>, clock: Clock, caller: Caller, session: CheckoutSessionRow, paymentMethodId: string): Promise<PaymentMethodRow> {
  const method = await trx
    .selectFrom('payment_methods')
    .selectAll()
    .where('id', '=', paymentMethodId)
    .where('merchant_id', '=', caller.merchantId)
    .where('livemode', '=', caller.livemode)
    .executeTakeFirst();
  if (method?.session_id === session.id) {
    await assertSrcTokenUsable(trx, clock, method);
    return method;
  }
  const saved = method ? await useVerifiedSavedCard(trx, clock, session, method) : null;
  if (!saved) throw new AppError('parameter_invalid', { param: 'paymentMethodId', message: 'paymentMethodId is not a payment method of this session. Tokenize the card on this session first.' });
  return saved;
}
