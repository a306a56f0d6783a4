// Wallet QR payments: confirm issues a QR code and a payment waiting for the payer; the wallet pays
// it (the sandbox's simulateQrPaid), or the payer withdraws it, or a cancel or the session's expiry
// ends it. Wallet refunds are in full only and finish later (`pending_reversal`).
import { Decimal } from 'decimal.js';
import type { Kysely, Transaction } from 'kysely';
import type { components } from '../../../generated/checkout.js';
import type { Clock } from '../../shared/clock.js';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../shared/errors.js';
import { issueQr, SANDBOX_WITHDRAW_QR_FAILED, SANDBOX_WITHDRAW_QR_KEY, WALLET_OPTIONS, WALLET_REFUND_DELAY_MINUTES } from '../../rails/wallet.js';
import { writeEvent } from '../events/event.service.js';
import { recordInvoiceRefund } from '../invoices/invoice.service.js';
import { assertPayable } from '../invoices/invoice.service.js';
import { decimalToAmount, decimalToString } from '../../shared/money.js';
import { findSession, type Caller } from '../sessions/session.repository.js';
import { expireIfDue } from '../sessions/session.service.js';
import type { CheckoutSessionRow } from '../../db/tables/checkout-sessions.js';
import { type DueScope, GLOBAL_SCOPE, inScope, scopedClock } from '../sandbox/scope.js';
import { paymentEventObject } from './payment.mapper.js';
import { awaitPayer, chargeSessionPayment, type Confirmed, paymentBase } from './payment.service.js';
import type { PaymentRow } from '../../db/tables/payments.js';

type Schemas = components['schemas'];

/** The session's live QR payment (waiting for the payer), locked, if any. */
async function liveQrPayment(trx: Transaction<Database>, session: CheckoutSessionRow): Promise<PaymentRow | undefined> {
  return trx.selectFrom('payments').selectAll().where('session_id', '=', session.id).where('merchant_id', '=', session.merchant_id).where('status', '=', 'pending').forUpdate().executeTakeFirst();
}

/** What confirm answers for a live QR code. */
export function qrNextAction(payment: PaymentRow, publicBaseUrl: string): Schemas['CheckoutSessionQrAction'] {
  return { type: 'display_qr', qrData: payment.qr_data ?? '', qrImageUrl: `${publicBaseUrl}/qr/${payment.qr_token}.png`, expiresAt: (payment.qr_expires_at ?? new Date(0)).toISOString() };
}

/**
 * Confirm with a wallet option (`wallet:qr`): a payment waiting for the payer and its QR code, the
 * session `payment_pending`. Offered only when the merchant has an enabled wallet option, and never
 * to hold or subscription sessions. A repeat while the code is live answers the same code.
 */
