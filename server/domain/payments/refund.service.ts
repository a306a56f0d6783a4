import { Decimal } from 'decimal.js';
import type { Kysely, Transaction } from 'kysely';
import { sql } from 'kysely';
import type { components } from '../../../generated/checkout.js';
import type { Clock } from '../../shared/clock.js';
import type { Database } from '../../db/schema.js';
import { AppError, type ErrorData } from '../../shared/errors.js';
import { writeEvent } from '../events/event.service.js';
import { recordInvoiceRefund } from '../invoices/invoice.service.js';
import { amountToDecimal, decimalToAmount } from '../../shared/money.js';
import { type DueScope, GLOBAL_SCOPE, inScope, scopedClock } from '../sandbox/scope.js';
import type { Caller } from '../sessions/session.service.js';
import { paymentEventObject } from './payment.mapper.js';
import { lockCheckoutPayment, lockPayment } from './payment.repository.js';
import { findSession } from '../sessions/session.repository.js';
import type { PaymentRow } from '../../db/tables/payments.js';
import { acceptWalletRefund } from './wallet.service.js';

type Schemas = components['schemas'];
export type RefundResult = Schemas['RefundResult'];

/** Sandbox settlement delay: a captured payment settles to the available balance this long after capture. */
export const SETTLEMENT_DELAY_HOURS = 48;
/** A refund `reason` that makes the sandbox processor fail the refund (502, retry is safe). */
export const SANDBOX_REFUND_FAILURE_REASON = 'sandbox_refund_failed';

const PAID: PaymentRow['status'][] = ['succeeded', 'captured', 'partially_refunded'];

/** What is left to refund of a payment. */
const refundable = (p: PaymentRow) => new Decimal(p.captured_amount ?? p.amount).minus(p.refunded_amount);

/**
 * The `refund` object of a session: whether its payment can be refunded through the API right
 * now, by the same rule as the refund operations.
 */
export function refundState(payment: PaymentRow | undefined): Schemas['SessionRefundState'] {
  const lastAttempt =
    payment?.refund_last_outcome && payment.refund_last_attempt_at
      ? { outcome: payment.refund_last_outcome as Schemas['SessionRefundAttempt']['outcome'], attemptedAt: payment.refund_last_attempt_at.toISOString(), attempts: payment.refund_attempts }
      : null;
  const state = (refundable: boolean, reason: Schemas['RefundReason'], message: string, manualRefundRequired = false) => ({ refundable, reason, message, manualRefundRequired, lastAttempt });
  if (!payment) return state(false, 'no_payment', 'This session has no payment to refund.');
  if (payment.status === 'refunded') return state(false, 'already_refunded', 'The payment is refunded in full.');
  if (payment.status === 'pending_reversal') return state(false, 'refund_pending', 'A refund is under way; it completes on its own.');
  if (!PAID.includes(payment.status)) return state(false, 'not_paid', 'The payment is not paid (not captured, released or failed).');
  if (payment.refund_last_outcome === 'failed') return state(true, 'refund_failed', 'The last refund attempt failed; retrying is safe and never refunds twice.');
  return state(true, 'refundable', 'The payment can be refunded.');
}

function refundError(code: 'payment_not_refundable' | 'refund_failed' | 'partial_refund_not_supported', status: number, message: string, data: ErrorData): AppError {
  return new AppError(code, { status, message, data });
}

/** The caller's payment, locked. `sessionId` picks it through its session (the session route). */
async function lockRefundTarget(trx: Transaction<Database>, caller: Caller, target: { paymentId: number } | { sessionId: string }): Promise<PaymentRow> {
  if ('sessionId' in target) {
    const session = await findSession(trx, caller, target.sessionId);
    if (session.payment_id === null) {
      throw new AppError('nothing_to_refund', { data: { refundable: false, reason: 'no_payment', manualRefundRequired: false } });
    }
    return trx.selectFrom('payments').selectAll().where('id', '=', session.payment_id).forUpdate().executeTakeFirstOrThrow();
  }
  return lockCheckoutPayment(trx, caller, target.paymentId);
}

function result(p: PaymentRow, alreadyRefunded: boolean, refundAmount: string): RefundResult {
  const status = p.status === 'refunded' ? 'refunded' : p.status === 'pending_reversal' ? 'pending_reversal' : 'partially_refunded';
  return {
    sessionId: p.session_id,
    paymentId: p.id,
    paymentReferenceNumber: p.reference_number,
    status,
    amount: decimalToAmount(p.captured_amount ?? p.amount, p.currency),
    currency: p.currency,
    alreadyRefunded,
    refundAmount: decimalToAmount(refundAmount, p.currency),
    refundedAmount: decimalToAmount(p.refunded_amount, p.currency),
    amountRefundable: decimalToAmount(refundable(p).toFixed(), p.currency),
  };
}

