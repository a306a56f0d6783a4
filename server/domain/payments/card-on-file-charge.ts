// Merchant-initiated charges of a card on file (renewals, dunning retries, plan-change charges):
// no customer is present, so no 3-D Secure is asked. The sandbox processor answers by the card's
// test number, as at checkout, except that the "declines later" cards decline here.
import type { Trx } from '../../db/database.js';
import type { PaymentMethodRow, PaymentRow } from './payment.tables.js';
import { DECLINES_LATER } from '../../shared/card-outcome.js';
import type { Clock } from '../../shared/clock.js';
import type { Tenant } from '../../shared/tenant.js';
import { post } from '../ledger/ledger.service.js';
import { findPaymentMethod } from './payment-method.repository.js';
import { insertPayment } from './payment.repository.js';
import { paymentBase, paymentEvent, sandboxFee } from './payment.service.js';

/** What a charge of a card on file is for. */
export interface CardOnFileCharge {
  tenant: Tenant;
  /** Exact decimal text, more than 0. */
  amount: string;
  currency: string;
  invoiceId: number;
  /** The card on file; null when there is none (the charge fails with `no_payment_method`). */
  paymentMethodId: string | null;
  metadata: Record<string, string>;
}

export type ChargeFailureCode = 'card_declined' | 'insufficient_funds' | 'processing_error' | 'no_payment_method';

export type CardOnFileOutcome =
  | { ok: true; payment: PaymentRow; card: PaymentMethodRow }
  | { ok: false; payment: PaymentRow | null; card: PaymentMethodRow | null; code: ChargeFailureCode; message: string };

const FAILURES: Record<string, { code: ChargeFailureCode; message: string }> = {
  insufficient_funds: { code: 'insufficient_funds', message: 'The card was declined: insufficient funds.' },
  insufficient_funds_later: { code: 'insufficient_funds', message: 'The card was declined: insufficient funds.' },
  declines_later: { code: 'card_declined', message: 'The card was declined.' },
  processing_error: { code: 'processing_error', message: 'The processor could not complete the payment.' },
};

/** The sandbox processor's answer to a merchant-initiated charge of this card: null when it succeeds. */
function failureOf(card: PaymentMethodRow): { code: ChargeFailureCode; message: string } | null {
  if (DECLINES_LATER.includes(card.sandbox_outcome) || card.sandbox_outcome === 'insufficient_funds' || card.sandbox_outcome === 'processing_error') {
    return FAILURES[card.sandbox_outcome]!;
  }
  return null;
}

/** The payment's columns: a charge of no session, for the invoice. */
function paymentValues(charge: CardOnFileCharge, card: PaymentMethodRow, now: Date) {
  const source = {
    id: null,
    merchant_id: charge.tenant.merchantId,
    livemode: charge.tenant.livemode,
    capture_method: 'automatic' as const,
    amount: charge.amount,
    currency: charge.currency,
    metadata: charge.metadata,
  };
  return { ...paymentBase(source, card.id, now), invoice_id: charge.invoiceId };
}

/**
 * Charges the card on file for an invoice: a `succeeded` payment with its fee posted to the ledger
 * and `payment.succeeded`, or a `failed` payment and `payment.failed` (no payment at all when there
 * is no card). The caller records what it means for the invoice and the subscription.
 */
export async function chargeCardOnFile(trx: Trx, clock: Clock, charge: CardOnFileCharge): Promise<CardOnFileOutcome> {
  const card = charge.paymentMethodId === null ? undefined : await findPaymentMethod(trx, charge.tenant, charge.paymentMethodId);
  if (!card) return { ok: false, payment: null, card: null, code: 'no_payment_method', message: 'No card is on file.' };
  const now = clock.now();
  const failure = failureOf(card);
  if (failure) {
    const payment = await insertPayment(trx, {
      ...paymentValues(charge, card, now),
      status: 'failed',
      failure_code: failure.code,
      failure_message: failure.message,
    });
    await paymentEvent(trx, clock, 'payment.failed', payment, card);
    return { ok: false, payment, card, ...failure };
  }
  const fee = sandboxFee(charge.amount, charge.currency);
  const payment = await insertPayment(trx, { ...paymentValues(charge, card, now), status: 'succeeded', fee, captured_amount: charge.amount, captured_at: now });
  await post(trx, { tenant: charge.tenant, paymentId: payment.id, currency: payment.currency, at: now }, [
    { type: 'payment', amount: payment.amount },
    { type: 'fee', amount: fee },
  ]);
  await paymentEvent(trx, clock, 'payment.succeeded', payment, card);
  return { ok: true, payment, card };
}
