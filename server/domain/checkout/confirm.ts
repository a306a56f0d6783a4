// Paying a session: tokenize a card on it, then confirm with a payment method. The session row is
// locked for the whole confirmation, so two confirms racing on one session make exactly one
// payment (a unique index stands behind that too).
import type { Kysely } from 'kysely';
import type { Trx } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { CheckoutSessionRow } from './session.tables.js';
import type { PaymentMethodRow, PaymentRow } from '../payments/payment.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import type { Tenant } from '../../shared/tenant.js';
import { type CardDetails, tokenize } from '../../rails/cards.js';
import { findCard, storeCard } from '../payments/payment.service.js';
import { assertSrcTokenUsable } from './click-to-pay.js';
import { useVerifiedSavedCard } from './saved-cards.js';
import { getSession, lockPayableSession } from './session.service.js';
import { authorizeSession, chargeSession, declineSession } from './session-payment.js';
import { replaceOpenChallenge, startChallenge } from './session-challenge.js';
import { confirmWithWallet, refuseWhileQrLive } from './session-qr.js';

/** Tokenizes a card for one session. The number and the CVC go no further than this call. */
export async function tokenizeCard(
  db: Kysely<Database>,
  clock: Clock,
  tenant: Tenant,
  sessionId: string,
  input: CardDetails & { billingDetails?: { name?: string; email?: string } | undefined },
): Promise<PaymentMethodRow> {
  const session = await getSession(db, clock, tenant, sessionId);
  if (session.status === 'cancelled' || session.status === 'expired') throw new AppError('session_not_payable');
  const card = tokenize(input, tenant.merchantId, clock.now());
  return storeCard(db, session, card, clock.now(), {
    customerId: session.client_id,
    billingName: input.billingDetails?.name,
    billingEmail: input.billingDetails?.email,
  });
}

/** What the payer must do next: answer 3-D Secure on the challenge page, or pay a wallet QR code. */
export type NextAction = { type: 'redirect_to_3ds'; challengeId: string } | { type: 'display_qr'; payment: PaymentRow };

/** A confirmed session: paid, authorized, or waiting for the payer (`nextAction`). */
export interface Confirmed {
  session: CheckoutSessionRow;
  payment: PaymentRow;
  nextAction: NextAction | null;
}

/**
 * Confirms a session. A paid one-time session gets one payment and one paid invoice that records
 * the payer; a hold session gets an authorization and nothing is paid until capture; a card that
 * asks for 3-D Secure, or a wallet, leaves the session waiting for the payer.
 */
export async function confirmSession(
  db: Kysely<Database>,
  clock: Clock,
  tenant: Tenant,
  sessionId: string,
  input: { paymentMethodId: string; returnUrl?: string | undefined },
): Promise<Confirmed> {
  if (input.returnUrl !== undefined && !/^https?:$/.test(safeProtocol(input.returnUrl))) {
    throw new AppError('parameter_invalid', { param: 'returnUrl', message: 'returnUrl must be an absolute http or https URL.' });
  }
  const outcome = await db.transaction().execute(async (trx): Promise<Confirmed | { declined: AppError }> => {
    // A confirm while a 3-D Secure challenge is open replaces it: the waiting payment fails and
    // its page can no longer be answered, so the session never has two live payments.
    const session = await replaceOpenChallenge(trx, clock, await lockPayableSession(trx, clock, tenant, sessionId));
    if (input.paymentMethodId.startsWith('wallet:')) {
      const issued = await confirmWithWallet(trx, clock, session, input.paymentMethodId);
      return { ...issued, nextAction: { type: 'display_qr', payment: issued.payment } };
    }
    await refuseWhileQrLive(trx, session);
    const method = await resolveConfirmMethod(trx, clock, tenant, session, input.paymentMethodId);
    return payByCard(trx, clock, session, method, input.returnUrl);
  });
  if ('declined' in outcome) throw outcome.declined;
  return outcome;
}

/** The sandbox processor's answer to a card: declined (the decline is committed, then answered), 3-D Secure, authorized, or charged. */
async function payByCard(
  trx: Trx,
  clock: Clock,
  session: CheckoutSessionRow,
  method: PaymentMethodRow,
  returnUrl: string | undefined,
): Promise<Confirmed | { declined: AppError }> {
  if (method.sandbox_outcome === 'insufficient_funds' || method.sandbox_outcome === 'processing_error')
    return { declined: await declineSession(trx, clock, session, method) };
  if (method.sandbox_outcome === 'requires_3ds') {
    const started = await startChallenge(trx, clock, session, method, returnUrl);
    return { session: started.session, payment: started.payment, nextAction: { type: 'redirect_to_3ds', challengeId: started.challenge.id } };
  }
  const paid = session.capture_method === 'manual' ? await authorizeSession(trx, clock, session, method) : await chargeSession(trx, clock, session, method);
  return { ...paid, nextAction: null };
}

function safeProtocol(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    return '';
  }
}

/**
 * The card a confirm pays with: a `pm_…` of this session (tokenized, or a click-to-pay token
 * before it expires), or a saved card of the session's customer verified by OTP on this session
 * (each verification pays once). Anything else, or another merchant's, mode's or session's card,
 * answers 400 naming `paymentMethodId`.
 */
async function resolveConfirmMethod(trx: Trx, clock: Clock, tenant: Tenant, session: CheckoutSessionRow, paymentMethodId: string): Promise<PaymentMethodRow> {
  const method = await findCard(trx, tenant, paymentMethodId);
  if (method?.session_id === session.id) {
    await assertSrcTokenUsable(trx, clock, method);
    return method;
  }
  const saved = method ? await useVerifiedSavedCard(trx, clock, session, method) : null;
  if (!saved)
    throw new AppError('parameter_invalid', {
      param: 'paymentMethodId',
      message: 'paymentMethodId is not a payment method of this session. Tokenize the card on this session first.',
    });
  return saved;
}
