// Card holds: an authorization is captured (all or part, once), released, or lapses at the end of
// its period. Each ends the hold in the ledger; a capture also posts the payment and its fee.
import { Decimal } from 'decimal.js';
import type { Db, Trx } from '../../db/database.js';
import type { PaymentRow } from './payment.tables.js';
import type { Clock } from '../../shared/clock.js';
import type { DueScope } from '../../shared/due-scope.js';
import { AppError } from '../../shared/errors.js';
import { amountToDecimal } from '../../shared/money.js';
import { tenantOf } from '../../shared/tenant.js';
import { post } from '../ledger/ledger.service.js';
import { type DuePayment, findDuePayments, nextDuePayment, updatePayment } from './payment.repository.js';
import { paymentEvent, sandboxFee } from './payment.service.js';

/** A capture or release `reason` that makes the sandbox processor fail (502, retry is safe). */
export const SANDBOX_HOLD_FAILURE_REASON = 'sandbox_hold_operation_failed';

/** A hold after a capture or a release, and whether it was already done before this call. */
export interface HoldOutcome {
  payment: PaymentRow;
  alreadyDone: boolean;
}

const notCapturable = (message: string) => new AppError('hold_not_capturable', { message });

/** The sandbox processor fails a capture or release when asked to (test mode): 502, retrying is safe. */
export function refuseSandboxHoldFailure(reason: string | undefined, livemode: boolean, operation: 'capture' | 'release'): void {
  if (reason === SANDBOX_HOLD_FAILURE_REASON && !livemode) {
    throw new AppError('hold_operation_failed', { message: `The sandbox processor failed the ${operation}, as asked. Retrying is safe.` });
  }
}

const authorizedOf = (p: PaymentRow) => p.authorized_amount ?? p.amount;

/**
 * Marks a lapsed authorization `expired` (released, nothing charged), once, with
 * `payment.authorization_expired`; answers the payment and whether it lapsed now. The caller holds
 * the payment's lock.
 */
export async function lapseIfDue(trx: Trx, clock: Clock, payment: PaymentRow): Promise<{ payment: PaymentRow; lapsed: boolean }> {
  if (payment.status !== 'authorized' || !payment.authorization_expires_at || payment.authorization_expires_at > clock.now()) return { payment, lapsed: false };
  const now = clock.now();
  const expired = (await updatePayment(trx, tenantOf(payment), payment.id, { status: 'expired', updated_at: now }))!;
  await post(trx, { tenant: tenantOf(expired), paymentId: expired.id, currency: expired.currency, at: now }, [
    { type: 'release', authorized: authorizedOf(payment) },
  ]);
  await paymentEvent(trx, clock, 'payment.authorization_expired', expired, null);
  return { payment: expired, lapsed: true };
}

/**
 * Captures all or part of an authorized hold, once: the hold ends, the captured amount and its fee
 * are posted, and `payment.captured` then `payment.succeeded` are written by the caller once the
 * invoice is paid (`captureEvents`). A repeat answers `alreadyDone`; a capture of another amount
 * (all, when `amountInput` is omitted) is a second capture and refused, unless `anyRepeat`. The
 * caller holds the lock.
 */
export async function captureAuthorized(
  trx: Trx,
  clock: Clock,
  payment: PaymentRow,
  amountInput: number | string | undefined,
  anyRepeat = false,
): Promise<HoldOutcome & { authorized: string; captured: string }> {
  if (payment.capture_method !== 'manual') throw notCapturable('This payment is not a card hold.');
  const authorized = new Decimal(authorizedOf(payment));
  const amount = amountInput === undefined ? authorized.toFixed() : amountToDecimal(amountInput, payment.currency);
  if (payment.status === 'captured' || payment.status === 'refunded' || payment.status === 'partially_refunded') {
    // A capture happens once: its repeat is alreadyDone, a capture of another amount is a second one.
    const captured = payment.captured_amount ?? '0';
    if (!anyRepeat && !new Decimal(amount).equals(captured))
      throw notCapturable(`This hold was already captured (${new Decimal(captured).toFixed()}); a capture happens once and the rest has lapsed.`);
    return { payment, alreadyDone: true, authorized: authorized.toFixed(), captured };
  }
  if (payment.status === 'expired') throw notCapturable('The authorization lapsed uncaptured and was released.');
  if (payment.status !== 'authorized') throw notCapturable(`This hold is ${payment.status}; only an open authorization can be captured.`);
  if (new Decimal(amount).greaterThan(authorized)) throw notCapturable(`The capture (${amount}) is more than was authorized (${authorized.toFixed()}).`);
  if (new Decimal(amount).lessThanOrEqualTo(0)) throw new AppError('validation_error', { param: 'amount', message: 'amount must be more than 0.' });
  const now = clock.now();
  const fee = sandboxFee(amount, payment.currency);
  const captured = (await updatePayment(trx, tenantOf(payment), payment.id, {
    status: 'captured',
    captured_amount: amount,
    captured_at: now,
    fee,
    updated_at: now,
  }))!;
  await post(trx, { tenant: tenantOf(captured), paymentId: captured.id, currency: captured.currency, at: now }, [
    { type: 'capture', authorized: authorized.toFixed() },
    { type: 'payment', amount },
    { type: 'fee', amount: fee },
  ]);
  return { payment: captured, alreadyDone: false, authorized: authorized.toFixed(), captured: amount };
}

/** The events of a capture: `payment.captured` then `payment.succeeded`. */
export async function captureEvents(db: Db, clock: Clock, captured: PaymentRow): Promise<void> {
  for (const type of ['payment.captured', 'payment.succeeded'] as const) await paymentEvent(db, clock, type, captured, null);
}

/** Releases an authorized hold: nothing is charged, the hold ends, `payment.released`. A repeat answers `alreadyDone`. The caller holds the lock. */
export async function releaseAuthorized(trx: Trx, clock: Clock, payment: PaymentRow): Promise<HoldOutcome> {
  if (payment.capture_method !== 'manual') throw notCapturable('This payment is not a card hold.');
  if (payment.status === 'released') return { payment, alreadyDone: true };
  if (payment.status !== 'authorized') throw notCapturable(`This hold is ${payment.status}; only an open authorization can be released.`);
  const now = clock.now();
  const released = (await updatePayment(trx, tenantOf(payment), payment.id, { status: 'released', updated_at: now }))!;
  await post(trx, { tenant: tenantOf(released), paymentId: released.id, currency: released.currency, at: now }, [
    { type: 'release', authorized: authorizedOf(payment) },
  ]);
  await paymentEvent(trx, clock, 'payment.released', released, null);
  return { payment: released, alreadyDone: false };
}

/** Open authorizations of a scope past their period by `now`, earliest first. */
export const findLapsedHolds = (db: Db, scope: DueScope, now: Date, limit: number): Promise<DuePayment[]> =>
  findDuePayments(db, scope, { statuses: ['authorized'], column: 'authorization_expires_at', until: now }, limit);

/** When the scope's next open authorization lapses, after `after`. */
export const nextHoldLapse = (db: Db, scope: DueScope, after: Date): Promise<Date | null> =>
  nextDuePayment(db, scope, { statuses: ['authorized'], column: 'authorization_expires_at', after });
