// Saved cards at checkout: a session's customer pays with a card on file after a one-time code
// (OTP) sent to their phone verifies it on this session; and a card that pays a session that
// allows it is kept on file for its customer.
import { randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { CheckoutSessionRow } from './session.tables.js';
import type { PaymentMethodRow } from '../payments/payment.tables.js';
import type { CardVerificationRow } from './saved-card.tables.js';
import type { Clock } from '../../shared/clock.js';
import { hashSecret, randomToken, sameHash } from '../../shared/crypto.js';
import { AppError } from '../../shared/errors.js';
import { type Tenant, tenantOf } from '../../shared/tenant.js';
import { findOwnCustomer } from '../customers/customer.service.js';
import { getMerchant } from '../merchants/merchant.service.js';
import { recordMessage } from '../messages/message.service.js';
import { findCardOnFile, keepCardOnFile, listCardsOnFile, sameCardOnFile } from '../payments/cards-on-file.js';
import { isSrcToken } from './click-to-pay.js';
import { insertVerification, lockOtpStateRow, lockVerification, lockVerifiedOf, setVerificationStatus, updateOtpState } from './saved-card.repository.js';
import { assertSessionPayable, getSession } from './session.service.js';

/** Till's design (the contract says so): six digits, valid 10 minutes; 5 wrong codes lock the card for 30 minutes. */
export const OTP_TTL_MS = 10 * 60_000;
export const MAX_WRONG_CODES = 5;
export const CARD_LOCK_MS = 30 * 60_000;
/** Test mode never sends a text message, so its code is always this one. */
export const TEST_MODE_OTP = '123456';

/** Saved cards of a session's customer are listed without paging; this is the contract's maxItems. */
const MAX_SAVED_CARDS = 100;

/** Whether a session offers its customer's saved cards at all. */
const offersSavedCards = (session: CheckoutSessionRow): session is CheckoutSessionRow & { client_id: number } =>
  session.allow_saved_cards && session.client_id !== null;

/**
 * The cards on file of the session's customer in the session's mode, default first, then newest
 * first. None when the session does not allow saved cards or has no customer.
 */
export async function listSessionSavedCards(db: Kysely<Database>, clock: Clock, tenant: Tenant, sessionId: string): Promise<PaymentMethodRow[]> {
  const session = await getSession(db, clock, tenant, sessionId);
  if (!offersSavedCards(session)) return [];
  return listCardsOnFile(db, tenant, session.client_id, MAX_SAVED_CARDS);
}

/** A card on file of the session's customer, or 400 naming `paymentMethodId`. */
async function savedCardOfSession(db: Db, session: CheckoutSessionRow, paymentMethodId: string): Promise<PaymentMethodRow> {
  const card = offersSavedCards(session) ? await findCardOnFile(db, tenantOf(session), session.client_id, paymentMethodId) : undefined;
  if (!card)
    throw new AppError('parameter_invalid', {
      param: 'paymentMethodId',
      message: "paymentMethodId is not a saved card of this session's customer. Use an id from listSavedCards.",
    });
  return card;
}

const cardLocked = () =>
  new AppError('card_locked', {
    param: 'paymentMethodId',
    message: 'Too many wrong codes were entered for this card. Use another card or try again in 30 minutes.',
  });

/** The card's wrong-code count and lock, locked for the transaction; a lock that has run out is lifted. */
async function lockOtpState(trx: Trx, clock: Clock, tenant: Tenant, paymentMethodId: string) {
  const now = clock.now();
  const state = await lockOtpStateRow(trx, tenant, paymentMethodId, now);
  if (state.locked_until !== null && state.locked_until <= now)
    return updateOtpState(trx, tenant, paymentMethodId, { failed_attempts: 0, locked_until: null, updated_at: now });
  return state;
}

/** The phone with every digit masked but the last four (and a separated leading country code): `+1 *** *** 0142`. */
export function maskPhone(phone: string): string {
  const digits = phone.replace(/\D/g, '').length;
  const keepFrom = digits > 4 ? digits - 4 : Number.POSITIVE_INFINITY;
  const countryCode = /^\+\d{1,3}(?=[\s.-])/.exec(phone)?.[0].length ?? 0;
  let seen = 0;
  return [...phone]
    .map((ch, i) => {
      if (!/\d/.test(ch)) return ch;
      const index = seen++;
      return i < countryCode || index >= keepFrom ? ch : '*';
    })
    .join('');
}

const hashOtp = (verificationId: string, code: string) => hashSecret(`${verificationId}:${code}`);

export interface StartedVerification {
  verification: CardVerificationRow;
  maskedPhone: string;
}

/**
 * Starts OTP verification of a saved card: a six-digit code (always `123456` in test mode, random
 * in live mode; only its hash is kept) valid 10 minutes, sent by text message to the customer's
 * phone (the session's `customerPhone` when the customer has none) through the outbox. A newer
 * code replaces any earlier one of this card on this session. A locked card answers 403.
 */
export async function startVerification(
  db: Kysely<Database>,
  clock: Clock,
  tenant: Tenant,
  sessionId: string,
  paymentMethodId: string,
): Promise<StartedVerification> {
  const session = await getSession(db, clock, tenant, sessionId);
  assertSessionPayable(session, clock);
  return db.transaction().execute(async (trx) => {
    const card = await savedCardOfSession(trx, session, paymentMethodId);
    const state = await lockOtpState(trx, clock, tenant, card.id);
    if (state.locked_until !== null) throw cardLocked();
    const phone = (await findOwnCustomer(trx, tenant, card.customer_id!))?.phone ?? session.customer_phone;
    if (!phone)
      throw new AppError('validation_error', {
        param: 'paymentMethodId',
        message: 'The customer has no phone number to send the code to. Add one to the customer, or pay with a new card.',
      });
    await setVerificationStatus(trx, tenant, { paymentMethodId: card.id, sessionId: session.id, fromStatus: 'otp_sent' }, { status: 'superseded' });
    const { verification, code } = await newVerification(trx, clock, tenant, session, card);
    const merchant = await getMerchant(trx, tenant.merchantId);
    // A live code is kept only as a hash, so the outbox never holds it in the clear either.
    const shown = tenant.livemode ? '******' : code;
    await recordMessage(trx, clock, {
      tenant,
      channel: 'sms',
      kind: 'otp',
      to: phone,
      body: `Your ${merchant.name} verification code is ${shown}. It expires in 10 minutes. Card ending ${card.last4}.`,
      sessionId: session.id,
    });
    return { verification, maskedPhone: maskPhone(phone) };
  });
}

async function newVerification(trx: Trx, clock: Clock, tenant: Tenant, session: CheckoutSessionRow, card: PaymentMethodRow) {
  const now = clock.now();
  const id = `vrf_${tenant.livemode ? 'live' : 'test'}_${randomToken(20)}`;
  const code = tenant.livemode ? randomInt(0, 1_000_000).toString().padStart(6, '0') : TEST_MODE_OTP;
  const verification = await insertVerification(trx, {
    id,
    merchant_id: tenant.merchantId,
    livemode: tenant.livemode,
    session_id: session.id,
    payment_method_id: card.id,
    code_hash: hashOtp(id, code),
    status: 'otp_sent',
    expires_at: new Date(now.getTime() + OTP_TTL_MS),
    verified_at: null,
    used_at: null,
    created_at: now,
  });
  return { verification, code };
}

/**
 * Checks a code. The right one verifies the card for this session (answering the card's id for
 * confirm) and clears the wrong-code count. A wrong one is counted on the card, over all its
 * verifications: the 5th locks it for 30 minutes (403 `card_locked`). An expired, replaced or
 * already used verification answers 400 `otp_invalid` without counting. The count is committed
 * before the error is answered.
 */
export async function confirmOtp(
  db: Kysely<Database>,
  clock: Clock,
  tenant: Tenant,
  sessionId: string,
  input: { verificationId: string; otp: string },
): Promise<{ paymentMethodId: string }> {
  const session = await getSession(db, clock, tenant, sessionId);
  assertSessionPayable(session, clock);
  const outcome = await db.transaction().execute(async (trx): Promise<{ paymentMethodId: string } | { refused: AppError }> => {
    const verification = await lockVerification(trx, tenant, session.id, input.verificationId);
    if (!verification)
      throw new AppError('resource_not_found', { param: 'verificationId', message: `No such verification on this session: ${input.verificationId}.` });
    const state = await lockOtpState(trx, clock, tenant, verification.payment_method_id);
    if (state.locked_until !== null) return { refused: cardLocked() };
    const now = clock.now();
    if (verification.status !== 'otp_sent') {
      throw new AppError('otp_invalid', {
        param: 'verificationId',
        message: 'This verification was already used or replaced by a newer code. Start a new one with verifySavedCard.',
      });
    }
    if (verification.expires_at <= now)
      throw new AppError('otp_invalid', { param: 'otp', message: 'The code has expired. Request a new one with verifySavedCard.' });
    if (!sameHash(hashOtp(verification.id, input.otp), verification.code_hash))
      return { refused: await countWrongCode(trx, tenant, verification, state.failed_attempts + 1, now) };
    await setVerificationStatus(trx, tenant, { id: verification.id }, { status: 'verified', verified_at: now });
    await updateOtpState(trx, tenant, verification.payment_method_id, { failed_attempts: 0, updated_at: now });
    return { paymentMethodId: verification.payment_method_id };
  });
  if ('refused' in outcome) throw outcome.refused;
  return outcome;
}

/** A wrong code: counted on the card; the 5th locks it (and every code still out for it). Answers the error to give. */
async function countWrongCode(trx: Trx, tenant: Tenant, verification: CardVerificationRow, failed: number, now: Date): Promise<AppError> {
  if (failed >= MAX_WRONG_CODES) {
    await updateOtpState(trx, tenant, verification.payment_method_id, {
      failed_attempts: failed,
      locked_until: new Date(now.getTime() + CARD_LOCK_MS),
      updated_at: now,
    });
    await setVerificationStatus(trx, tenant, { paymentMethodId: verification.payment_method_id, fromStatus: 'otp_sent' }, { status: 'locked' });
    return cardLocked();
  }
  await updateOtpState(trx, tenant, verification.payment_method_id, { failed_attempts: failed, updated_at: now });
  const left = MAX_WRONG_CODES - failed;
  return new AppError('otp_invalid', { param: 'otp', message: `The code is wrong. ${left} ${left === 1 ? 'attempt is' : 'attempts are'} left.` });
}

/**
 * For confirm: a saved card of the session's customer pays only after an OTP verified it on this
 * session, and each verification pays once (it is used up here, in the confirm's transaction).
 * Answers null when `method` is not a saved card of this session's customer.
 */
export async function useVerifiedSavedCard(trx: Trx, clock: Clock, session: CheckoutSessionRow, method: PaymentMethodRow): Promise<PaymentMethodRow | null> {
  if (!offersSavedCards(session) || method.saved_at === null || method.customer_id !== session.client_id) return null;
  const tenant = tenantOf(session);
  const verification = await lockVerifiedOf(trx, tenant, session.id, method.id);
  if (!verification) {
    throw new AppError('parameter_invalid', {
      param: 'paymentMethodId',
      message: 'This saved card is not verified for this session. Verify it with verifySavedCard and confirmSavedCardOtp first.',
    });
  }
  await setVerificationStatus(trx, tenant, { id: verification.id }, { status: 'used', used_at: clock.now() });
  return method;
}

/**
 * Saved cards at checkout: a card that pays (or is authorized for a hold) through a one-time
 * session with a customer (`clientId`, one of the merchant's own) and `allowSavedCards` true is
 * kept on file for that customer, in the session's mode. The payment page tells the payer
 * beforehand. Not kept: a card already on file (a saved card paying again, or the same card number,
 * by fingerprint) and click-to-pay tokens (they lapse within minutes). Runs in the payment's transaction.
 */
export async function keepSessionCard(trx: Trx, clock: Clock, session: CheckoutSessionRow, method: PaymentMethodRow | null): Promise<void> {
  // A subscription session keeps its first card by its own rule (startPaidSubscription).
  if (!method || session.payment_type !== 'one_time' || !session.allow_saved_cards || session.client_id === null || method.saved_at !== null) return;
  const customer = await findOwnCustomer(trx, tenantOf(session), session.client_id);
  if (!customer || (await isSrcToken(trx, method))) return;
  if (await sameCardOnFile(trx, method, customer.id)) return;
  await keepCardOnFile(trx, clock, method, customer.id);
}
