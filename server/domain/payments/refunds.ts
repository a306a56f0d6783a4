// Refunds, by the refund rules of the Checkout document: all that is left when no amount is given;
// in part, repeatedly, up to what was paid; a repeat once nothing is left answers `alreadyRefunded`
// without reaching the processor; a settled payment is refunded from the available balance and
// refused when it is short (the fee is not returned). Wallet payments refund in full only and
// finish later (`pending_reversal`, see wallet-payment.ts). Refunds follow the rail: an
// account-balance payment goes back to the wallet account that paid; a bank transfer cannot be
// refunded through the API (`method_not_supported`: the merchant refunds the payer directly).
import { Decimal } from 'decimal.js';
import type { Db, Trx } from '../../db/database.js';
import type { PaymentRow } from './payment.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError, type ErrorData, type RefundReason } from '../../shared/errors.js';
import { amountToDecimal } from '../../shared/money.js';
import { tenantOf } from '../../shared/tenant.js';
import { availableBalance, ensureAvailable, InsufficientBalanceError, post } from '../ledger/ledger.service.js';
import { insertRefund, updatePayment } from './payment.repository.js';
import { acceptWalletRefund } from './wallet-payment.js';

/** A refund `reason` that makes the sandbox processor fail the refund (502, retry is safe). */
export const SANDBOX_REFUND_FAILURE_REASON = 'sandbox_refund_failed';

const PAID: PaymentRow['status'][] = ['succeeded', 'captured', 'partially_refunded'];

/** Whether a payment has been paid (captured), so that it can be refunded or settled. */
export const isPaid = (payment: PaymentRow): boolean => PAID.includes(payment.status);

/** What is left to refund of a payment. */
export const refundableAmount = (p: PaymentRow): Decimal => new Decimal(p.captured_amount ?? p.amount).minus(p.refunded_amount).minus(p.charged_back_amount);

/** A dispute is open on the payment: its money is held until the dispute closes. */
export const underDispute = (p: PaymentRow): boolean => p.dispute_status === 'open' || p.dispute_status === 'under_review';

/** Whether a payment can be refunded through the API right now, and why (the refund operations' own rule). */
export interface Refundability {
  refundable: boolean;
  reason: RefundReason;
  manualRefundRequired: boolean;
}

/** The refund rule, for a session's `refund` state: the same answers the refund operations give. */
export function refundability(payment: PaymentRow | null | undefined): Refundability {
  const state = (refundable: boolean, reason: RefundReason): Refundability => ({ refundable, reason, manualRefundRequired: false });
  if (!payment) return state(false, 'no_payment');
  if (payment.status === 'refunded') return state(false, 'already_refunded');
  if (payment.status === 'pending_reversal') return state(false, 'refund_pending');
  if (!isPaid(payment)) return state(false, 'not_paid');
  if (payment.method_type === 'bank_transfer') return { refundable: false, reason: 'method_not_supported', manualRefundRequired: true };
  if (underDispute(payment)) return state(false, 'disputed');
  if (payment.refund_last_outcome === 'failed') return state(true, 'refund_failed');
  return state(true, 'refundable');
}

/**
 * The refund rule as the refund operation would apply it now (a refund of all that is left): a
 * settled payment is refunded from the available balance, so when that is short of it the payment
 * is not refundable (`settled`, manual) until money arrives.
 */
export async function refundabilityNow(db: Db, payment: PaymentRow | null | undefined): Promise<Refundability> {
  const rule = refundability(payment);
  if (!payment || !rule.refundable || payment.settled_at === null) return rule;
  const available = await availableBalance(db, tenantOf(payment), payment.currency);
  return available.lessThan(refundableAmount(payment)) ? { refundable: false, reason: 'settled', manualRefundRequired: true } : rule;
}

/** What a refund call came to. */
export interface RefundOutcome {
  payment: PaymentRow;
  alreadyRefunded: boolean;
  /** What this call refunded (0 when it was already refunded). */
  amount: string;
  /** Whether it finished now; a wallet refund is accepted and finishes later. */
  completed: boolean;
}

