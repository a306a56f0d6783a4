// What a Commerce payment keeps of how it was asked for (the payment option, the card's brand), and
// a payment that could not be made at all: a card that fails its check or a funding source that
// cannot pay is a `failed` payment answered to the payer, as a decline is, never an error.
import type { Trx } from '../../db/database.js';
import type { CheckoutSessionRow } from '../checkout/session.tables.js';
import type { PaymentRow } from '../payments/payment.tables.js';
import type { Clock } from '../../shared/clock.js';
import { tenantOf } from '../../shared/tenant.js';
import { recordInvoicePaymentFailure } from '../invoices/invoice-paying.js';
import { insertPayment, updatePayment } from '../payments/payment.repository.js';
import { paymentBase, paymentEvent } from '../payments/payment.service.js';

/** Why a payment could not be made: a stable code and the message the payer reads (`hostMessage`). */
export interface PaymentFailure {
  code: string;
  message: string;
  cardBrand: string | null;
}

/** Records on the payment the option it was made with and the card's brand (null: not a card). */
export async function recordPaymentOption(trx: Trx, payment: PaymentRow, optionId: number, cardBrand: string | null): Promise<PaymentRow> {
  return (await updatePayment(trx, tenantOf(payment), payment.id, { payment_option_id: optionId, card_brand: cardBrand })) ?? payment;
}

/** A payment that could not be made: `failed` with the reason, `payment.failed` and `invoice.payment_failed`; nothing moves. */
export async function recordFailedPayment(trx: Trx, clock: Clock, session: CheckoutSessionRow, optionId: number, failure: PaymentFailure): Promise<PaymentRow> {
  const payment = await insertPayment(trx, {
    ...paymentBase(session, null, clock.now()),
    status: 'failed',
    payment_option_id: optionId,
    failure_code: failure.code,
    failure_message: failure.message,
    card_brand: failure.cardBrand,
  });
  await paymentEvent(trx, clock, 'payment.failed', payment, null);
  await recordInvoicePaymentFailure(trx, clock, session);
  return payment;
}
