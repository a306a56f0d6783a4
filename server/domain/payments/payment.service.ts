import { Decimal } from 'decimal.js';
import type { Insertable, Kysely, Transaction } from 'kysely';
import type { components } from '../../../generated/checkout.js';
import type { Clock } from '../../shared/clock.js';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../shared/errors.js';
import { type CardInput, type TokenizedCard, tokenize } from '../../rails/cards.js';
import { writeEvent } from '../events/event.service.js';
import { randomToken } from '../../shared/crypto.js';
import { invoiceForSessionPayment, recordInvoicePaymentFailure } from '../invoices/invoice.service.js';
import { newReference } from '../../shared/ids.js';
import { minorUnits } from '../../shared/money.js';
import { findSession } from '../sessions/session.repository.js';
import { getSession, type Caller } from '../sessions/session.service.js';
import { sessionEventObject } from '../sessions/session.mapper.js';
import type { CheckoutSessionRow } from '../../db/tables/checkout-sessions.js';
import { startPaidSubscription } from '../subscriptions/subscription-session.js';
import { keepSessionCard } from './cards-on-file.js';
import { resolveConfirmMethod } from './confirm-method.js';
import { replaceOpenChallenge, startChallenge } from './three-d-secure.service.js';
import { confirmWithWallet, refuseWhileQrLive } from './wallet.service.js';
import { paymentEventObject } from './payment.mapper.js';
import type { PaymentMethodRow, PaymentRow, PaymentsTable } from '../../db/tables/payments.js';

type Schemas = components['schemas'];

/** Hold duration unless the payment option sets its own. */
export const DEFAULT_HOLD_DAYS = 7;

/** The sandbox acquirer's fee: 2.9% plus 30 minor units, rounded half-up to the currency's digits. */
export function sandboxFee(amount: string, currency: string): string {
  const units = minorUnits(currency);
  return new Decimal(amount).times('0.029').plus(new Decimal(30).dividedBy(new Decimal(10).pow(units))).toDecimalPlaces(units, Decimal.ROUND_HALF_UP).toFixed(units);
}

/** Tokenizes a card for one session. The number and the CVC go no further than this call. */
export async function tokenizeCard(
  db: Kysely<Database>,
  clock: Clock,
  caller: Caller,
  sessionId: string,
  input: CardInput & { billingDetails?: { name?: string; email?: string } },
): Promise<PaymentMethodRow> {
  const session = await getSession(db, clock, caller, sessionId);
  if (session.status === 'cancelled' || session.status === 'expired') throw new AppError('session_not_payable');
  const card = tokenize(input, caller.merchantId, clock.now());
  return insertSessionCard(db, session, card, clock.now(), { customerId: session.client_id, billingName: input.billingDetails?.name, billingEmail: input.billingDetails?.email });
}