function refundError(
  code: 'payment_not_refundable' | 'refund_failed' | 'partial_refund_not_supported',
  status: number,
  message: string,
  data: ErrorData,
): AppError {
  return new AppError(code, { status, message, data });
}

/** Why a payment that is not yet fully refunded cannot be refunded now (a refund under way, not paid, disputed), or undefined. */
function refusalOf(payment: PaymentRow): AppError | undefined {
  if (payment.status === 'pending_reversal') {
    return refundError('payment_not_refundable', 409, 'A refund of this payment is under way; it completes on its own.', {
      refundable: false,
      reason: 'refund_pending',
      manualRefundRequired: false,
    });
  }
  if (!isPaid(payment)) {
    return refundError('payment_not_refundable', 400, 'This payment is not paid yet (a hold must be captured first), so there is nothing to refund.', {
      refundable: false,
      reason: 'not_paid',
      manualRefundRequired: false,
    });
  }
  if (payment.method_type === 'bank_transfer') {
    return refundError(
      'payment_not_refundable',
      400,
      'This payment was made by bank transfer and cannot be refunded through the API. Refund the customer directly.',
      { refundable: false, reason: 'method_not_supported', manualRefundRequired: true },
    );
  }
  if (underDispute(payment)) {
    return refundError(
      'payment_not_refundable',
      409,
      'A dispute is open on this payment: nothing can be refunded until it closes (a lost dispute already returns the disputed amount to the cardholder).',
      { refundable: false, reason: 'disputed', manualRefundRequired: false },
    );
  }
  return undefined;
}

/**
 * Refunds a locked payment. A refusal the payer's merchant must see while the attempt is recorded
 * (the sandbox failure, a short balance) is answered as an AppError value, not thrown, so the
 * caller commits the recorded attempt before it answers; rule breaks are thrown.
 */
export async function refundPayment(
  trx: Trx,
  clock: Clock,
  payment: PaymentRow,
  input: { amount?: number | string | undefined; reason?: string | undefined },
): Promise<RefundOutcome | AppError> {
  if (payment.status === 'refunded') return { payment, alreadyRefunded: true, amount: '0', completed: true };
  const refused = refusalOf(payment);
  if (refused) return refused;
  const amount = refundAmount(payment, input.amount);
  if (amount instanceof AppError) return amount;
  const now = clock.now();
  const attempt = { refund_attempts: payment.refund_attempts + 1, refund_last_attempt_at: now };
  const failAttempt = () => updatePayment(trx, tenantOf(payment), payment.id, { ...attempt, refund_last_outcome: 'failed', updated_at: now });
  if (input.reason === SANDBOX_REFUND_FAILURE_REASON && !payment.livemode) {
    await failAttempt();
    return refundError(
      'refund_failed',
      502,
      'The processor failed the refund, as asked by the sandbox reason. Retrying the same call is safe and never refunds twice.',
      {
        refundable: true,
        reason: 'refund_failed',
        manualRefundRequired: false,
        retryable: true,
      },
    );
  }
  const settled = payment.settled_at !== null;
  if (settled) {
    const short = await shortBalance(trx, payment, amount);
    if (short) {
      await failAttempt();
      return short;
    }
  }
  if (payment.method_type === 'wallet') {
    const accepted = await acceptWalletRefund(trx, clock, payment, amount, { reason: input.reason, fromBalance: settled });
    return { payment: accepted, alreadyRefunded: false, amount: amount.toFixed(), completed: false };
  }
  const refunded = await recordCardRefund(trx, now, payment, amount, { reason: input.reason, settled, attempt });
  return { payment: refunded, alreadyRefunded: false, amount: amount.toFixed(), completed: true };
}

