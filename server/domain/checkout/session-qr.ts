// Paying a session by wallet QR code: confirm shows a code that lives as long as the session; the
// payer's wallet pays it (the sandbox's qr-paid helper), or the payer withdraws it to pay another way.
import type { Kysely } from 'kysely';
import type { Trx } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { CheckoutSessionRow } from './session.tables.js';
import type { PaymentRow } from '../payments/payment.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { type Tenant, tenantOf } from '../../shared/tenant.js';
import { SANDBOX_WITHDRAW_QR_FAILED, SANDBOX_WITHDRAW_QR_KEY, WALLET_OPTIONS } from '../../rails/wallet-qr.js';
import { getInvoice } from '../invoices/invoice.service.js';
import { assertPayable } from '../invoices/invoice-paying.js';
import { getMerchant } from '../merchants/merchant.service.js';
import { findPayment } from '../payments/payment.repository.js';
import { endLiveQr, issueQrPayment, liveQrPayment } from '../payments/wallet-payment.js';
import { updateSession } from './session.repository.js';
import { lockSession } from './session.service.js';
import { awaitPayer, chargeSession, type SessionPayment } from './session-payment.js';

/** A session's live QR code: the session waiting for it, and its payment. */
export type QrIssued = SessionPayment;

/**
 * Confirm with a wallet option (`wallet:qr`): a payment waiting for the payer and its QR code, the
 * session `payment_pending`. Offered only when the merchant has an enabled wallet option, and never
 * to hold or subscription sessions. A repeat while the code is live answers the same code.
 */
export async function confirmWithWallet(trx: Trx, clock: Clock, session: CheckoutSessionRow, paymentMethodId: string): Promise<QrIssued> {
  const refuse = (message: string) => new AppError('parameter_invalid', { param: 'paymentMethodId', message });
  if (session.capture_method === 'manual')
    throw refuse('A hold session (captureMethod manual) cannot be paid by wallet: only cards can be held. Pay with a card.');
  if (session.payment_type === 'subscription') throw refuse('A subscription session cannot be paid by wallet: renewals need a card on file. Pay with a card.');
  const option = paymentMethodId.slice('wallet:'.length);
  const merchant = await getMerchant(trx, session.merchant_id);
  const wallet = merchant.payment_options.find((o) => o.enabled && o.method === 'GatewayWallet');
  if (!(WALLET_OPTIONS as readonly string[]).includes(option) || !wallet)
    throw refuse(`${paymentMethodId} is not a payment option of this session. See allowedPaymentMethods.`);
  const tenant = tenantOf(session);
  const live = await liveQrPayment(trx, tenant, session.id, { lock: true });
  if (live) return { session, payment: live };
  // An existing invoice voided since the session opened can no longer be paid through it.
  if (session.pays_invoice && session.invoice_id !== null) assertPayable(await getInvoice(trx, tenant, session.invoice_id));
  const payment = await issueQrPayment(trx, clock, session, wallet, merchant.name, session.expires_at);
  return { session: await awaitPayer(trx, session, payment, 'pending'), payment };
}

/** A card confirm while a QR code is live would let the payer pay twice: withdraw the code first. */
export async function refuseWhileQrLive(trx: Trx, session: CheckoutSessionRow): Promise<void> {
  if (session.status !== 'payment_pending') return;
  if (await liveQrPayment(trx, tenantOf(session), session.id, { lock: true })) {
    throw new AppError('invalid_state', {
      message: 'A wallet QR code of this session is still live and could be paid. Withdraw it (withdraw-qr) before paying another way.',
    });
  }
}

/** How a withdraw-qr call ended, and why. */
export interface QrWithdrawal {
  sessionId: string;
  outcome: 'withdrawn' | 'already_paid' | 'failed';
  /** The session's status after the call. */
  status: string;
  why: 'withdrawn' | 'none' | 'paid_by_qr' | 'paid' | 'failed';
}

/**
 * Withdraws the session's live QR code (withdraw-qr): `withdrawn` (the session is back to
 * `payment_pending`, or as it was when no code was live), `already_paid` (the session is
 * completed), or `failed` (nothing changed; the sandbox trigger). A cancelled or expired session
 * answers 400 `session_not_payable`.
 */
export async function withdrawQr(db: Kysely<Database>, clock: Clock, tenant: Tenant, sessionId: string): Promise<QrWithdrawal> {
  const outcome = await db.transaction().execute(async (trx): Promise<QrWithdrawal | AppError> => {
    const session = await lockSession(trx, clock, tenant, sessionId);
    const answer = (outcome: QrWithdrawal['outcome'], status: string, why: QrWithdrawal['why']): QrWithdrawal => ({
      sessionId: session.id,
      outcome,
      status,
      why,
    });
    if (session.status === 'cancelled' || session.status === 'expired') {
      return new AppError('session_not_payable', {
        message: 'This checkout session is cancelled or expired: there is no QR code to withdraw, and it cannot be paid.',
      });
    }
    if (session.status === 'completed') {
      const payment = session.payment_id === null ? undefined : await findPayment(trx, tenant, session.payment_id);
      return answer('already_paid', 'completed', payment?.method_type === 'wallet' ? 'paid_by_qr' : 'paid');
    }
    const live = await liveQrPayment(trx, tenant, session.id, { lock: true });
    if (!live) return answer('withdrawn', session.status, 'none');
    if (!tenant.livemode && session.metadata[SANDBOX_WITHDRAW_QR_KEY] === SANDBOX_WITHDRAW_QR_FAILED) return answer('failed', session.status, 'failed');
    await endLiveQr(trx, clock, tenant, session.id, 'withdrawn');
    const reopened = (await updateSession(trx, tenant, session.id, { status: 'payment_pending', payment_status: 'unpaid', payment_id: null }))!;
    return answer('withdrawn', reopened.status, 'withdrawn');
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
export async function payQr(
  db: Kysely<Database>,
  clock: Clock,
  tenant: Tenant,
  sessionId: string,
): Promise<{ session: CheckoutSessionRow; payment: PaymentRow }> {
  const outcome = await db.transaction().execute(async (trx): Promise<SessionPayment | AppError> => {
    const session = await lockSession(trx, clock, tenant, sessionId);
    const live = session.status === 'payment_pending' ? await liveQrPayment(trx, tenant, session.id, { lock: true }) : undefined;
    if (!live)
      return new AppError('invalid_state', {
        message: `Session ${session.id} has no live wallet QR code to pay (none issued, withdrawn, or the session is ${session.status}).`,
      });
    return chargeSession(trx, clock, session, null, live);
  });
  if (outcome instanceof AppError) throw outcome;
  return outcome;
}
