import type { components } from '../../../../generated/checkout.js';
import type { PaymentMethodRow, PaymentRow } from '../../../domain/payments/payment.tables.js';
import type { CardSummary } from '../../../domain/events/event.service.js';
import type { HoldOutcome } from '../../../domain/payments/holds.js';
import type { RefundOutcome } from '../../../domain/payments/refunds.js';
import { refundableAmount } from '../../../domain/payments/refunds.js';
import type { Settlement } from '../../../domain/payments/settlement.js';
import { decimalToAmount } from '../../../shared/money.js';

type Schemas = components['schemas'];

const EVENT_STATUS: Record<string, Schemas['PaymentEventObject']['status']> = {
  succeeded: 'Success',
  failed: 'Failed',
  authorized: 'Authorized',
  captured: 'Captured',
  released: 'Released',
  expired: 'Expired',
  refunded: 'Refunded',
  // A partial refund leaves the payment Success (the Checkout document's refund table).
  partially_refunded: 'Success',
  pending_reversal: 'PendingReversal',
};

/** A tokenized card as the `payment_method` object. */
export const paymentMethodView = (m: PaymentMethodRow): Schemas['PaymentMethod'] => ({
  id: m.id,
  object: 'payment_method',
  type: 'card',
  card: cardView(m),
  createdAt: m.created_at.toISOString(),
});

/** What is kept of a card, as the `card` object. */
export const cardView = (m: PaymentMethodRow): Schemas['PaymentMethodCard'] => ({
  brand: m.brand as Schemas['PaymentMethodCardBrand'],
  last4: m.last4,
  expiryMonth: m.expiry_month,
  expiryYear: m.expiry_year,
});

/** The `payment` object of `payment.*` events; it carries the session's metadata. */
export const paymentEventObject = (p: PaymentRow, card: CardSummary | null): Schemas['PaymentEventObject'] => ({
  object: 'payment',
  id: p.id,
  referenceNumber: p.reference_number,
  status: EVENT_STATUS[p.status] ?? 'Success',
  amount: decimalToAmount(p.amount, p.currency),
  currency: p.currency,
  capturedAmount: p.captured_amount === null ? null : decimalToAmount(p.captured_amount, p.currency),
  authorizationExpiresAt: p.authorization_expires_at ? p.authorization_expires_at.toISOString() : null,
  paymentMethod:
    p.method_type === 'card'
      ? { type: 'card', brand: card?.brand ?? null, last4: card?.last4 ?? null }
      : { type: p.method_type, brand: p.wallet_name, last4: null },
  failureCode: p.failure_code,
  failureMessage: p.failure_message,
  sessionId: p.session_id,
  invoiceId: p.invoice_id,
  metadata: p.metadata,
  isLive: p.livemode,
  createdAt: p.created_at.toISOString(),
});

/** A refund call's answer. */
export function refundResultView({ payment: p, alreadyRefunded, amount }: RefundOutcome): Schemas['RefundResult'] {
  const status = p.status === 'refunded' ? 'refunded' : p.status === 'pending_reversal' ? 'pending_reversal' : 'partially_refunded';
  return {
    sessionId: p.session_id,
    paymentId: p.id,
    paymentReferenceNumber: p.reference_number,
    status,
    amount: decimalToAmount(p.captured_amount ?? p.amount, p.currency),
    currency: p.currency,
    alreadyRefunded,
    refundAmount: decimalToAmount(amount, p.currency),
    refundedAmount: decimalToAmount(p.refunded_amount, p.currency),
    amountRefundable: decimalToAmount(refundableAmount(p).toFixed(), p.currency),
  };
}

/** A capture's or release's answer. */
export function holdResultView({ payment: p, alreadyDone }: HoldOutcome): Schemas['HoldResult'] {
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

/** The settle test helper's answer. */
export const settlementView = (s: Settlement): Schemas['TestPaymentSettlement'] => ({
  paymentId: s.payment.id,
  status: 'settled',
  settledAmount: decimalToAmount(s.gross, s.payment.currency),
  feeAmount: decimalToAmount(s.fee, s.payment.currency),
  refundedAmount: decimalToAmount(s.payment.refunded_amount, s.payment.currency),
  netAmount: decimalToAmount(s.net, s.payment.currency),
  currency: s.payment.currency,
  settledAt: s.settledAt.toISOString(),
});
