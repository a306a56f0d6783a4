import { randomUUID } from 'node:crypto';
import { Decimal } from 'decimal.js';
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../errors/catalog.js';
import { type CardInput, tokenize } from '../../rails/cards.js';
import { writeEvent } from '../events/event.service.js';
import { randomToken } from '../merchants/keys.js';
import { minorUnits } from '../shared/money.js';
import { findSession } from '../sessions/session.repository.js';
import { getSession, type Caller } from '../sessions/session.service.js';
import { sessionEventObject } from '../sessions/session.mapper.js';
import type { CheckoutSessionRow } from '../sessions/session.table.js';
import { paymentEventObject } from './payment.mapper.js';
import type { PaymentMethodRow, PaymentRow } from './payment.table.js';

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
  return db
    .insertInto('payment_methods')
    .values({
      id: `pm_${randomToken(24)}`,
      merchant_id: caller.merchantId,
      livemode: caller.livemode,
      session_id: session.id,
      customer_id: session.client_id,
      brand: card.brand,
      last4: card.last4,
      expiry_month: card.expiryMonth,
      expiry_year: card.expiryYear,
      fingerprint: card.fingerprint,
      sandbox_outcome: card.outcome,
      billing_name: input.billingDetails?.name ?? null,
      billing_email: input.billingDetails?.email ?? null,
      created_at: clock.now(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export type ConfirmOutcome =
  | { kind: 'paid'; session: CheckoutSessionRow; payment: PaymentRow }
  | { kind: 'authorized'; session: CheckoutSessionRow; payment: PaymentRow }
  | { kind: 'declined'; error: AppError };
export type Confirmed = Exclude<ConfirmOutcome, { kind: 'declined' }>;

const newReference = (prefix: string) => `${prefix}-${randomToken(10).toUpperCase()}`;

/**
 * Confirms a session with a card tokenized on it. The session row is locked for the whole
 * confirmation, so two confirms racing on one session make exactly one payment (a unique index
 * stands behind that too). A paid one-time session gets one payment and one paid invoice that
 * records the payer; a hold session gets an authorization and nothing is paid until capture.
 */
export async function confirmSession(db: Kysely<Database>, clock: Clock, caller: Caller, sessionId: string, paymentMethodId: string): Promise<Confirmed> {
  if (paymentMethodId.startsWith('wallet:')) throw new AppError('not_implemented', { message: 'Wallet QR payments are not implemented on this server yet.' });
  const outcome = await db.transaction().execute(async (trx): Promise<ConfirmOutcome> => {
    const session = await lockPayableSession(trx, clock, caller, sessionId);
    const method = await trx
      .selectFrom('payment_methods')
      .selectAll()
      .where('id', '=', paymentMethodId)
      .where('merchant_id', '=', caller.merchantId)
      .where('livemode', '=', caller.livemode)
      .where('session_id', '=', session.id)
      .executeTakeFirst();
    if (!method) throw new AppError('parameter_invalid', { param: 'paymentMethodId', message: 'paymentMethodId is not a payment method of this session. Tokenize the card on this session first.' });
    if (method.sandbox_outcome === 'requires_3ds') throw new AppError('not_implemented', { message: '3-D Secure is not implemented on this server yet.' });
    const now = clock.now();
    const base = {
      reference_number: newReference('PAY'),
      merchant_id: session.merchant_id,
      livemode: session.livemode,
      session_id: session.id,
      payment_method_id: method.id,
      capture_method: session.capture_method,
      amount: session.amount,
      currency: session.currency,
      metadata: JSON.stringify(session.metadata),
      created_at: now,
      updated_at: now,
    };

    if (method.sandbox_outcome === 'insufficient_funds' || method.sandbox_outcome === 'processing_error') {
      const declined = method.sandbox_outcome === 'insufficient_funds';
      const payment = await trx
        .insertInto('payments')
        .values({
          ...base,
          invoice_id: null,
          status: 'failed',
          fee: '0',
          authorized_amount: null,
          captured_amount: null,
          refunded_amount: '0',
          failure_code: declined ? 'insufficient_funds' : 'processing_error',
          failure_message: declined ? 'The card was declined: insufficient funds.' : 'The processor could not complete the payment.',
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await writeEvent(trx, clock, { merchantId: payment.merchant_id, livemode: payment.livemode, type: 'payment.failed', object: paymentEventObject(payment, method), sessionId: session.id, paymentId: payment.id });
      return {
        kind: 'declined',
        error: declined
          ? new AppError('card_declined', { param: 'paymentMethodId', message: 'The card was declined: insufficient funds. The session can still be paid with another card.' })
          : new AppError('processing_error', { message: 'The processor could not complete the payment. Retrying is safe; the session can still be paid.' }),
      };
    }

    if (session.capture_method === 'manual') {
      const merchant = await trx.selectFrom('merchants').select('payment_options').where('id', '=', session.merchant_id).executeTakeFirstOrThrow();
      const holdDays = merchant.payment_options.find((o) => o.canHold && o.enabled && o.name.toLowerCase() === method.brand)?.holdDays ?? DEFAULT_HOLD_DAYS;
      // The session's invoice is raised now and paid at capture (cancelled at release or lapse).
      const invoice = await raiseSessionInvoice(trx, session, 'pending', now);
      const payment = await trx
        .insertInto('payments')
        .values({
          ...base,
          invoice_id: invoice.id,
          status: 'authorized',
          fee: '0',
          authorized_amount: session.amount,
          captured_amount: null,
          refunded_amount: '0',
          authorization_expires_at: new Date(now.getTime() + holdDays * 86_400_000),
          failure_code: null,
          failure_message: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      const completed = await completeSession(trx, clock, session, payment, 'authorized', invoice.id);
      await writeEvent(trx, clock, { merchantId: payment.merchant_id, livemode: payment.livemode, type: 'payment.authorized', object: paymentEventObject(payment, method), sessionId: session.id, paymentId: payment.id });
      await writeEvent(trx, clock, { merchantId: completed.merchant_id, livemode: completed.livemode, type: 'checkout.session.completed', object: sessionEventObject(completed, payment), sessionId: session.id, paymentId: payment.id });
      return { kind: 'authorized', session: completed, payment };
    }

    const invoice = await raiseSessionInvoice(trx, session, 'paid', now);
    const fee = sandboxFee(session.amount, session.currency);
    const payment = await trx
      .insertInto('payments')
      .values({ ...base, invoice_id: invoice.id, status: 'succeeded', fee, authorized_amount: null, captured_amount: session.amount, refunded_amount: '0', captured_at: now, failure_code: null, failure_message: null })
      .returningAll()
      .executeTakeFirstOrThrow();
    await trx
      .insertInto('ledger_entries')
      .values([
        { merchant_id: payment.merchant_id, livemode: payment.livemode, payment_id: payment.id, type: 'payment', amount: payment.amount, currency: payment.currency, created_at: now },
        { merchant_id: payment.merchant_id, livemode: payment.livemode, payment_id: payment.id, type: 'fee', amount: new Decimal(fee).negated().toFixed(), currency: payment.currency, created_at: now },
      ])
      .execute();
    const completed = await completeSession(trx, clock, session, payment, 'paid', invoice.id);
    await writeEvent(trx, clock, { merchantId: payment.merchant_id, livemode: payment.livemode, type: 'payment.succeeded', object: paymentEventObject(payment, method), sessionId: session.id, paymentId: payment.id });
    await writeEvent(trx, clock, { merchantId: completed.merchant_id, livemode: completed.livemode, type: 'checkout.session.completed', object: sessionEventObject(completed, payment), sessionId: session.id, paymentId: payment.id });
    return { kind: 'paid', session: completed, payment };
  });
  if (outcome.kind === 'declined') throw outcome.error;
  return outcome;
}

/** The invoice a one-time session raises for its payer. */
async function raiseSessionInvoice(trx: Transaction<Database>, session: CheckoutSessionRow, status: 'paid' | 'pending', now: Date) {
  return trx
    .insertInto('invoices')
    .values({
      merchant_id: session.merchant_id,
      livemode: session.livemode,
      identifier: randomUUID(),
      reference: newReference('INVREF'),
      invoice_number: newReference('INV'),
      status,
      currency: session.currency,
      subtotal: session.amount,
      tax_amount: '0',
      discount: '0',
      total: session.amount,
      amount_paid: status === 'paid' ? session.amount : '0',
      amount_refunded: '0',
      payer_email: session.customer_email,
      payer_first_name: session.customer_first_name,
      payer_last_name: session.customer_last_name,
      payer_phone: session.customer_phone,
      description: session.description,
      line_items: JSON.stringify(session.line_items),
      session_id: session.id,
      paid_at: status === 'paid' ? now : null,
      created_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Locks the caller's session and checks it can still be paid. */
async function lockPayableSession(trx: Transaction<Database>, clock: Clock, caller: Caller, sessionId: string): Promise<CheckoutSessionRow> {
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