export async function confirmWithWallet(trx: Transaction<Database>, clock: Clock, session: CheckoutSessionRow, paymentMethodId: string, publicBaseUrl: string): Promise<Confirmed> {
  const refuse = (message: string) => new AppError('parameter_invalid', { param: 'paymentMethodId', message });
  if (session.capture_method === 'manual') throw refuse('A hold session (captureMethod manual) cannot be paid by wallet: only cards can be held. Pay with a card.');
  if (session.payment_type === 'subscription') throw refuse('A subscription session cannot be paid by wallet: renewals need a card on file. Pay with a card.');
  const option = paymentMethodId.slice('wallet:'.length);
  const merchant = await trx.selectFrom('merchants').select(['name', 'payment_options']).where('id', '=', session.merchant_id).executeTakeFirstOrThrow();
  const wallet = merchant.payment_options.find((o) => o.enabled && o.method === 'GatewayWallet');
  if (!(WALLET_OPTIONS as readonly string[]).includes(option) || !wallet) throw refuse(`${paymentMethodId} is not a payment option of this session. See allowedPaymentMethods.`);

  const live = await liveQrPayment(trx, session);
  if (live) return { session, payment: live, nextAction: qrNextAction(live, publicBaseUrl) };
  // An existing invoice voided since the session opened can no longer be paid through it.
  if (session.pays_invoice && session.invoice_id !== null) assertPayable(await trx.selectFrom('invoices').selectAll().where('id', '=', session.invoice_id).executeTakeFirstOrThrow());

  const now = clock.now();
  const base = paymentBase(session, null, now);
  const qr = issueQr({ reference: base.reference_number, amount: decimalToString(session.amount, session.currency), currency: session.currency, merchantName: merchant.name });
  const payment = await trx
    .insertInto('payments')
    .values({
      ...base,
      status: 'pending',
      method_type: 'wallet',
      wallet_name: wallet.name,
      qr_token: qr.token,
      qr_data: qr.data,
      // The code lives as long as its session.
      qr_expires_at: session.expires_at,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  const pending = await awaitPayer(trx, session, payment, 'pending');
  return { session: pending, payment, nextAction: qrNextAction(payment, publicBaseUrl) };
}

/** A card confirm while a QR code is live would let the payer pay twice: withdraw the code first. */
export async function refuseWhileQrLive(trx: Transaction<Database>, session: CheckoutSessionRow): Promise<void> {
  if (session.status !== 'payment_pending') return;
  if (await liveQrPayment(trx, session)) {
    throw new AppError('invalid_state', { message: 'A wallet QR code of this session is still live and could be paid. Withdraw it (withdraw-qr) before paying another way.' });
  }
}

/**
 * Ends a session's live QR code so it can no longer be paid: `withdrawn` (withdraw-qr, cancel) or
 * `expired` (the session expired). The session forgets the payment when it stays open.
 */
export async function endLiveQr(trx: Transaction<Database>, clock: Clock, session: CheckoutSessionRow, status: 'withdrawn' | 'expired'): Promise<PaymentRow | undefined> {
  const now = clock.now();
  return trx
    .updateTable('payments')
    .set({ status, withdrawn_at: status === 'withdrawn' ? now : null, updated_at: now })
    .where('session_id', '=', session.id)
    .where('merchant_id', '=', session.merchant_id)
    .where('status', '=', 'pending')
    .returningAll()
    .executeTakeFirst();
}

const WITHDRAW_MESSAGES = {
  withdrawn: 'The QR code can no longer be paid. Choose another way to pay.',
  none: 'There is no QR code to withdraw. Choose a way to pay.',
  paidByQr: 'Your payment by QR code went through. No need to pay again.',
  paid: 'This payment is already done. No need to pay again.',
  failed: 'We could not cancel the QR code yet, so it may still be paid. Please try again in a moment.',
};

/**
 * Withdraws the session's live QR code (withdraw-qr): `withdrawn` (the session is back to
 * `payment_pending`, or as it was when no code was live), `already_paid` (the session is
 * completed), or `failed` (nothing changed; the sandbox trigger). A cancelled or expired session
 * answers 400 `session_not_payable`.
 */
export async function withdrawQr(db: Kysely<Database>, clock: Clock, caller: Caller, sessionId: string): Promise<Schemas['CheckoutSessionQrWithdrawal']> {
  const outcome = await db.transaction().execute(async (trx): Promise<Schemas['CheckoutSessionQrWithdrawal'] | AppError> => {
    const { session } = await expireIfDue(trx, clock, await findSession(trx, caller, sessionId, { lock: true }));
    const answer = (outcome: Schemas['CheckoutSessionQrWithdrawal']['outcome'], status: string, message: string) => ({
      sessionId: session.id,
      outcome,
      status: status as Schemas['CheckoutSessionStatus'],
      message,
    });
    if (session.status === 'cancelled' || session.status === 'expired') {
      return new AppError('session_not_payable', { message: 'This checkout session is cancelled or expired: there is no QR code to withdraw, and it cannot be paid.' });
    }
    if (session.status === 'completed') {
      const payment = session.payment_id === null ? undefined : await trx.selectFrom('payments').select('method_type').where('id', '=', session.payment_id).executeTakeFirst();
      return answer('already_paid', 'completed', payment?.method_type === 'wallet' ? WITHDRAW_MESSAGES.paidByQr : WITHDRAW_MESSAGES.paid);
    }
    const live = await liveQrPayment(trx, session);
    if (!live) return answer('withdrawn', session.status, WITHDRAW_MESSAGES.none);
    if (!caller.livemode && session.metadata[SANDBOX_WITHDRAW_QR_KEY] === SANDBOX_WITHDRAW_QR_FAILED) return answer('failed', session.status, WITHDRAW_MESSAGES.failed);
    await endLiveQr(trx, clock, session, 'withdrawn');
    const reopened = await trx
      .updateTable('checkout_sessions')
      .set({ status: 'payment_pending', payment_status: 'unpaid', payment_id: null })
      .where('id', '=', session.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return answer('withdrawn', reopened.status, WITHDRAW_MESSAGES.withdrawn);
  });
  if (outcome instanceof AppError) throw outcome;
  return outcome;
}

/**
 * The sandbox wallet pays a session's live QR code (simulateQrPaid): the waiting payment succeeds
 * and the session completes as a card payment would (invoice paid, ledger, `payment.succeeded`
 * then `checkout.session.completed`). No live code (never issued, withdrawn, expired, or the
 * session is completed or cancelled) answers 409 `invalid_state`.
 */
export async function payQr(db: Kysely<Database>, clock: Clock, caller: Caller, sessionId: string): Promise<Schemas['TestQrPaidResult']> {
  const outcome = await db.transaction().execute(async (trx): Promise<Schemas['TestQrPaidResult'] | AppError> => {
    const { session } = await expireIfDue(trx, clock, await findSession(trx, caller, sessionId, { lock: true }));
    const live = session.status === 'payment_pending' ? await liveQrPayment(trx, session) : undefined;
    if (!live) return new AppError('invalid_state', { message: `Session ${session.id} has no live wallet QR code to pay (none issued, withdrawn, or the session is ${session.status}).` });
    const { session: completed, payment } = await chargeSessionPayment(trx, clock, session, null, live);
    return { sessionId: completed.id, status: 'completed', paymentStatus: 'paid', paymentId: payment.id };
  });
  if (outcome instanceof AppError) throw outcome;
  return outcome;
}

/**
 * Accepts a wallet refund (always of all that is left): the payment becomes `pending_reversal` and
 * the wallet finishes it after the sandbox delay (`completeDueWalletRefunds`), which writes the
 * ledger and `payment.refunded`.
 */
export async function acceptWalletRefund(
  trx: Transaction<Database>,
  clock: Clock,
  payment: PaymentRow,
  amount: Decimal,
  input: { reason?: string; fromBalance: boolean },
): Promise<PaymentRow> {
  const now = clock.now();
  const accepted = await trx
    .updateTable('payments')
    .set({
      status: 'pending_reversal',
      refunded_amount: new Decimal(payment.refunded_amount).plus(amount).toFixed(),
      refund_attempts: payment.refund_attempts + 1,
      refund_last_attempt_at: now,
      refund_last_outcome: 'pending',
      refund_completes_at: new Date(now.getTime() + WALLET_REFUND_DELAY_MINUTES * 60_000),
      updated_at: now,
    })
    .where('id', '=', payment.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('refunds')
    .values({ payment_id: payment.id, merchant_id: payment.merchant_id, livemode: payment.livemode, amount: amount.toFixed(), currency: payment.currency, status: 'pending', from_balance: input.fromBalance, reason: input.reason ?? null, created_at: now })
    .execute();
  if (accepted.session_id) await trx.updateTable('checkout_sessions').set({ payment_status: 'pending_reversal' }).where('id', '=', accepted.session_id).execute();
  return accepted;
}

/** Finishes one wallet refund under way, once: refunded, the ledger and the invoice, `payment.refunded`. */
async function completeWalletRefund(trx: Transaction<Database>, clock: Clock, payment: PaymentRow): Promise<boolean> {
  if (payment.status !== 'pending_reversal' || !payment.refund_completes_at || payment.refund_completes_at > clock.now()) return false;
  const now = clock.now();
  const refunds = await trx.updateTable('refunds').set({ status: 'succeeded' }).where('payment_id', '=', payment.id).where('status', '=', 'pending').returning(['amount', 'from_balance']).execute();
  const amount = refunds.reduce((sum, r) => sum.plus(r.amount), new Decimal(0));
  const refunded = await trx
    .updateTable('payments')
    .set({ status: 'refunded', refund_last_outcome: 'completed', refund_completes_at: null, updated_at: now })
    .where('id', '=', payment.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  if (amount.greaterThan(0)) {
    await trx
      .insertInto('ledger_entries')
      .values(
        refunds.map((r) => ({
          merchant_id: payment.merchant_id,
          livemode: payment.livemode,
          payment_id: payment.id,
          type: 'refund' as const,
          account: r.from_balance ? ('available' as const) : ('pending' as const),
          amount: new Decimal(r.amount).negated().toFixed(),
          currency: payment.currency,
          created_at: now,
        })),
      )
      .execute();
  }
  if (refunded.invoice_id) await recordInvoiceRefund(trx, clock, refunded.invoice_id, amount.toFixed());
  if (refunded.session_id) await trx.updateTable('checkout_sessions').set({ payment_status: 'refunded' }).where('id', '=', refunded.session_id).execute();
  await writeEvent(trx, clock, {
    merchantId: refunded.merchant_id,
    livemode: refunded.livemode,
    type: 'payment.refunded',
    object: { ...paymentEventObject(refunded, undefined), refundAmount: decimalToAmount(amount.toFixed(), refunded.currency), refundedAmount: decimalToAmount(refunded.refunded_amount, refunded.currency) },
    sessionId: refunded.session_id,
    paymentId: refunded.id,
  });
  return true;
}

/** Wallet payments of a scope whose refund is under way. */
const reversingPayments = (db: Kysely<Database>, scope: DueScope) => db.selectFrom('payments').where('status', '=', 'pending_reversal').where(inScope(scope, 'payments'));

/** The wallet-refund job: refunds under way whose sandbox delay has passed complete, each once. */
export async function completeDueWalletRefunds(db: Kysely<Database>, clock: Clock, scope: DueScope = GLOBAL_SCOPE, batch = 500): Promise<number> {
  const scoped = scopedClock(clock, scope);
  const due = await reversingPayments(db, scope).select('id').where('refund_completes_at', '<=', scoped.now()).orderBy('refund_completes_at').limit(batch).execute();
  let completed = 0;
  for (const { id } of due) {
    const done = await db.transaction().execute(async (trx) => completeWalletRefund(trx, scoped, await trx.selectFrom('payments').selectAll().where('id', '=', id).forUpdate().executeTakeFirstOrThrow()));
    if (done) completed++;
  }
  return completed;
}

/** When the next wallet refund of the scope completes, after `after` (for the sandbox clock). */
export async function nextWalletRefund(db: Kysely<Database>, scope: DueScope, after: Date): Promise<Date | null> {
  const row = await reversingPayments(db, scope).select((eb) => eb.fn.min('refund_completes_at').as('at')).where('refund_completes_at', '>', after).executeTakeFirst();
  return row?.at ? new Date(row.at) : null;
}