/** Stores what may be kept of a card (brand, last 4, expiry, fingerprint) as a payment method of one session. */
export async function insertSessionCard(
  db: Kysely<Database> | Transaction<Database>,
  session: CheckoutSessionRow,
  card: TokenizedCard,
  now: Date,
  extra: { customerId?: number | null; billingName?: string | undefined; billingEmail?: string | undefined } = {},
): Promise<PaymentMethodRow> {
  return db
    .insertInto('payment_methods')
    .values({
      id: `pm_${randomToken(24)}`,
      merchant_id: session.merchant_id,
      livemode: session.livemode,
      session_id: session.id,
      customer_id: extra.customerId ?? null,
      brand: card.brand,
      last4: card.last4,
      expiry_month: card.expiryMonth,
      expiry_year: card.expiryYear,
      fingerprint: card.fingerprint,
      sandbox_outcome: card.outcome,
      billing_name: extra.billingName ?? null,
      billing_email: extra.billingEmail ?? null,
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** What the payer must do next: a 3-D Secure redirect or a wallet QR code. */
export type NextAction = Schemas['CheckoutSessionRedirectAction'] | Schemas['CheckoutSessionQrAction'];

/** A confirmed session: paid, authorized, or waiting for the payer (`nextAction`). */
export interface Confirmed {
  session: CheckoutSessionRow;
  payment: PaymentRow;
  nextAction: NextAction | null;
}

type ConfirmOutcome = Confirmed | { declined: AppError };

/** The columns every payment of a session starts with. */
export function paymentBase(session: CheckoutSessionRow, methodId: string | null, now: Date) {
  return {
    reference_number: newReference('PAY'),
    merchant_id: session.merchant_id,
    livemode: session.livemode,
    session_id: session.id,
    payment_method_id: methodId,
    capture_method: session.capture_method,
    amount: session.amount,
    currency: session.currency,
    metadata: JSON.stringify(session.metadata),
    // Nothing has moved yet: callers set what their payment changes.
    invoice_id: null,
    fee: '0',
    authorized_amount: null,
    captured_amount: null,
    refunded_amount: '0',
    failure_code: null,
    failure_message: null,
    created_at: now,
    updated_at: now,
  };
}

/**
 * Confirms a session. The session row is locked for the whole confirmation, so two confirms
 * racing on one session make exactly one payment (a unique index stands behind that too). A paid
 * one-time session gets one payment and one paid invoice that records the payer; a hold session
 * gets an authorization and nothing is paid until capture.
 */
export async function confirmSession(
  db: Kysely<Database>,
  clock: Clock,
  caller: Caller,
  sessionId: string,
  input: { paymentMethodId: string; returnUrl?: string },
  options: { publicBaseUrl: string },
): Promise<Confirmed> {
  const { paymentMethodId } = input;
  if (input.returnUrl !== undefined && !/^https?:$/.test(safeProtocol(input.returnUrl))) {
    throw new AppError('parameter_invalid', { param: 'returnUrl', message: 'returnUrl must be an absolute http or https URL.' });
  }
  const outcome = await db.transaction().execute(async (trx): Promise<ConfirmOutcome> => {
    // A confirm while a 3-D Secure challenge is open replaces it: the waiting payment fails and
    // its page can no longer be answered, so the session never has two live payments.
    const session = await replaceOpenChallenge(trx, clock, await lockPayableSession(trx, clock, caller, sessionId));
    if (paymentMethodId.startsWith('wallet:')) return confirmWithWallet(trx, clock, session, paymentMethodId, options.publicBaseUrl);
    await refuseWhileQrLive(trx, session);
    const method = await resolveConfirmMethod(trx, clock, caller, session, paymentMethodId);
    if (method.sandbox_outcome === 'insufficient_funds' || method.sandbox_outcome === 'processing_error') {
      return { declined: await failSessionPayment(trx, clock, session, method) };
    }
    if (method.sandbox_outcome === 'requires_3ds') return startChallenge(trx, clock, session, method, { returnUrl: input.returnUrl, publicBaseUrl: options.publicBaseUrl });
    if (session.capture_method === 'manual') return { ...(await authorizeSessionPayment(trx, clock, session, method)), nextAction: null };
    return { ...(await chargeSessionPayment(trx, clock, session, method)), nextAction: null };
  });
  if ('declined' in outcome) throw outcome.declined;
  return outcome;
}

function safeProtocol(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    return '';
  }
}

/** A session whose payment now waits for the payer (3-D Secure, a wallet QR code): `payment_pending`, pointing at that payment. */
export async function awaitPayer(trx: Transaction<Database>, session: CheckoutSessionRow, payment: PaymentRow, paymentStatus: 'unpaid' | 'pending'): Promise<CheckoutSessionRow> {
  return trx.updateTable('checkout_sessions').set({ status: 'payment_pending', payment_status: paymentStatus, payment_id: payment.id }).where('id', '=', session.id).returningAll().executeTakeFirstOrThrow();
}

/** Records a declined or failed card payment (`payment.failed`, and `invoice.payment_failed` for a session paying an invoice); the session stays payable. Answers the error to give the payer. */
export async function failSessionPayment(trx: Transaction<Database>, clock: Clock, session: CheckoutSessionRow, method: PaymentMethodRow): Promise<AppError> {
  const declined = method.sandbox_outcome === 'insufficient_funds';
  const payment = await trx
    .insertInto('payments')
    .values({
      ...paymentBase(session, method.id, clock.now()),
      status: 'failed',
      failure_code: declined ? 'insufficient_funds' : 'processing_error',
      failure_message: declined ? 'The card was declined: insufficient funds.' : 'The processor could not complete the payment.',
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await writeEvent(trx, clock, { merchantId: payment.merchant_id, livemode: payment.livemode, type: 'payment.failed', object: paymentEventObject(payment, method), sessionId: session.id, paymentId: payment.id });
  await recordInvoicePaymentFailure(trx, clock, session);
  return declined
    ? new AppError('card_declined', { param: 'paymentMethodId', message: 'The card was declined: insufficient funds. The session can still be paid with another card.' })
    : new AppError('processing_error', { message: 'The processor could not complete the payment. Retrying is safe; the session can still be paid.' });
}

/**
 * Authorizes a hold session's card for the option's hold period (7 days by default): the
 * session completes with payment status authorized, its invoice is raised pending (paid at
 * capture, cancelled at release or lapse); `payment.authorized` then `checkout.session.completed`.
 */
export async function authorizeSessionPayment(
  trx: Transaction<Database>,
  clock: Clock,
  session: CheckoutSessionRow,
  method: PaymentMethodRow,
  waiting?: PaymentRow,
): Promise<{ session: CheckoutSessionRow; payment: PaymentRow }> {
  const now = clock.now();
  const merchant = await trx.selectFrom('merchants').select('payment_options').where('id', '=', session.merchant_id).executeTakeFirstOrThrow();
  const holdDays = merchant.payment_options.find((o) => o.canHold && o.enabled && o.name.toLowerCase() === method.brand)?.holdDays ?? DEFAULT_HOLD_DAYS;
  const invoice = await invoiceForSessionPayment(trx, clock, session, 'pending');
  const payment = await savePayment(trx, waiting, {
    ...paymentBase(session, method.id, now),
    invoice_id: invoice.id,
    status: 'authorized',
    authorized_amount: session.amount,
    authorization_expires_at: new Date(now.getTime() + holdDays * 86_400_000),
  });
  await keepSessionCard(trx, clock, session, method);
  const completed = await completeSession(trx, clock, session, payment, 'authorized', invoice.id);
  await writeEvent(trx, clock, { merchantId: payment.merchant_id, livemode: payment.livemode, type: 'payment.authorized', object: paymentEventObject(payment, method), sessionId: session.id, paymentId: payment.id });
  await writeEvent(trx, clock, { merchantId: completed.merchant_id, livemode: completed.livemode, type: 'checkout.session.completed', object: sessionEventObject(completed, payment), sessionId: session.id, paymentId: payment.id });
  return { session: completed, payment };
}

/**
 * Charges a session in full: one succeeded payment, one paid invoice recording the payer, the
 * payment and its fee in the ledger, the session completed; `payment.succeeded` then
 * `checkout.session.completed`. `method` is null for payments that are not by card. `waiting` is
 * the session's payment that waited for the payer (3-D Secure): it is updated, not duplicated.
 */
export async function chargeSessionPayment(
  trx: Transaction<Database>,
  clock: Clock,
  session: CheckoutSessionRow,
  method: PaymentMethodRow | null,
  /** A payment already waiting for the payer (a live wallet QR code, a 3-D Secure challenge): it becomes the succeeded payment. */
  waiting?: PaymentRow,
): Promise<{ session: CheckoutSessionRow; payment: PaymentRow }> {
  const now = clock.now();
  const invoice = await invoiceForSessionPayment(trx, clock, session, 'paid');
  const fee = sandboxFee(session.amount, session.currency);
  const payment = await savePayment(trx, waiting, {
    ...paymentBase(session, method?.id ?? null, now),
    invoice_id: invoice.id,
    status: 'succeeded',
    fee,
    captured_amount: session.amount,
    captured_at: now,
  });
  await trx
    .insertInto('ledger_entries')
    .values([
      { merchant_id: payment.merchant_id, livemode: payment.livemode, payment_id: payment.id, type: 'payment', amount: payment.amount, currency: payment.currency, created_at: now },
      { merchant_id: payment.merchant_id, livemode: payment.livemode, payment_id: payment.id, type: 'fee', amount: new Decimal(fee).negated().toFixed(), currency: payment.currency, created_at: now },
    ])
    .execute();
  await keepSessionCard(trx, clock, session, method);
  const paid = await completeSession(trx, clock, session, payment, 'paid', invoice.id);
  await writeEvent(trx, clock, { merchantId: payment.merchant_id, livemode: payment.livemode, type: 'payment.succeeded', object: paymentEventObject(payment, method ?? undefined), sessionId: session.id, paymentId: payment.id });
  // A subscription session's first payment starts its subscription (a no-op for one-time sessions).
  const completed = await startPaidSubscription(trx, clock, paid, payment, method);
  await writeEvent(trx, clock, { merchantId: completed.merchant_id, livemode: completed.livemode, type: 'checkout.session.completed', object: sessionEventObject(completed, payment), sessionId: session.id, paymentId: payment.id });
  return { session: completed, payment };
}

/**
 * Inserts a session's payment, or, when a payment already waited for the payer, moves that row
 * to its outcome (keeping its id, reference number and creation time).
 */
async function savePayment(trx: Transaction<Database>, waiting: PaymentRow | undefined, values: Insertable<PaymentsTable>): Promise<PaymentRow> {
  if (!waiting) return trx.insertInto('payments').values(values).returningAll().executeTakeFirstOrThrow();
  const { reference_number: _reference, created_at: _created, ...changes } = values;
  return trx.updateTable('payments').set(changes).where('id', '=', waiting.id).returningAll().executeTakeFirstOrThrow();
}

/** Locks the caller's session and checks it can still be paid. */
export async function lockPayableSession(trx: Transaction<Database>, clock: Clock, caller: Caller, sessionId: string): Promise<CheckoutSessionRow> {
  const session = await findSession(trx, caller, sessionId, { lock: true });
  if (session.status === 'completed') throw new AppError('invalid_state', { message: 'This checkout session is already completed.' });
  if (session.status === 'cancelled' || session.status === 'expired' || session.expires_at <= clock.now()) {
    throw new AppError('session_not_payable', { message: 'This checkout session is cancelled or expired and cannot be paid.' });
  }
  if (session.status === 'processing') throw new AppError('invalid_state', { message: 'A payment of this session is still being processed.' });
  return session;
}

async function completeSession(trx: Transaction<Database>, clock: Clock, session: CheckoutSessionRow, payment: PaymentRow, paymentStatus: 'paid' | 'authorized', invoiceId: number | null) {
  return trx
    .updateTable('checkout_sessions')
    .set({ status: 'completed', payment_status: paymentStatus, payment_id: payment.id, invoice_id: invoiceId, completed_at: clock.now() })
    .where('id', '=', session.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
