import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../shared/clock.js';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../shared/errors.js';
import { CHALLENGE_FAILURES, type ChallengeAnswer, challengeUrl, newChallengeId, newFormToken } from '../../rails/three-d-secure.js';
import { recordInvoicePaymentFailure } from '../invoices/invoice.service.js';
import { sameHash, hashSecret } from '../../shared/crypto.js';
import { findSession } from '../sessions/session.repository.js';
import { expireIfDue, OPEN_STATUSES } from '../sessions/session.service.js';
import type { CheckoutSessionRow } from '../../db/tables/checkout-sessions.js';
import { authorizeSessionPayment, awaitPayer, chargeSessionPayment, type Confirmed, paymentBase } from './payment.service.js';
import type { PaymentMethodRow, PaymentRow } from '../../db/tables/payments.js';
import { closeOpenChallenge } from './three-d-secure.repository.js';
import type { ThreeDsChallengeRow } from '../../db/tables/three-d-secure.js';
import { merchantClock } from '../sandbox/scope.js';

/**
 * Starts 3-D Secure for a card that asks for it: the payment is kept `requires_action`, a
 * challenge is opened on this server's sandbox page, and the session waits for the payer
 * (`payment_pending`, payment status unpaid). Nothing is charged until the payer completes it.
 *
 * Where the payer returns (the contract's design): `returnUrl`, else the payment page of a
 * hosted session, else the session's `successUrl`, else a plain result page on this server.
 */
