// 3-D Secure at checkout: a card that asks for it waits for the payer on the sandbox issuer's
// page, and the payer's answer there completes the session exactly like a confirm would, or fails
// the payment and leaves the session payable.
import type { Kysely } from 'kysely';
import type { Trx } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { CheckoutSessionRow } from './session.tables.js';
import type { PaymentMethodRow, PaymentRow } from '../payments/payment.tables.js';
import type { ThreeDsChallengeRow } from '../payments/challenge.tables.js';
import type { Clock } from '../../shared/clock.js';
import { hashSecret, sameHash } from '../../shared/crypto.js';
import { AppError } from '../../shared/errors.js';
import { type Tenant, tenantOf } from '../../shared/tenant.js';
import { CHALLENGE_FAILURES, type ChallengeAnswer } from '../../rails/issuer-challenge.js';
import { tenantClock } from '../clocks/tenant-clock.js';
import { recordInvoicePaymentFailure } from '../invoices/invoice-paying.js';
import { getMerchant } from '../merchants/merchant.service.js';
import { insertPayment } from '../payments/payment.repository.js';
import { cardOf, getPayment, paymentBase } from '../payments/payment.service.js';
import { findChallenge, lockChallenge, markChallengeSucceeded, openChallenge } from '../payments/challenge.service.js';
import { updateSession } from './session.repository.js';
import { closeSessionChallenge, expireIfDue, findSession, OPEN_STATUSES } from './session.service.js';
import { authorizeSession, awaitPayer, chargeSession, type SessionPayment } from './session-payment.js';

/** A session whose card waits for the payer's 3-D Secure answer on the challenge page. */
export interface ChallengeStarted extends SessionPayment {
  challenge: ThreeDsChallengeRow;
}

/**
 * Starts 3-D Secure for a card that asks for it: the payment is kept `requires_action`, a
 * challenge is opened on this server's sandbox page, and the session waits for the payer
 * (`payment_pending`, payment status unpaid). Nothing is charged until the payer completes it.
 *
 * Where the payer returns (the contract's design): `returnUrl`, else the payment page of a
 * hosted session, else the session's `successUrl`, else a plain result page on this server.
 */
export async function startChallenge(
  trx: Trx,
  clock: Clock,
  session: CheckoutSessionRow,
  method: PaymentMethodRow,
  returnUrl: string | undefined,
): Promise<ChallengeStarted> {
  const payment = await insertPayment(trx, { ...paymentBase(session, method.id, clock.now()), status: 'requires_action' });
  const challenge = await openChallenge(trx, clock, payment, {
    returnUrl: returnUrl ?? (session.mode === 'hosted' ? session.url : null) ?? session.success_url,
    expiresAt: session.expires_at,
  });
  return { session: await awaitPayer(trx, session, payment, 'unpaid'), payment, challenge };
}

/**
 * A confirm on a session whose challenge is still open replaces that challenge (Till's design):
 * the waiting payment fails (`payment.failed`, `authentication_abandoned`), the old page answers
 * 410, and the session is payable again. The caller holds the session's row lock.
 */
export async function replaceOpenChallenge(trx: Trx, clock: Clock, session: CheckoutSessionRow): Promise<CheckoutSessionRow> {
  if (session.status !== 'payment_pending') return session;
  if (!(await closeSessionChallenge(trx, clock, session, 'replaced'))) return session;
  return (await updateSession(trx, tenantOf(session), session.id, { status: 'created', payment_status: 'unpaid' }))!;
}

/** What the challenge page shows. */
export interface ChallengeView {
  challenge: ThreeDsChallengeRow;
  payment: PaymentRow;
  method: PaymentMethodRow | null;
  merchantName: string;
}

/** Why a challenge can no longer be answered. */
export type ChallengeGone = 'succeeded' | 'failed' | 'replaced' | 'expired';

export type ChallengeLookup = { kind: 'not_found' } | { kind: 'gone'; reason: ChallengeGone } | { kind: 'open'; view: ChallengeView };

export type ChallengeAnswerResult =
  | { kind: 'not_found' }
  | { kind: 'gone'; reason: ChallengeGone }
  | { kind: 'bad_token' }
  | { kind: 'answered'; outcome: 'succeeded' | 'failed'; returnUrl: string | null; session: CheckoutSessionRow; payment: PaymentRow };

/** The challenge behind a page, for showing it. A challenge past its session's expiry is closed here. */
export async function viewChallenge(db: Kysely<Database>, appClock: Clock, challengeId: string): Promise<ChallengeLookup> {
  const found = await findChallenge(db, challengeId);
  if (!found) return { kind: 'not_found' };
  if (found.status !== 'open') return { kind: 'gone', reason: found.status };
  const tenant = tenantOf(found);
  const clock = await tenantClock(db, appClock, tenant);
  if (found.expires_at <= clock.now()) {
    return db.transaction().execute(async (trx) => {
      const { challenge } = await lockChallengeAndSession(trx, found);
      if (challenge.status !== 'open') return { kind: 'gone', reason: challenge.status } as const;
      await lapse(trx, clock, challenge);
      return { kind: 'gone', reason: 'expired' } as const;
    });
  }
  const payment = await getPayment(db, tenant, found.payment_id);
  const merchant = await getMerchant(db, found.merchant_id);
  return { kind: 'open', view: { challenge: found, payment, method: await cardOf(db, payment), merchantName: merchant.name } };
}

