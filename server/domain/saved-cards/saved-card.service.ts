import { randomInt } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../shared/clock.js';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../shared/errors.js';
import { recordMessage } from '../messages/message.service.js';
import { hashSecret, randomToken, sameHash } from '../../shared/crypto.js';
import type { PaymentMethodRow } from '../../db/tables/payments.js';
import type { Caller } from '../sessions/session.repository.js';
import { getSession, OPEN_STATUSES } from '../sessions/session.service.js';
import type { CheckoutSessionRow } from '../../db/tables/checkout-sessions.js';
import type { CardVerificationRow } from '../../db/tables/saved-cards.js';

/** Till's design (the contract says so): six digits, valid 10 minutes; 5 wrong codes lock the card for 30 minutes. */
export const OTP_TTL_MS = 10 * 60_000;
export const MAX_WRONG_CODES = 5;
export const CARD_LOCK_MS = 30 * 60_000;
/** Test mode never sends a text message, so its code is always this one. */
export const TEST_MODE_OTP = '123456';

/** Saved cards of a session's customer are listed without paging; this is the contract's maxItems. */
const MAX_SAVED_CARDS = 100;

/** A session that can still be paid; otherwise 400 `session_not_payable` (these operations document no 409). */
export function assertPayable(session: CheckoutSessionRow, clock: Clock): void {
  if (session.status === 'completed') throw new AppError('session_not_payable', { message: 'This checkout session is already completed.' });
  if (!(OPEN_STATUSES as readonly string[]).includes(session.status) || session.expires_at <= clock.now()) throw new AppError('session_not_payable');
}

/** Whether a session offers its customer's saved cards at all. */
const offersSavedCards = (session: CheckoutSessionRow): session is CheckoutSessionRow & { client_id: number } => session.allow_saved_cards && session.client_id !== null;

/**
 * The cards on file of the session's customer in the session's mode, default first, then newest
 * first. None when the session does not allow saved cards or has no customer.
 */
export async function listSessionSavedCards(db: Kysely<Database>, clock: Clock, caller: Caller, sessionId: string): Promise<PaymentMethodRow[]> {
  const session = await getSession(db, clock, caller, sessionId);
  if (!offersSavedCards(session)) return [];
  return db
    .selectFrom('payment_methods')
    .selectAll()
    .where('merchant_id', '=', caller.merchantId)
    .where('livemode', '=', caller.livemode)
    .where('customer_id', '=', session.client_id)
    .where('saved_at', 'is not', null)
    .orderBy('is_default', 'desc')
    .orderBy('saved_at', 'desc')
    .orderBy('id')
    .limit(MAX_SAVED_CARDS)
    .execute();
}

/** A card on file of the session's customer, or 400 naming `paymentMethodId`. */
async function savedCardOfSession(trx: Transaction<Database>, session: CheckoutSessionRow, paymentMethodId: string): Promise<PaymentMethodRow> {
  const card = offersSavedCards(session)
    ? await trx
        .selectFrom('payment_methods')
        .selectAll()
        .where('id', '=', paymentMethodId)
        .where('merchant_id', '=', session.merchant_id)
        .where('livemode', '=', session.livemode)
        .where('customer_id', '=', session.client_id)
        .where('saved_at', 'is not', null)
        .executeTakeFirst()
    : undefined;
  if (!card) throw new AppError('parameter_invalid', { param: 'paymentMethodId', message: "paymentMethodId is not a saved card of this session's customer. Use an id from listSavedCards." });
  return card;
}

const cardLocked = () =>
  new AppError('card_locked', { param: 'paymentMethodId', message: 'Too many wrong codes were entered for this card. Use another card or try again in 30 minutes.' });

