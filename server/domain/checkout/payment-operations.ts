// What happens to a session's payment after it is made: refunds, captures and releases of holds,
// settlement, and the work that falls due with time (holds lapse, wallet refunds finish, captured
// payments settle). Each composes the payment (domain/payments), its invoice (domain/invoices) and
// the session's payment status.
import { captureReceipt, refundReceipt } from './receipts.js';
import type { Kysely } from 'kysely';
import type { Trx } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { PaymentRow } from '../payments/payment.tables.js';
import type { Clock } from '../../shared/clock.js';
import { type DueScope, GLOBAL_SCOPE, scopedClock } from '../../shared/due-scope.js';
import { AppError } from '../../shared/errors.js';
import { type Tenant, tenantOf } from '../../shared/tenant.js';
import { cancelSessionRaisedInvoice, payInvoiceOnCapture, recordInvoiceRefund } from '../invoices/invoice-paying.js';
import {
  captureAuthorized,
  captureEvents,
  findLapsedHolds,
  type HoldOutcome,
  lapseIfDue,
  refuseSandboxHoldFailure,
  releaseAuthorized,
} from '../payments/holds.js';
import type { DuePayment } from '../payments/payment.repository.js';
import { getPayment, paymentEvent } from '../payments/payment.service.js';
import { type RefundOutcome, refundPayment } from '../payments/refunds.js';
import { findDueSettlements, type Settlement, settleIfUnsettled, settleNow } from '../payments/settlement.js';
import { completeWalletRefund, findDueWalletRefunds } from '../payments/wallet-payment.js';
import { updateSession } from './session.repository.js';
import { findSession } from './session.service.js';

type PaymentStatusOfSession = 'paid' | 'refunded' | 'partially_refunded' | 'pending_reversal';

/** The session a payment was made through now shows this payment status. */
async function setSessionPaymentStatus(trx: Trx, payment: PaymentRow, status: PaymentStatusOfSession): Promise<void> {
  if (payment.session_id) await updateSession(trx, tenantOf(payment), payment.session_id, { payment_status: status });
}

/** The tenant's payment to refund, locked: by its id (one made through a checkout session), or as the payment of a session. */
async function lockRefundTarget(trx: Trx, tenant: Tenant, target: { paymentId: number } | { sessionId: string }): Promise<PaymentRow> {
  if ('paymentId' in target) return getPayment(trx, tenant, target.paymentId, { lock: true, fromSession: true });
  const session = await findSession(trx, tenant, target.sessionId);
  if (session.payment_id === null) throw new AppError('nothing_to_refund', { data: { refundable: false, reason: 'no_payment', manualRefundRequired: false } });
  return getPayment(trx, tenant, session.payment_id, { lock: true });
}

/**
 * Refunds a payment (see payments/refunds.ts for the rules). The payment row is locked throughout,
 * so concurrent refunds never add up to more than was paid. A completed refund is recorded on the
 * invoice (`invoice.refunded`) and the session, then `payment.refunded`; a wallet refund is
 * accepted (`pending_reversal`) and finishes later.
 */
export async function refund(
  db: Kysely<Database>,
  clock: Clock,
  tenant: Tenant,
  target: { paymentId: number } | { sessionId: string },
  input: { amount?: number | string | undefined; reason?: string | undefined },
): Promise<RefundOutcome> {
  const outcome = await db.transaction().execute(async (trx): Promise<RefundOutcome | AppError> => {
    const result = await refundPayment(trx, clock, await lockRefundTarget(trx, tenant, target), input);
    if (result instanceof AppError || result.alreadyRefunded) return result;
    await afterRefund(trx, clock, result);
    return result;
  });
  if (outcome instanceof AppError) throw outcome;
  return outcome;
}

/** What follows a refund that went through: recorded as completed, or the session shows a wallet refund under way. */
export async function afterRefund(trx: Trx, clock: Clock, result: RefundOutcome): Promise<void> {
  if (result.completed) await refunded(trx, clock, result.payment, result.amount);
  else await setSessionPaymentStatus(trx, result.payment, 'pending_reversal');
}

/** A refund that completed: on the invoice (`invoice.refunded`), on the session, then `payment.refunded`. */
async function refunded(trx: Trx, clock: Clock, payment: PaymentRow, amount: string): Promise<void> {
  if (payment.invoice_id) await recordInvoiceRefund(trx, clock, tenantOf(payment), payment.invoice_id, amount);
  await setSessionPaymentStatus(trx, payment, payment.status === 'refunded' ? 'refunded' : 'partially_refunded');
  await paymentEvent(trx, clock, 'payment.refunded', payment, null, { refundAmount: amount });
  await refundReceipt(trx, clock, payment, amount);
}

/** The tenant's hold, locked, with a lapse applied first. */
async function lockHold(trx: Trx, clock: Clock, tenant: Tenant, paymentId: number): Promise<PaymentRow> {
  return (await lapseIfDue(trx, clock, await getPayment(trx, tenant, paymentId, { lock: true, fromSession: true }))).payment;
}