/**
 * The payer's answer on the challenge page, once. Completing it completes the session exactly
 * like a confirm would (one-time: paid, invoice, ledger, `payment.succeeded` then
 * `checkout.session.completed`; hold session: authorized), updating the waiting payment. Failing
 * it fails the payment (`payment.failed`, and `invoice.payment_failed` when the session pays an
 * invoice) and the session is payable again.
 *
 * A session cancelled while its challenge was open still completes if the payer completes the
 * challenge (the Checkout document: "may still complete; refund it if it does"). A session whose
 * time ran out does not: the challenge closes with it and the payment fails.
 */
export async function answerChallenge(
  db: Kysely<Database>,
  appClock: Clock,
  challengeId: string,
  formToken: string,
  answer: ChallengeAnswer,
): Promise<ChallengeAnswerResult> {
  const found = await findChallenge(db, challengeId);
  if (!found) return { kind: 'not_found' };
  const clock = await tenantClock(db, appClock, tenantOf(found));
  return db.transaction().execute(async (trx): Promise<ChallengeAnswerResult> => {
    const { challenge, session } = await lockChallengeAndSession(trx, found);
    if (challenge.status !== 'open') return { kind: 'gone', reason: challenge.status };
    if (!sameHash(hashSecret(formToken), hashSecret(challenge.form_token))) return { kind: 'bad_token' };
    if (challenge.expires_at <= clock.now()) {
      await lapse(trx, clock, challenge);
      return { kind: 'gone', reason: 'expired' };
    }
    const payment = await getPayment(trx, tenantOf(challenge), challenge.payment_id, { lock: true });
    if (answer === 'fail') {
      // The payer failed authentication: a payment against the invoice this session pays failed.
      const failed = await failChallenge(trx, clock, challenge, session, payment);
      await recordInvoicePaymentFailure(trx, clock, session);
      return failed;
    }
    return completeChallenge(trx, clock, challenge, session, payment);
  });
}

/** The payer completed authentication: the waiting payment goes through as a confirm's would. */
async function completeChallenge(
  trx: Trx,
  clock: Clock,
  challenge: ThreeDsChallengeRow,
  session: CheckoutSessionRow,
  payment: PaymentRow,
): Promise<ChallengeAnswerResult> {
  const method = (await cardOf(trx, payment))!;
  let done: SessionPayment;
  try {
    done =
      session.capture_method === 'manual'
        ? await authorizeSession(trx, clock, session, method, payment)
        : await chargeSession(trx, clock, session, method, payment);
  } catch (err) {
    // The existing invoice this session pays was voided (or changed) during the challenge. That
    // check runs before the charge writes anything, so the transaction can go on: the payment
    // fails instead of leaving the payer on an error.
    if (err instanceof AppError && err.code === 'invoice_not_payable')
      return failChallenge(trx, clock, challenge, session, payment, CHALLENGE_FAILURES.invoiceNotPayable);
    throw err;
  }
  await markChallengeSucceeded(trx, clock, challenge);
  return { kind: 'answered', outcome: 'succeeded', returnUrl: challenge.return_url, ...done };
}

/** The challenge closes failed: its payment fails, and a session that waited on it is payable again. */
async function failChallenge(
  trx: Trx,
  clock: Clock,
  challenge: ThreeDsChallengeRow,
  session: CheckoutSessionRow,
  payment: PaymentRow,
  failure?: { code: string; message: string },
): Promise<ChallengeAnswerResult> {
  const tenant = tenantOf(session);
  await closeSessionChallenge(trx, clock, session, 'failed', failure);
  const after =
    session.status === 'payment_pending'
      ? (await updateSession(trx, tenant, session.id, { status: 'created', payment_status: 'unpaid' }))!
      : await findSession(trx, tenant, session.id);
  const failed = await getPayment(trx, tenant, payment.id);
  return { kind: 'answered', outcome: 'failed', returnUrl: challenge.return_url, session: after, payment: failed };
}

/**
 * Locks a challenge's session, then the challenge (the order confirm and expiry use too, so they
 * cannot deadlock), and reads both again under the locks.
 */
async function lockChallengeAndSession(trx: Trx, found: ThreeDsChallengeRow): Promise<{ challenge: ThreeDsChallengeRow; session: CheckoutSessionRow }> {
  const tenant: Tenant = tenantOf(found);
  const session = await findSession(trx, tenant, found.session_id, { lock: true });
  const challenge = await lockChallenge(trx, tenant, found.id);
  return { challenge, session };
}

/**
 * A challenge past its session's expiry: an unpaid session expires now (which closes the
 * challenge, `payment.failed` then `checkout.session.expired`); a cancelled one just closes it.
 */
async function lapse(trx: Trx, clock: Clock, challenge: ThreeDsChallengeRow): Promise<void> {
  const session = await findSession(trx, tenantOf(challenge), challenge.session_id);
  if ((OPEN_STATUSES as readonly string[]).includes(session.status)) await expireIfDue(trx, clock, session);
  await closeSessionChallenge(trx, clock, session, 'expired');
}