/** The card's wrong-code count and lock, locked for the transaction; a lock that has run out is lifted. */
async function lockOtpState(trx: Transaction<Database>, clock: Clock, card: { id: string; merchant_id: number; livemode: boolean }) {
  const now = clock.now();
  await trx
    .insertInto('saved_card_otp_state')
    .values({ payment_method_id: card.id, merchant_id: card.merchant_id, livemode: card.livemode, locked_until: null, updated_at: now })
    .onConflict((oc) => oc.column('payment_method_id').doNothing())
    .execute();
  const state = await trx
    .selectFrom('saved_card_otp_state')
    .selectAll()
    .where('payment_method_id', '=', card.id)
    .where('merchant_id', '=', card.merchant_id)
    .where('livemode', '=', card.livemode)
    .forUpdate()
    .executeTakeFirstOrThrow();
  if (state.locked_until !== null && state.locked_until <= now) {
    return trx
      .updateTable('saved_card_otp_state')
      .set({ failed_attempts: 0, locked_until: null, updated_at: now })
      .where('payment_method_id', '=', state.payment_method_id)
      .where('merchant_id', '=', state.merchant_id)
      .where('livemode', '=', state.livemode)
      .returningAll()
      .executeTakeFirstOrThrow();
  }
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
export async function startVerification(db: Kysely<Database>, clock: Clock, caller: Caller, sessionId: string, paymentMethodId: string): Promise<StartedVerification> {
  const session = await getSession(db, clock, caller, sessionId);
  assertPayable(session, clock);
  return db.transaction().execute(async (trx) => {
    const card = await savedCardOfSession(trx, session, paymentMethodId);
    const state = await lockOtpState(trx, clock, card);
    if (state.locked_until !== null) throw cardLocked();
    const customer = await trx.selectFrom('customers').select('phone').where('id', '=', card.customer_id!).where('merchant_id', '=', caller.merchantId).executeTakeFirst();
    const phone = customer?.phone ?? session.customer_phone;
    if (!phone) throw new AppError('validation_error', { param: 'paymentMethodId', message: 'The customer has no phone number to send the code to. Add one to the customer, or pay with a new card.' });

    const now = clock.now();
    await trx
      .updateTable('card_verifications')
      .set({ status: 'superseded' })
      .where('merchant_id', '=', caller.merchantId)
      .where('livemode', '=', caller.livemode)
      .where('session_id', '=', session.id)
      .where('payment_method_id', '=', card.id)
      .where('status', '=', 'otp_sent')
      .execute();
    const id = `vrf_${caller.livemode ? 'live' : 'test'}_${randomToken(20)}`;
    const code = caller.livemode ? randomInt(0, 1_000_000).toString().padStart(6, '0') : TEST_MODE_OTP;
    const verification = await trx
      .insertInto('card_verifications')
      .values({
        id,
        merchant_id: caller.merchantId,
        livemode: caller.livemode,
        session_id: session.id,
        payment_method_id: card.id,
        code_hash: hashOtp(id, code),
        status: 'otp_sent',
        expires_at: new Date(now.getTime() + OTP_TTL_MS),
        verified_at: null,
        used_at: null,
        created_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const merchant = await trx.selectFrom('merchants').select('name').where('id', '=', caller.merchantId).executeTakeFirstOrThrow();
    // A live code is kept only as a hash, so the outbox never holds it in the clear either.
    const shown = caller.livemode ? '******' : code;
    await recordMessage(trx, clock, {
      merchantId: caller.merchantId,
      livemode: caller.livemode,
      channel: 'sms',
      kind: 'otp',
      to: phone,
      body: `Your ${merchant.name} verification code is ${shown}. It expires in 10 minutes. Card ending ${card.last4}.`,
      sessionId: session.id,
    });
    return { verification, maskedPhone: maskPhone(phone) };
  });
}

/**
 * Checks a code. The right one verifies the card for this session (answering the card's id for
 * confirm) and clears the wrong-code count. A wrong one is counted on the card, over all its
 * verifications: the 5th locks it for 30 minutes (403 `card_locked`). An expired, replaced or
 * already used verification answers 400 `otp_invalid` without counting. The count is committed
 * before the error is answered.
 */
export async function confirmOtp(db: Kysely<Database>, clock: Clock, caller: Caller, sessionId: string, input: { verificationId: string; otp: string }): Promise<{ paymentMethodId: string }> {
  const session = await getSession(db, clock, caller, sessionId);
  assertPayable(session, clock);
  const outcome = await db.transaction().execute(async (trx): Promise<{ paymentMethodId: string } | { refused: AppError }> => {
    const verification = await trx
      .selectFrom('card_verifications')
      .selectAll()
      .where('id', '=', input.verificationId)
      .where('merchant_id', '=', caller.merchantId)
      .where('livemode', '=', caller.livemode)
      .where('session_id', '=', session.id)
      .forUpdate()
      .executeTakeFirst();
    if (!verification) throw new AppError('resource_not_found', { param: 'verificationId', message: `No such verification on this session: ${input.verificationId}.` });
    const state = await lockOtpState(trx, clock, { id: verification.payment_method_id, merchant_id: verification.merchant_id, livemode: verification.livemode });
    if (state.locked_until !== null) return { refused: cardLocked() };
    const now = clock.now();
    if (verification.status !== 'otp_sent') {
      throw new AppError('otp_invalid', { param: 'verificationId', message: 'This verification was already used or replaced by a newer code. Start a new one with verifySavedCard.' });
    }
    if (verification.expires_at <= now) throw new AppError('otp_invalid', { param: 'otp', message: 'The code has expired. Request a new one with verifySavedCard.' });

    const ownState = trx.updateTable('saved_card_otp_state').where('payment_method_id', '=', verification.payment_method_id).where('merchant_id', '=', caller.merchantId).where('livemode', '=', caller.livemode);
    const ownVerifications = trx.updateTable('card_verifications').where('merchant_id', '=', caller.merchantId).where('livemode', '=', caller.livemode);
    if (!sameHash(hashOtp(verification.id, input.otp), verification.code_hash)) {
      const failed = state.failed_attempts + 1;
      if (failed >= MAX_WRONG_CODES) {
        await ownState.set({ failed_attempts: failed, locked_until: new Date(now.getTime() + CARD_LOCK_MS), updated_at: now }).execute();
        await ownVerifications.set({ status: 'locked' }).where('payment_method_id', '=', verification.payment_method_id).where('status', '=', 'otp_sent').execute();
        return { refused: cardLocked() };
      }
      await ownState.set({ failed_attempts: failed, updated_at: now }).execute();
      const left = MAX_WRONG_CODES - failed;
      return { refused: new AppError('otp_invalid', { param: 'otp', message: `The code is wrong. ${left} ${left === 1 ? 'attempt is' : 'attempts are'} left.` }) };
    }

    await ownVerifications.set({ status: 'verified', verified_at: now }).where('id', '=', verification.id).execute();
    await ownState.set({ failed_attempts: 0, updated_at: now }).execute();
    return { paymentMethodId: verification.payment_method_id };
  });
  if ('refused' in outcome) throw outcome.refused;
  return outcome;
}

/**
 * For confirm: a saved card of the session's customer pays only after an OTP verified it on this
 * session, and each verification pays once (it is used up here, in the confirm's transaction).
 * Answers null when `method` is not a saved card of this session's customer.
 */
export async function useVerifiedSavedCard(trx: Transaction<Database>, clock: Clock, session: CheckoutSessionRow, method: PaymentMethodRow): Promise<PaymentMethodRow | null> {
  if (!offersSavedCards(session) || method.saved_at === null || method.customer_id !== session.client_id) return null;
  const verification = await trx
    .selectFrom('card_verifications')
    .select('id')
    .where('session_id', '=', session.id)
    .where('payment_method_id', '=', method.id)
    .where('merchant_id', '=', session.merchant_id)
    .where('livemode', '=', session.livemode)
    .where('status', '=', 'verified')
    .forUpdate()
    .executeTakeFirst();
  if (!verification) {
    throw new AppError('parameter_invalid', {
      param: 'paymentMethodId',
      message: 'This saved card is not verified for this session. Verify it with verifySavedCard and confirmSavedCardOtp first.',
    });
  }
  await trx
    .updateTable('card_verifications')
    .set({ status: 'used', used_at: clock.now() })
    .where('id', '=', verification.id)
    .where('merchant_id', '=', session.merchant_id)
    .where('livemode', '=', session.livemode)
    .execute();
  return method;
}
