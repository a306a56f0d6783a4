import type { components } from '../../../generated/checkout.js';
import { decimalToAmount } from '../../shared/money.js';
import type { CheckoutSessionRow } from '../../db/tables/checkout-sessions.js';
import type { PaymentMethodRow, PaymentRow } from '../../db/tables/payments.js';

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
export const paymentMethodObject = (m: PaymentMethodRow): Schemas['PaymentMethod'] => ({
  id: m.id,
  object: 'payment_method',
  type: 'card',
  card: { brand: m.brand as Schemas['PaymentMethodCardBrand'], last4: m.last4, expiryMonth: m.expiry_month, expiryYear: m.expiry_year },
  createdAt: m.created_at.toISOString(),
});

/** The `payment` object of `payment.*` events; it carries the session's metadata. */
export const paymentEventObject = (p: PaymentRow, m: PaymentMethodRow | undefined): Schemas['PaymentEventObject'] => ({
  object: 'payment',
  id: p.id,
  referenceNumber: p.reference_number,
  status: EVENT_STATUS[p.status] ?? 'Success',
  amount: decimalToAmount(p.amount, p.currency),
  currency: p.currency,
  capturedAmount: p.captured_amount === null ? null : decimalToAmount(p.captured_amount, p.currency),
  authorizationExpiresAt: p.authorization_expires_at ? p.authorization_expires_at.toISOString() : null,
  paymentMethod: p.method_type === 'wallet' ? { type: 'wallet', brand: p.wallet_name, last4: null } : { type: 'card', brand: m?.brand ?? null, last4: m?.last4 ?? null },
  failureCode: p.failure_code,
  failureMessage: p.failure_message,
  sessionId: p.session_id,
  invoiceId: p.invoice_id,
  metadata: p.metadata,
  isLive: p.livemode,
  createdAt: p.created_at.toISOString(),
});

const CONFIRM_PAYMENT_STATUS: Record<string, Schemas['CheckoutSessionPaymentResult']['status']> = {
  authorized: 'authorized',
  requires_action: 'requires_action',
  pending: 'pending',
};

/** The confirm answer: `complete` once paid or authorized, `payment_pending` while `nextAction` waits for the payer. */
export function confirmResult(
  session: CheckoutSessionRow,
  payment: PaymentRow,
  nextAction: Schemas['CheckoutSessionConfirmResult']['nextAction'],
): Schemas['CheckoutSessionConfirmResult'] {
  const complete = session.status === 'completed';
  const paymentStatus = (['paid', 'authorized', 'pending'] as const).find((s) => s === session.payment_status) ?? (complete ? 'paid' : 'unpaid');
  return {
    id: session.id,
    object: 'checkout_session',
    status: complete ? 'complete' : 'payment_pending',
    paymentStatus,
    paymentResult: { id: payment.id, status: CONFIRM_PAYMENT_STATUS[payment.status] ?? 'succeeded', amount: decimalToAmount(payment.amount, payment.currency), currency: payment.currency },
    nextAction,
  };
}
