// Payments: one record per attempt to take money for a source (a checkout session today), its
// card, and the money it moves (posted to the ledger). What the attempt means for the session, its
// invoice or a subscription is the flows' business (domain/checkout, domain/billing).
import { Decimal } from 'decimal.js';
import type { Insertable } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import type { PaymentMethodRow, PaymentRow, PaymentsTable } from './payment.tables.js';
import type { Clock } from '../../shared/clock.js';
import { randomToken } from '../../shared/crypto.js';
import { AppError } from '../../shared/errors.js';
import { newReference } from '../../shared/ids.js';
import { minorUnits } from '../../shared/money.js';
import { type Tenant, tenantOf } from '../../shared/tenant.js';
import type { EventType } from '../../shared/vocabulary.generated.js';
import type { TokenizedCard } from '../../rails/cards.js';
import { writeEvent } from '../events/event.service.js';
import { type Movement, post } from '../ledger/ledger.service.js';
import { findPaymentMethod, insertPaymentMethod } from './payment-method.repository.js';
import { findPayment, insertPayment, updatePayment } from './payment.repository.js';

/** Hold duration unless the payment option sets its own. */
export const DEFAULT_HOLD_DAYS = 7;

/**
 * What a payment is taken for: a checkout session's amount, currency, capture method and metadata
 * (no session: a charge of a card on file). A session's row is one; payments, below checkout,
 * names the columns it reads rather than the row's type.
 */
export interface PaymentSource {
  id: string | null;
  merchant_id: number;
  livemode: boolean;
  capture_method: 'automatic' | 'manual';
  amount: string;
  currency: string;
  metadata: Record<string, string>;
}

/** The sandbox acquirer's fee: 2.9% plus 30 minor units, rounded half-up to the currency's digits. */
export function sandboxFee(amount: string, currency: string): string {
  const units = minorUnits(currency);
  return new Decimal(amount)
    .times('0.029')
    .plus(new Decimal(30).dividedBy(new Decimal(10).pow(units)))
    .toDecimalPlaces(units, Decimal.ROUND_HALF_UP)
    .toFixed(units);
}

/**
 * The fee of a payment's rail: the sandbox acquirer's (2.9% + 30 minor units) for a card, a saved
 * card or funding source, a wallet QR code and a bank transfer; none for an account balance, whose
 * money never leaves Till (the ledger moves it from the paying account to the payee).
 */
export function railFee(methodType: PaymentRow['method_type'], amount: string, currency: string): string {
  return methodType === 'account_balance' ? new Decimal(0).toFixed(minorUnits(currency)) : sandboxFee(amount, currency);
}