/** The amount a refund asks for, checked against what is left (a wallet payment refunds in full only). */
function refundAmount(payment: PaymentRow, asked: number | string | undefined): Decimal | AppError {
  const left = refundableAmount(payment);
  const amount = asked === undefined ? left : new Decimal(amountToDecimal(asked, payment.currency));
  if (amount.lessThanOrEqualTo(0)) throw new AppError('validation_error', { param: 'amount', message: 'amount must be more than 0.' });
  if (amount.greaterThan(left))
    throw new AppError('validation_error', { param: 'amount', message: `amount (${amount.toFixed()}) is more than is left to refund (${left.toFixed()}).` });
  if (payment.method_type === 'wallet' && amount.lessThan(left)) {
    return refundError('partial_refund_not_supported', 400, `A wallet QR payment is refunded in full only: omit amount, or send ${left.toFixed()}.`, {
      refundable: true,
      reason: 'refundable',
      manualRefundRequired: false,
    });
  }
  return amount;
}

/** A settled payment is refunded from the available balance: the refusal when it is short, else undefined (the balance stays locked). */
async function shortBalance(trx: Trx, payment: PaymentRow, amount: Decimal): Promise<AppError | undefined> {
  try {
    await ensureAvailable(trx, tenantOf(payment), payment.currency, amount);
    return undefined;
  } catch (err) {
    if (!(err instanceof InsufficientBalanceError)) throw err;
    return refundError(
      'refund_failed',
      409,
      `The payment has settled and the available balance (${err.available.toFixed(2)}) is short of the refund. Refund the customer directly or add funds.`,
      {
        refundable: false,
        reason: 'settled',
        manualRefundRequired: true,
        retryable: false,
      },
    );
  }
}

/** A card refund that completes now: the payment's refunded amount, the refund, and the money back to the payer in the ledger. */
async function recordCardRefund(
  trx: Trx,
  now: Date,
  payment: PaymentRow,
  amount: Decimal,
  options: { reason: string | undefined; settled: boolean; attempt: { refund_attempts: number; refund_last_attempt_at: Date } },
): Promise<PaymentRow> {
  const refunded = new Decimal(payment.refunded_amount).plus(amount);
  const full = refunded.equals(new Decimal(payment.captured_amount ?? payment.amount));
  const tenant = tenantOf(payment);
  const updated = (await updatePayment(trx, tenant, payment.id, {
    ...options.attempt,
    refund_last_outcome: 'completed',
    refunded_amount: refunded.toFixed(),
    status: full ? 'refunded' : 'partially_refunded',
    updated_at: now,
  }))!;
  await insertRefund(trx, {
    payment_id: payment.id,
    merchant_id: payment.merchant_id,
    livemode: payment.livemode,
    amount: amount.toFixed(),
    currency: payment.currency,
    status: 'succeeded',
    from_balance: options.settled,
    reason: options.reason ?? null,
    created_at: now,
  });
  await post(trx, { tenant, paymentId: payment.id, currency: payment.currency, at: now }, [
    { type: 'refund', amount: amount.toFixed(), from: options.settled ? 'available' : 'pending' },
  ]);
  await returnToPayingAccount(trx, now, payment, amount);
  return updated;
}

/** A refund of an account-balance payment arrives back in the available balance of the wallet account that paid (its merchant's, in the same mode). */
async function returnToPayingAccount(trx: Trx, now: Date, payment: PaymentRow, amount: Decimal): Promise<void> {
  if (payment.method_type !== 'account_balance' || payment.source_merchant_id === null) return;
  const payer = { merchantId: payment.source_merchant_id, livemode: payment.livemode };
  await post(trx, { tenant: payer, paymentId: payment.id, currency: payment.currency, at: now }, [{ type: 'account_refund', amount: amount.toFixed() }]);
}

/** A refund attempt the processor or the balance refused, recorded on its own (the refund of an invoice rolled back the rest of its work). */
export async function recordFailedRefundAttempt(trx: Trx, clock: Clock, payment: PaymentRow): Promise<void> {
  const now = clock.now();
  await updatePayment(trx, tenantOf(payment), payment.id, {
    refund_attempts: payment.refund_attempts + 1,
    refund_last_attempt_at: now,
    refund_last_outcome: 'failed',
    updated_at: now,
  });
}