export async function startChallenge(
  trx: Transaction<Database>,
  clock: Clock,
  session: CheckoutSessionRow,
  method: PaymentMethodRow,
  options: { returnUrl: string | undefined; publicBaseUrl: string },
): Promise<Confirmed> {
  const now = clock.now();
  const payment = await trx
    .insertInto('payments')
    .values({
      ...paymentBase(session, method.id, now),
      status: 'requires_action',
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const challenge = await trx
    .insertInto('three_ds_challenges')
    .values({
      id: newChallengeId(),
      merchant_id: session.merchant_id,
      livemode: session.livemode,
      session_id: session.id,
      payment_id: payment.id,
      form_token: newFormToken(),
      return_url: options.returnUrl ?? (session.mode === 'hosted' ? session.url : null) ?? session.success_url,
      status: 'open',
      expires_at: session.expires_at,
      answered_at: null,
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const waiting = await awaitPayer(trx, session, payment, 'unpaid');
  return { session: waiting, payment, nextAction: { type: 'redirect_to_3ds', url: challengeUrl(options.publicBaseUrl, challenge.id) } };
}

/**
 * A confirm on a session whose challenge is still open replaces that challenge (Till's design):
 * the waiting payment fails (`payment.failed`, `authentication_abandoned`), the old page answers
 * 410, and the session is payable again. The caller holds the session's row lock.
 */
export async function replaceOpenChallenge(trx: Transaction<Database>, clock: Clock, session: CheckoutSessionRow): Promise<CheckoutSessionRow> {
  if (session.status !== 'payment_pending') return session;
  if (!(await closeOpenChallenge(trx, clock, session.id, 'replaced'))) return session;
  return trx.updateTable('checkout_sessions').set({ status: 'created', payment_status: 'unpaid' }).where('id', '=', session.id).returningAll().executeTakeFirstOrThrow();
}

/** What the challenge page shows. */
export interface ChallengeView {
  challenge: ThreeDsChallengeRow;
  payment: PaymentRow;
  method: PaymentMethodRow | undefined;
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
  const found = await db.selectFrom('three_ds_challenges').selectAll().where('id', '=', challengeId).executeTakeFirst();
  if (!found) return { kind: 'not_found' };
  const clock = await merchantClock(db, appClock, found.merchant_id, found.livemode);
  if (found.status !== 'open') return { kind: 'gone', reason: found.status };
  if (found.expires_at <= clock.now()) {
    return db.transaction().execute(async (trx) => {
      const { challenge } = await lockChallenge(trx, found);
      if (challenge.status !== 'open') return { kind: 'gone', reason: challenge.status } as const;
      await lapse(trx, clock, challenge);
      return { kind: 'gone', reason: 'expired' } as const;
    });
  }
  const payment = await db.selectFrom('payments').selectAll().where('id', '=', found.payment_id).where('merchant_id', '=', found.merchant_id).where('livemode', '=', found.livemode).executeTakeFirstOrThrow();
  const method = payment.payment_method_id
    ? await db.selectFrom('payment_methods').selectAll().where('id', '=', payment.payment_method_id).where('merchant_id', '=', found.merchant_id).where('livemode', '=', found.livemode).executeTakeFirst()
    : undefined;
  const merchant = await db.selectFrom('merchants').select('name').where('id', '=', found.merchant_id).executeTakeFirstOrThrow();
  return { kind: 'open', view: { challenge: found, payment, method, merchantName: merchant.name } };
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
export async function answerChallenge(db: Kysely<Database>, appClock: Clock, challengeId: string, formToken: string, answer: ChallengeAnswer): Promise<ChallengeAnswerResult> {
  const found = await db.selectFrom('three_ds_challenges').selectAll().where('id', '=', challengeId).executeTakeFirst();
  if (!found) return { kind: 'not_found' };
  const clock = await merchantClock(db, appClock, found.merchant_id, found.livemode);
  return db.transaction().execute(async (trx): Promise<ChallengeAnswerResult> => {
    const { challenge, session } = await lockChallenge(trx, found);
    if (challenge.status !== 'open') return { kind: 'gone', reason: challenge.status };
    if (!sameHash(hashSecret(formToken), hashSecret(challenge.form_token))) return { kind: 'bad_token' };
    if (challenge.expires_at <= clock.now()) {
      await lapse(trx, clock, challenge);
      return { kind: 'gone', reason: 'expired' };
    }
    const payment = await trx.selectFrom('payments').selectAll().where('id', '=', challenge.payment_id).where('merchant_id', '=', challenge.merchant_id).where('livemode', '=', challenge.livemode).forUpdate().executeTakeFirstOrThrow();
    const fail = async (failure?: { code: string; message: string }): Promise<ChallengeAnswerResult> => {
      await closeOpenChallenge(trx, clock, session.id, 'failed', failure);
      const after =
        session.status === 'payment_pending'
          ? await trx.updateTable('checkout_sessions').set({ status: 'created', payment_status: 'unpaid' }).where('id', '=', session.id).returningAll().executeTakeFirstOrThrow()
          : await trx.selectFrom('checkout_sessions').selectAll().where('id', '=', session.id).executeTakeFirstOrThrow();
      const failed = await trx.selectFrom('payments').selectAll().where('id', '=', payment.id).executeTakeFirstOrThrow();
      return { kind: 'answered', outcome: 'failed', returnUrl: challenge.return_url, session: after, payment: failed };
    };
    if (answer === 'fail') {
      // The payer failed authentication: a payment against the invoice this session pays failed.
      const failed = await fail();
      await recordInvoicePaymentFailure(trx, clock, session);
      return failed;
    }
    const method = await trx.selectFrom('payment_methods').selectAll().where('id', '=', payment.payment_method_id!).where('merchant_id', '=', challenge.merchant_id).where('livemode', '=', challenge.livemode).executeTakeFirstOrThrow();
    let done: { session: CheckoutSessionRow; payment: PaymentRow };
    try {
      done = session.capture_method === 'manual' ? await authorizeSessionPayment(trx, clock, session, method, payment) : await chargeSessionPayment(trx, clock, session, method, payment);
    } catch (err) {
      // The existing invoice this session pays was voided (or changed) during the challenge. That
      // check runs before the charge writes anything, so the transaction can go on: the payment
      // fails instead of leaving the payer on an error.
      if (err instanceof AppError && err.code === 'invoice_not_payable') return fail(CHALLENGE_FAILURES.invoiceNotPayable);
      throw err;
    }
    await trx.updateTable('three_ds_challenges').set({ status: 'succeeded', answered_at: clock.now() }).where('id', '=', challenge.id).execute();
    return { kind: 'answered', outcome: 'succeeded', returnUrl: challenge.return_url, ...done };
  });
}

/**
 * Locks a challenge's session, then the challenge (the order confirm and expiry use too, so they
 * cannot deadlock), and reads both again under the locks.
 */
async function lockChallenge(trx: Transaction<Database>, found: ThreeDsChallengeRow): Promise<{ challenge: ThreeDsChallengeRow; session: CheckoutSessionRow }> {
  const session = await findSession(trx, { merchantId: found.merchant_id, livemode: found.livemode }, found.session_id, { lock: true });
  const challenge = await trx.selectFrom('three_ds_challenges').selectAll().where('id', '=', found.id).forUpdate().executeTakeFirstOrThrow();
  return { challenge, session };
}

/**
 * A challenge past its session's expiry: an unpaid session expires now (which closes the
 * challenge, `payment.failed` then `checkout.session.expired`); a cancelled one just closes it.
 */
async function lapse(trx: Transaction<Database>, clock: Clock, challenge: ThreeDsChallengeRow): Promise<void> {
  const session = await findSession(trx, { merchantId: challenge.merchant_id, livemode: challenge.livemode }, challenge.session_id);
  if ((OPEN_STATUSES as readonly string[]).includes(session.status)) await expireIfDue(trx, clock, session);
  await closeOpenChallenge(trx, clock, challenge.session_id, 'expired');
}
