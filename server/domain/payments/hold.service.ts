import { Decimal } from 'decimal.js';
import type { Kysely, Transaction } from 'kysely';
import type { components } from '../../../generated/checkout.js';
import type { Clock } from '../../shared/clock.js';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../shared/errors.js';
import { writeEvent } from '../events/event.service.js';
import { cancelSessionRaisedInvoice, payInvoiceOnCapture } from '../invoices/invoice.service.js';
import { amountToDecimal, decimalToAmount } from '../../shared/money.js';
import type { Caller } from '../sessions/session.service.js';
import { type DueScope, GLOBAL_SCOPE, inScope, scopedClock } from '../sandbox/scope.js';
import { paymentEventObject } from './payment.mapper.js';
import { lockCheckoutPayment } from './payment.repository.js';
import { sandboxFee } from './payment.service.js';
import type { PaymentRow } from '../../db/tables/payments.js';

/** A capture or release `reason` that makes the sandbox processor fail (502, retry is safe). */
export const SANDBOX_HOLD_FAILURE_REASON = 'sandbox_hold_operation_failed';

export type HoldResult = components['schemas']['HoldResult'];

const notCapturable = (message: string) => new AppError('hold_not_capturable', { message });

export function holdResult(p: PaymentRow, alreadyDone: boolean): HoldResult {
  const status = p.status === 'authorized' || p.status === 'released' || p.status === 'expired' ? p.status : 'captured';
  return {
    paymentId: p.id,
    referenceNumber: p.reference_number,
    status,
    authorizedAmount: decimalToAmount(p.authorized_amount ?? p.amount, p.currency),
    capturedAmount: decimalToAmount(p.captured_amount ?? '0', p.currency),
    currency: p.currency,
    authorizationExpiresAt: status === 'authorized' && p.authorization_expires_at ? p.authorization_expires_at.toISOString() : null,
    capturedAt: p.captured_at ? p.captured_at.toISOString() : null,
    alreadyDone,
  };
}


/** Marks a lapsed authorization expired (released, nothing charged), once. */
async function lapseIfDue(trx: Transaction<Database>, clock: Clock, payment: PaymentRow): Promise<PaymentRow> {
  if (payment.status !== 'authorized' || !payment.authorization_expires_at || payment.authorization_expires_at > clock.now()) return payment;
  const expired = await trx.updateTable('payments').set({ status: 'expired', updated_at: clock.now() }).where('id', '=', payment.id).returningAll().executeTakeFirstOrThrow();
  if (expired.invoice_id) await cancelSessionRaisedInvoice(trx, expired.invoice_id);
  await writeEvent(trx, clock, { merchantId: expired.merchant_id, livemode: expired.livemode, type: 'payment.authorization_expired', object: paymentEventObject(expired, undefined), sessionId: expired.session_id, paymentId: expired.id });
  return expired;
}

/**
 * Captures all or part of an authorized hold, once: `payment.captured` then `payment.succeeded`,
 * the session's invoice paid (lowered to the captured amount, the rest shown as discount), the
 * payment and its fee in the ledger. The uncaptured remainder lapses. A repeat answers
 * `alreadyDone`.
 */