/** The merchant's available balance in a currency and mode (settled money less what left it). */
export async function availableBalance(trx: Transaction<Database> | Kysely<Database>, merchantId: number, livemode: boolean, currency: string): Promise<Decimal> {
  const row = await trx
    .selectFrom('ledger_entries')
    .select(sql<string>`coalesce(sum(amount), 0)::text`.as('total'))
    .where('merchant_id', '=', merchantId)
    .where('livemode', '=', livemode)
    .where('currency', '=', currency)
    .where('account', '=', 'available')
    .executeTakeFirstOrThrow();
  return new Decimal(row.total);
}

/**
 * Refunds a payment, by the refund rules of the Checkout document: all that is left when
 * no amount is given; in part, repeatedly, up to the amount paid; a repeat once nothing is left
 * answers `alreadyRefunded` without reaching the processor; a settled payment is refunded from
 * the available balance and refused when it is short (the fee is not returned); each refund
 * writes `payment.refunded`. A wallet QR payment refunds in full only and finishes later
 * (`pending_reversal`, see wallet.service). The payment row is locked throughout, so concurrent refunds never
 * add up to more than was paid.
 */
export async function refund(db: Kysely<Database>, clock: Clock, caller: Caller, target: { paymentId: number } | { sessionId: string }, input: { amount?: number; reason?: string }): Promise<RefundResult> {
  const outcome = await db.transaction().execute(async (trx): Promise<RefundResult | AppError> => {
    const payment = await lockRefundTarget(trx, caller, target);
    const now = clock.now();
    if (payment.status === 'refunded') return result(payment, true, '0');
    if (payment.status === 'pending_reversal') {
      return refundError('payment_not_refundable', 409, 'A refund of this payment is under way; it completes on its own.', { refundable: false, reason: 'refund_pending', manualRefundRequired: false });
    }
    if (!PAID.includes(payment.status)) {
      return refundError('payment_not_refundable', 400, 'This payment is not paid yet (a hold must be captured first), so there is nothing to refund.', { refundable: false, reason: 'not_paid', manualRefundRequired: false });
    }
    const left = refundable(payment);
    const amount = input.amount === undefined ? left : new Decimal(amountToDecimal(input.amount, payment.currency));
    if (amount.lessThanOrEqualTo(0)) throw new AppError('validation_error', { param: 'amount', message: 'amount must be more than 0.' });
    if (amount.greaterThan(left)) {
      throw new AppError('validation_error', { param: 'amount', message: `amount (${amount.toFixed()}) is more than is left to refund (${left.toFixed()}).` });
    }
    // Rule 3: wallet QR payments refund in full only.
    if (payment.method_type === 'wallet' && amount.lessThan(left)) {
      return refundError('partial_refund_not_supported', 400, `A wallet QR payment is refunded in full only: omit amount, or send ${left.toFixed()}.`, {
        refundable: true,
        reason: 'refundable',
        manualRefundRequired: false,
      });
    }
    const attempt = { refund_attempts: payment.refund_attempts + 1, refund_last_attempt_at: now };

    if (input.reason === SANDBOX_REFUND_FAILURE_REASON && !caller.livemode) {
      await trx.updateTable('payments').set({ ...attempt, refund_last_outcome: 'failed', updated_at: now }).where('id', '=', payment.id).execute();
      return refundError('refund_failed', 502, 'The processor failed the refund, as asked by the sandbox reason. Retrying the same call is safe and never refunds twice.', {
        refundable: true,
        reason: 'refund_failed',
        manualRefundRequired: false,
        retryable: true,
      });
    }
    const settled = payment.settled_at !== null;
    if (settled) {
      const balance = await availableBalance(trx, payment.merchant_id, payment.livemode, payment.currency);
      if (balance.lessThan(amount)) {
        await trx.updateTable('payments').set({ ...attempt, refund_last_outcome: 'failed', updated_at: now }).where('id', '=', payment.id).execute();
        return refundError('refund_failed', 409, `The payment has settled and the available balance (${balance.toFixed(2)}) is short of the refund. Refund the customer directly or add funds.`, {
          refundable: false,
          reason: 'settled',
          manualRefundRequired: true,
          retryable: false,
        });
      }
    }
    // A wallet accepts the refund now and finishes it later (pending_reversal).
    if (payment.method_type === 'wallet') return result(await acceptWalletRefund(trx, clock, payment, amount, { reason: input.reason, fromBalance: settled }), false, amount.toFixed());
    const refunded = new Decimal(payment.refunded_amount).plus(amount);
    const full = refunded.equals(new Decimal(payment.captured_amount ?? payment.amount));
    const updated = await trx
      .updateTable('payments')
      .set({ ...attempt, refund_last_outcome: 'completed', refunded_amount: refunded.toFixed(), status: full ? 'refunded' : 'partially_refunded', updated_at: now })
      .where('id', '=', payment.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('refunds')
      .values({ payment_id: payment.id, merchant_id: payment.merchant_id, livemode: payment.livemode, amount: amount.toFixed(), currency: payment.currency, status: 'succeeded', from_balance: settled, reason: input.reason ?? null, created_at: now })
      .execute();
    await trx
      .insertInto('ledger_entries')
      .values({ merchant_id: payment.merchant_id, livemode: payment.livemode, payment_id: payment.id, type: 'refund', account: settled ? 'available' : 'pending', amount: amount.negated().toFixed(), currency: payment.currency, created_at: now })
      .execute();
    if (updated.invoice_id) {
      await recordInvoiceRefund(trx, clock, updated.invoice_id, amount.toFixed());
    }
    if (updated.session_id) await trx.updateTable('checkout_sessions').set({ payment_status: full ? 'refunded' : 'partially_refunded' }).where('id', '=', updated.session_id).execute();
    await writeEvent(trx, clock, {
      merchantId: updated.merchant_id,
      livemode: updated.livemode,
      type: 'payment.refunded',
      object: { ...paymentEventObject(updated, undefined), refundAmount: decimalToAmount(amount.toFixed(), updated.currency), refundedAmount: decimalToAmount(updated.refunded_amount, updated.currency) },
      sessionId: updated.session_id,
      paymentId: updated.id,
    });
    return result(updated, false, amount.toFixed());
  });
  if (outcome instanceof AppError) throw outcome;
  return outcome;
}

/** Settles one captured payment now: its net moves from the pending to the available balance. */
export async function settlePayment(db: Kysely<Database>, clock: Clock, caller: Caller, paymentId: number): Promise<Schemas['TestPaymentSettlement']> {
  return db.transaction().execute(async (trx) => {
    const payment = await lockPayment(trx, caller, paymentId);
    if (payment.settled_at) throw new AppError('invalid_state', { message: 'This payment has already settled.' });
    if (!PAID.includes(payment.status) && payment.status !== 'refunded') throw new AppError('invalid_state', { message: 'Only a paid (captured) payment can settle.' });
    return settle(trx, clock, payment);
  });
}

async function settle(trx: Transaction<Database>, clock: Clock, payment: PaymentRow): Promise<Schemas['TestPaymentSettlement']> {
  const now = clock.now();
  const net = await trx
    .selectFrom('ledger_entries')
    .select(sql<string>`coalesce(sum(amount), 0)::text`.as('total'))
    .where('payment_id', '=', payment.id)
    .where('account', '=', 'pending')
    .executeTakeFirstOrThrow();
  const entry = { merchant_id: payment.merchant_id, livemode: payment.livemode, payment_id: payment.id, type: 'settlement' as const, currency: payment.currency, created_at: now };
  await trx
    .insertInto('ledger_entries')
    .values([
      { ...entry, account: 'pending', amount: new Decimal(net.total).negated().toFixed() },
      { ...entry, account: 'available', amount: net.total },
    ])
    .execute();
  const settled = await trx.updateTable('payments').set({ settled_at: now, updated_at: now }).where('id', '=', payment.id).returningAll().executeTakeFirstOrThrow();
  const gross = new Decimal(settled.captured_amount ?? settled.amount);
  return {
    paymentId: settled.id,
    status: 'settled',
    settledAmount: decimalToAmount(gross.toFixed(), settled.currency),
    feeAmount: decimalToAmount(settled.fee, settled.currency),
    netAmount: decimalToAmount(net.total, settled.currency),
    currency: settled.currency,
    settledAt: now.toISOString(),
  };
}

/** Captured, unsettled payments of a scope: the ones the settlement job looks at. */
const unsettledPayments = (db: Kysely<Database>, scope: DueScope) => db.selectFrom('payments').where('settled_at', 'is', null).where('status', 'in', PAID).where(inScope(scope, 'payments'));
const SETTLEMENT_DELAY_MS = SETTLEMENT_DELAY_HOURS * 3600_000;

/** The settlement job: captured payments of the scope older than the sandbox delay settle. */
export async function settleDuePayments(db: Kysely<Database>, clock: Clock, scope: DueScope = GLOBAL_SCOPE, batch = 500): Promise<number> {
  const scoped = scopedClock(clock, scope);
  const cutoff = new Date(scoped.now().getTime() - SETTLEMENT_DELAY_MS);
  const due = await unsettledPayments(db, scope).select('id').where('captured_at', '<=', cutoff).orderBy('captured_at').limit(batch).execute();
  let settled = 0;
  for (const { id } of due) {
    await db.transaction().execute(async (trx) => {
      const payment = await trx.selectFrom('payments').selectAll().where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
      if (payment.settled_at) return;
      await settle(trx, scoped, payment);
      settled++;
    });
  }
  return settled;
}

/** When the next captured payment of the scope settles, after `after` (for the sandbox clock). */
export async function nextSettlement(db: Kysely<Database>, scope: DueScope, after: Date): Promise<Date | null> {
  const row = await unsettledPayments(db, scope)
    .select((eb) => eb.fn.min('captured_at').as('at'))
    .where('captured_at', '>', new Date(after.getTime() - SETTLEMENT_DELAY_MS))
    .executeTakeFirst();
  return row?.at ? new Date(new Date(row.at).getTime() + SETTLEMENT_DELAY_MS) : null;
}