/**
 * Captures all or part of an authorized hold, once: the session's invoice paid (lowered to the
 * captured amount, the rest shown as discount), the payment and its fee in the ledger, the session
 * paid; `payment.captured` then `payment.succeeded`. The uncaptured remainder lapses. A repeat
 * answers `alreadyDone`; a capture of another amount is refused, unless `anyRepeat` (the Commerce
 * interface answers any capture of a captured payment as `alreadyDone`).
 */
export async function captureHold(
  db: Kysely<Database>,
  clock: Clock,
  tenant: Tenant,
  paymentId: number,
  input: { amount?: number | string | undefined; reason?: string | undefined; anyRepeat?: boolean },
): Promise<HoldOutcome> {
  refuseSandboxHoldFailure(input.reason, tenant.livemode, 'capture');
  return db.transaction().execute(async (trx) => {
    const capture = await captureAuthorized(trx, clock, await lockHold(trx, clock, tenant, paymentId), input.amount, input.anyRepeat);
    if (capture.alreadyDone) return capture;
    const captured = capture.payment;
    if (captured.invoice_id) await payInvoiceOnCapture(trx, clock, tenant, captured.invoice_id, capture.authorized, capture.captured);
    await setSessionPaymentStatus(trx, captured, 'paid');
    await captureEvents(trx, clock, captured);
    await captureReceipt(trx, clock, captured);
    return { payment: captured, alreadyDone: false };
  });
}

/** Releases an authorized hold: nothing is charged, the session's invoice is cancelled, `payment.released`. */
export async function releaseHold(
  db: Kysely<Database>,
  clock: Clock,
  tenant: Tenant,
  paymentId: number,
  input: { reason?: string | undefined } = {},
): Promise<HoldOutcome> {
  refuseSandboxHoldFailure(input.reason, tenant.livemode, 'release');
  return db.transaction().execute(async (trx) => {
    const released = await releaseAuthorized(trx, clock, await lockHold(trx, clock, tenant, paymentId));
    if (!released.alreadyDone && released.payment.invoice_id) await cancelSessionRaisedInvoice(trx, tenant, released.payment.invoice_id);
    return released;
  });
}

/** Settles one of the tenant's captured payments now (the settle test helper). */
export async function settlePayment(db: Kysely<Database>, clock: Clock, tenant: Tenant, paymentId: number): Promise<Settlement> {
  return db.transaction().execute((trx) => settleNow(trx, clock, tenant, paymentId));
}

/** Runs `step` on each due payment in a transaction of its own; answers how many it handled. */
async function eachDue(db: Kysely<Database>, due: DuePayment[], step: (trx: Trx, payment: PaymentRow) => Promise<boolean>): Promise<number> {
  let handled = 0;
  for (const item of due) {
    if (await db.transaction().execute(async (trx) => step(trx, await getPayment(trx, tenantOf(item), item.id, { lock: true })))) handled++;
  }
  return handled;
}

/** The hold-lapse job: authorizations of the scope past their period become expired, each with one event, and their sessions' invoices are cancelled. */
export async function lapseDueHolds(db: Kysely<Database>, clock: Clock, scope: DueScope = GLOBAL_SCOPE, batch = 500): Promise<number> {
  const scoped = scopedClock(clock, scope);
  return eachDue(db, await findLapsedHolds(db, scope, scoped.now(), batch), async (trx, payment) => {
    const { payment: expired, lapsed } = await lapseIfDue(trx, scoped, payment);
    if (lapsed && expired.invoice_id) await cancelSessionRaisedInvoice(trx, tenantOf(expired), expired.invoice_id);
    return lapsed;
  });
}

/** The wallet-refund job: refunds under way whose sandbox delay has passed complete, each once: the ledger, the invoice, the session, `payment.refunded`. */
export async function completeDueWalletRefunds(db: Kysely<Database>, clock: Clock, scope: DueScope = GLOBAL_SCOPE, batch = 500): Promise<number> {
  const scoped = scopedClock(clock, scope);
  return eachDue(db, await findDueWalletRefunds(db, scope, scoped.now(), batch), async (trx, payment) => {
    const done = await completeWalletRefund(trx, scoped, payment);
    if (done) await refunded(trx, scoped, done.payment, done.amount.toFixed());
    return done !== undefined;
  });
}

/** The settlement job: captured payments of the scope older than the sandbox delay settle. */
export async function settleDuePayments(db: Kysely<Database>, clock: Clock, scope: DueScope = GLOBAL_SCOPE, batch = 500): Promise<number> {
  const scoped = scopedClock(clock, scope);
  let settled = 0;
  for (const due of await findDueSettlements(db, scope, scoped.now(), batch)) {
    if (await db.transaction().execute((trx) => settleIfUnsettled(trx, scoped, due))) settled++;
  }
  return settled;
}