/** The columns every payment of a source starts with: nothing has moved yet; callers set what their payment changes. */
export function paymentBase(source: PaymentSource, methodId: string | null, now: Date) {
  return {
    reference_number: newReference('PAY'),
    merchant_id: source.merchant_id,
    livemode: source.livemode,
    session_id: source.id,
    payment_method_id: methodId,
    capture_method: source.capture_method,
    amount: source.amount,
    currency: source.currency,
    metadata: JSON.stringify(source.metadata),
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

/** Stores what may be kept of a card (brand, last 4, expiry, fingerprint) as a payment method of one session. */
export async function storeCard(
  db: Db,
  session: { id: string; merchant_id: number; livemode: boolean },
  card: TokenizedCard,
  now: Date,
  extra: { customerId?: number | null; billingName?: string | undefined; billingEmail?: string | undefined } = {},
): Promise<PaymentMethodRow> {
  return insertPaymentMethod(db, {
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
  });
}

/** A payment method of the tenant, or undefined. */
export const findCard = (db: Db, tenant: Tenant, id: string): Promise<PaymentMethodRow | undefined> => findPaymentMethod(db, tenant, id);

/** The tenant's payment, or undefined. */
export const findPaymentRecord = (db: Db, tenant: Tenant, id: number): Promise<PaymentRow | undefined> => findPayment(db, tenant, id);

/** The tenant's payment, or 404 naming `paymentId`. With `fromSession`, only one made through a checkout session. */
export async function getPayment(db: Db, tenant: Tenant, id: number, options: { lock?: boolean; fromSession?: boolean } = {}): Promise<PaymentRow> {
  const payment = await findPayment(db, tenant, id, options);
  if (!payment)
    throw new AppError('resource_not_found', {
      param: 'paymentId',
      message: `No such payment${options.fromSession ? ' from a checkout session' : ''}: ${id}.`,
    });
  return payment;
}

/** Writes a `payment.*` event: the payment as it is, with what is kept of its card. */
export async function paymentEvent(
  db: Db,
  clock: Clock,
  type: EventType,
  payment: PaymentRow,
  card: PaymentMethodRow | null,
  extra: { refundAmount?: string } = {},
): Promise<void> {
  await writeEvent(db, clock, {
    tenant: tenantOf(payment),
    type,
    subject: {
      kind: 'payment',
      payment,
      card: card ? { brand: card.brand, last4: card.last4 } : null,
      ...(extra.refundAmount !== undefined ? { refund: { amount: extra.refundAmount } } : {}),
    },
    sessionId: payment.session_id,
    paymentId: payment.id,
  });
}

/** Records the state of the dispute on a payment: its status, and on a loss what was charged back (no longer refundable). */
export async function recordDisputeState(db: Db, payment: PaymentRow, state: { status: string; chargedBack?: string }): Promise<void> {
  await updatePayment(db, tenantOf(payment), payment.id, {
    dispute_status: state.status,
    ...(state.chargedBack !== undefined ? { charged_back_amount: state.chargedBack } : {}),
  });
}

/** The card a payment used (for its events), or null. */
export async function cardOf(db: Db, payment: PaymentRow): Promise<PaymentMethodRow | null> {
  return payment.payment_method_id ? ((await findPaymentMethod(db, tenantOf(payment), payment.payment_method_id)) ?? null) : null;
}

/**
 * Inserts a payment, or, when a payment already waited for the payer (3-D Secure, a wallet QR
 * code), moves that row to its outcome, keeping its id, reference number and creation time.
 */
export async function savePayment(trx: Trx, waiting: PaymentRow | undefined, values: Insertable<PaymentsTable>): Promise<PaymentRow> {
  if (!waiting) return insertPayment(trx, values);
  const { reference_number: _reference, created_at: _created, ...changes } = values;
  return (await updatePayment(trx, tenantOf(waiting), waiting.id, changes))!;
}

/** A card the sandbox processor declines or fails: a `failed` payment and `payment.failed`. Answers the payment and the error for the payer. */
export async function declineCard(trx: Trx, clock: Clock, source: PaymentSource, method: PaymentMethodRow): Promise<{ payment: PaymentRow; error: AppError }> {
  const declined = method.sandbox_outcome === 'insufficient_funds';
  const payment = await insertPayment(trx, {
    ...paymentBase(source, method.id, clock.now()),
    status: 'failed',
    failure_code: declined ? 'insufficient_funds' : 'processing_error',
    failure_message: declined ? 'The card was declined: insufficient funds.' : 'The processor could not complete the payment.',
  });
  await paymentEvent(trx, clock, 'payment.failed', payment, method);
  const error = declined
    ? new AppError('card_declined', {
        param: 'paymentMethodId',
        message: 'The card was declined: insufficient funds. The session can still be paid with another card.',
      })
    : new AppError('processing_error', { message: 'The processor could not complete the payment. Retrying is safe; the session can still be paid.' });
  return { payment, error };
}

/**
 * Takes the source's amount in full: a `succeeded` payment recorded against `invoiceId`, and the
 * payment and its fee posted to the ledger. `method` is null for payments that are not by card
 * (a wallet); `waiting` is a payment that waited for the payer and becomes this one.
 */
export async function chargeInFull(
  trx: Trx,
  clock: Clock,
  source: PaymentSource,
  method: PaymentMethodRow | null,
  invoiceId: number,
  waiting?: PaymentRow,
): Promise<PaymentRow> {
  const now = clock.now();
  const fee = railFee(waiting?.method_type ?? 'card', source.amount, source.currency);
  const payment = await savePayment(trx, waiting, {
    ...paymentBase(source, method?.id ?? null, now),
    invoice_id: invoiceId,
    status: 'succeeded',
    fee,
    captured_amount: source.amount,
    captured_at: now,
  });
  const movements: Movement[] = [{ type: 'payment', amount: payment.amount }];
  if (!new Decimal(fee).isZero()) movements.push({ type: 'fee', amount: fee });
  await post(trx, { tenant: tenantOf(payment), paymentId: payment.id, currency: payment.currency, at: now }, movements);
  return payment;
}

/** Authorizes a hold of the source's amount for `holdDays`: an `authorized` payment, the hold posted to the ledger. */
export async function authorizeHold(
  trx: Trx,
  clock: Clock,
  source: PaymentSource,
  method: PaymentMethodRow,
  invoiceId: number,
  holdDays: number,
  waiting?: PaymentRow,
): Promise<PaymentRow> {
  const now = clock.now();
  const payment = await savePayment(trx, waiting, {
    ...paymentBase(source, method.id, now),
    invoice_id: invoiceId,
    status: 'authorized',
    authorized_amount: source.amount,
    authorization_expires_at: new Date(now.getTime() + holdDays * 86_400_000),
  });
  await post(trx, { tenant: tenantOf(payment), paymentId: payment.id, currency: payment.currency, at: now }, [
    { type: 'authorization', amount: source.amount },
  ]);
  return payment;
}

/** How long the merchant's option for this card brand holds a card (7 days by default). */
export function holdDaysFor(options: { name: string; canHold: boolean; enabled: boolean; holdDays: number | null }[], brand: string): number {
  return options.find((o) => o.canHold && o.enabled && o.name.toLowerCase() === brand)?.holdDays ?? DEFAULT_HOLD_DAYS;
}