export async function captureHold(db: Kysely<Database>, clock: Clock, caller: Caller, paymentId: number, input: { amount?: number; reason?: string }): Promise<HoldResult> {
  if (input.reason === SANDBOX_HOLD_FAILURE_REASON && !caller.livemode) {
    throw new AppError('hold_operation_failed', { message: 'The sandbox processor failed the capture, as asked. Retrying is safe.' });
  }
  return db.transaction().execute(async (trx) => {
    const payment = await lapseIfDue(trx, clock, await lockCheckoutPayment(trx, caller, paymentId));
    if (payment.capture_method !== 'manual') throw notCapturable('This payment is not a card hold.');
    if (payment.status === 'captured' || payment.status === 'refunded' || payment.status === 'partially_refunded') return holdResult(payment, true);
    if (payment.status === 'expired') throw notCapturable('The authorization lapsed uncaptured and was released.');
    if (payment.status !== 'authorized') throw notCapturable(`This hold is ${payment.status}; only an open authorization can be captured.`);
    const authorized = new Decimal(payment.authorized_amount ?? payment.amount);
    const amount = input.amount === undefined ? authorized.toFixed() : amountToDecimal(input.amount, payment.currency);
    if (new Decimal(amount).greaterThan(authorized)) throw notCapturable(`The capture (${amount}) is more than was authorized (${authorized.toFixed()}).`);
    if (new Decimal(amount).lessThanOrEqualTo(0)) throw new AppError('validation_error', { param: 'amount', message: 'amount must be more than 0.' });
    const now = clock.now();
    const fee = sandboxFee(amount, payment.currency);
    const captured = await trx
      .updateTable('payments')
      .set({ status: 'captured', captured_amount: amount, captured_at: now, fee, updated_at: now })
      .where('id', '=', payment.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (captured.invoice_id) await payInvoiceOnCapture(trx, clock, captured.invoice_id, authorized.toFixed(), amount);
    await trx
      .insertInto('ledger_entries')
      .values([
        { merchant_id: captured.merchant_id, livemode: captured.livemode, payment_id: captured.id, type: 'payment', amount, currency: captured.currency, created_at: now },
        { merchant_id: captured.merchant_id, livemode: captured.livemode, payment_id: captured.id, type: 'fee', amount: new Decimal(fee).negated().toFixed(), currency: captured.currency, created_at: now },
      ])
      .execute();
    if (captured.session_id) await trx.updateTable('checkout_sessions').set({ payment_status: 'paid' }).where('id', '=', captured.session_id).execute();
    for (const type of ['payment.captured', 'payment.succeeded']) {
      await writeEvent(trx, clock, { merchantId: captured.merchant_id, livemode: captured.livemode, type, object: paymentEventObject(captured, undefined), sessionId: captured.session_id, paymentId: captured.id });
    }
    return holdResult(captured, false);
  });
}

/** Releases an authorized hold: nothing is charged, the session's invoice is cancelled, `payment.released`. */
export async function releaseHold(db: Kysely<Database>, clock: Clock, caller: Caller, paymentId: number, input: { reason?: string } = {}): Promise<HoldResult> {
  if (input.reason === SANDBOX_HOLD_FAILURE_REASON && !caller.livemode) {
    throw new AppError('hold_operation_failed', { message: 'The sandbox processor failed the release, as asked. Retrying is safe.' });
  }
  return db.transaction().execute(async (trx) => {
    const payment = await lapseIfDue(trx, clock, await lockCheckoutPayment(trx, caller, paymentId));
    if (payment.capture_method !== 'manual') throw notCapturable('This payment is not a card hold.');
    if (payment.status === 'released') return holdResult(payment, true);
    if (payment.status !== 'authorized') throw notCapturable(`This hold is ${payment.status}; only an open authorization can be released.`);
    const released = await trx.updateTable('payments').set({ status: 'released', updated_at: clock.now() }).where('id', '=', payment.id).returningAll().executeTakeFirstOrThrow();
    if (released.invoice_id) await cancelSessionRaisedInvoice(trx, released.invoice_id);
    await writeEvent(trx, clock, { merchantId: released.merchant_id, livemode: released.livemode, type: 'payment.released', object: paymentEventObject(released, undefined), sessionId: released.session_id, paymentId: released.id });
    return holdResult(released, false);
  });
}

/** Open authorizations of a scope: the ones the hold-lapse job looks at. */
const openHolds = (db: Kysely<Database>, scope: DueScope) => db.selectFrom('payments').where('status', '=', 'authorized').where(inScope(scope, 'payments'));

/** The hold-lapse job: authorizations of the scope past their period become expired, each with one event. */
export async function lapseDueHolds(db: Kysely<Database>, clock: Clock, scope: DueScope = GLOBAL_SCOPE, batch = 500): Promise<number> {
  const scoped = scopedClock(clock, scope);
  const due = await openHolds(db, scope).select('id').where('authorization_expires_at', '<=', scoped.now()).orderBy('authorization_expires_at').limit(batch).execute();
  let lapsed = 0;
  for (const { id } of due) {
    await db.transaction().execute(async (trx) => {
      const payment = await trx.selectFrom('payments').selectAll().where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
      if ((await lapseIfDue(trx, scoped, payment)).status === 'expired' && payment.status === 'authorized') lapsed++;
    });
  }
  return lapsed;
}

/** When the next open authorization of the scope lapses, after `after` (for the sandbox clock). */
export async function nextHoldLapse(db: Kysely<Database>, scope: DueScope, after: Date): Promise<Date | null> {
  const row = await openHolds(db, scope).select((eb) => eb.fn.min('authorization_expires_at').as('at')).where('authorization_expires_at', '>', after).executeTakeFirst();
  return row?.at ? new Date(row.at) : null;
}
