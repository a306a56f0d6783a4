// Click to pay (SRC) on a session created with `enableClickToPay`: the payer's enrolled cards are
// looked up by email, and an authenticated one becomes a payment method of the session, usable
// until its token expires.
import { createHmac } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { CheckoutSessionRow } from './session.tables.js';
import type { PaymentMethodRow } from '../payments/payment.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { type Tenant, tenantOf } from '../../shared/tenant.js';
import { findSrcCard, lookupSrcDirectory, type SrcDirectoryCard, srcValidationAccepted } from '../../rails/src.js';
import { storeCard } from '../payments/payment.service.js';
import { findSrcToken, insertSrcToken } from './src-token.repository.js';
import { assertSessionPayable, getSession } from './session.service.js';

/** Till's design: a click-to-pay token is usable for 15 minutes, or until the session expires if sooner. */
export const SRC_TOKEN_TTL_MS = 15 * 60_000;

function assertClickToPay(session: CheckoutSessionRow): void {
  if (!session.enable_click_to_pay)
    throw new AppError('validation_error', { message: 'Click to pay is not enabled on this checkout session (enableClickToPay).' });
}

/** Click-to-pay cards enrolled for an email; needs a payable session created with `enableClickToPay`. */
export async function lookupSrc(db: Kysely<Database>, clock: Clock, tenant: Tenant, sessionId: string, email: string): Promise<SrcDirectoryCard[]> {
  const session = await getSession(db, clock, tenant, sessionId);
  assertClickToPay(session);
  assertSessionPayable(session, clock);
  return lookupSrcDirectory(email);
}

export interface SrcAuthenticated {
  method: PaymentMethodRow;
  srcCardId: string;
  expiresAt: Date;
}

/**
 * Authenticates the payer for a click-to-pay card and turns its token into a payment method of
 * this session (brand, last 4 and expiry only), which confirm accepts until the token expires.
 */
export async function authenticateSrc(
  db: Kysely<Database>,
  clock: Clock,
  tenant: Tenant,
  sessionId: string,
  input: { srcCardId: string; validationData: string },
): Promise<SrcAuthenticated> {
  const session = await getSession(db, clock, tenant, sessionId);
  assertClickToPay(session);
  assertSessionPayable(session, clock);
  const card = findSrcCard(input.srcCardId);
  if (!card)
    throw new AppError('parameter_invalid', { param: 'srcCardId', message: 'srcCardId is not a click-to-pay card. Use a srcCardId from lookupSrcCards.' });
  if (!srcValidationAccepted(input.validationData))
    throw new AppError('otp_invalid', { param: 'validationData', message: 'The click-to-pay code is wrong or has expired.' });
  const now = clock.now();
  const expiresAt = new Date(Math.min(now.getTime() + SRC_TOKEN_TTL_MS, session.expires_at.getTime()));
  return db.transaction().execute(async (trx) => {
    const fingerprint = createHmac('sha256', `till-src-fingerprint:${tenant.merchantId}`).update(card.srcCardId).digest('hex');
    const method = await storeCard(
      trx,
      session,
      { brand: card.brand, last4: card.last4, expiryMonth: card.expiryMonth, expiryYear: card.expiryYear, fingerprint, outcome: 'succeed' },
      now,
    );
    await insertSrcToken(trx, {
      payment_method_id: method.id,
      merchant_id: tenant.merchantId,
      livemode: tenant.livemode,
      src_card_id: card.srcCardId,
      expires_at: expiresAt,
      created_at: now,
    });
    return { method, srcCardId: card.srcCardId, expiresAt };
  });
}

/** Whether a payment method is a click-to-pay token (never kept on file: it lapses in minutes). */
export async function isSrcToken(db: Db, method: PaymentMethodRow): Promise<boolean> {
  return (await findSrcToken(db, tenantOf(method), method.id)) !== undefined;
}

/** For confirm: a click-to-pay token pays only until it expires. Other methods pass. */
export async function assertSrcTokenUsable(trx: Trx, clock: Clock, method: PaymentMethodRow): Promise<void> {
  const token = await findSrcToken(trx, tenantOf(method), method.id);
  if (token && token.expires_at <= clock.now()) {
    throw new AppError('parameter_invalid', {
      param: 'paymentMethodId',
      message: 'The click-to-pay token has expired. Authenticate the card again with authenticateSrcCard.',
    });
  }
}
