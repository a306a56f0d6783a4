import type { components } from '../../../../generated/checkout.js';
import type { CheckoutSessionRow } from '../../../domain/checkout/session.tables.js';
import type { Merchant } from '../../../domain/merchants/merchant.tables.js';
import type { PaymentRow } from '../../../domain/payments/payment.tables.js';
import type { Confirmed, NextAction } from '../../../domain/checkout/confirm.js';
import { allowedPaymentMethods } from '../../../domain/checkout/session.service.js';
import { payPageUrl } from '../../../domain/checkout/hosted-page.js';
import type { CreatedSession, SessionToCreate } from '../../../domain/checkout/session-create.js';
import type { QrWithdrawal } from '../../../domain/checkout/session-qr.js';
import type { SessionSnapshot } from '../../../domain/checkout/session-snapshot.js';
import { type Refundability, refundability } from '../../../domain/payments/refunds.js';
import { decimalToAmount } from '../../../shared/money.js';
import { challengeUrl } from '../../../rails/issuer-challenge.js';

type Schemas = components['schemas'];

const PASCAL: Record<string, string> = {
  created: 'Created',
  payment_pending: 'PaymentPending',
  processing: 'Processing',
  completed: 'Completed',
  expired: 'Expired',
  cancelled: 'Cancelled',
  unpaid: 'Unpaid',
  pending: 'Pending',
  authorized: 'Authorized',
  paid: 'Paid',
  no_payment_required: 'NoPaymentRequired',
  partially_refunded: 'PartiallyRefunded',
  refunded: 'Refunded',
  pending_reversal: 'PendingReversal',
};

const REFUND_MESSAGES: Record<Schemas['RefundReason'], string> = {
  no_payment: 'This session has no payment to refund.',
  already_refunded: 'The payment is refunded in full.',
  refund_pending: 'A refund is under way; it completes on its own.',
  not_paid: 'The payment is not paid (not captured, released or failed).',
  refund_failed: 'The last refund attempt failed; retrying is safe and never refunds twice.',
  refundable: 'The payment can be refunded.',
  settled: 'The payment has settled and the available balance is short of it.',
  method_not_supported: 'This payment method cannot be refunded through the API.',
  disputed: 'A dispute is open on the payment; it cannot be refunded until the dispute closes.',
};

/** A stored status as the REST interface spells it (the lifecycle values, snake_case). */
const restStatus = (status: string): Schemas['CheckoutSessionStatus'] => (status === 'open' ? 'created' : (status as Schemas['CheckoutSessionStatus']));

/** The `refund` object of a session: whether its payment can be refunded through the API right now, by the same rule as the refund operations. */
export function refundStateView(payment: PaymentRow | null | undefined, rule: Refundability = refundability(payment)): Schemas['SessionRefundState'] {
  const lastAttempt =
    payment?.refund_last_outcome && payment.refund_last_attempt_at
      ? {
          outcome: payment.refund_last_outcome as Schemas['SessionRefundAttempt']['outcome'],
          attemptedAt: payment.refund_last_attempt_at.toISOString(),
          attempts: payment.refund_attempts,
        }
      : null;
  return {
    refundable: rule.refundable,
    reason: rule.reason,
    message: REFUND_MESSAGES[rule.reason],
    manualRefundRequired: rule.manualRefundRequired,
    lastAttempt,
  };
}

/** Who pays a session and what they are told: shown alike by retrieval and by its events. */
const payerFields = (session: SessionSnapshot) => ({
  customerEmail: session.customer_email,
  customerFirstName: session.customer_first_name,
  customerLastName: session.customer_last_name,
  customerPhone: session.customer_phone,
  notifyCustomer: session.notify_customer,
  sendReceipt: session.send_receipt,
});

/** The answer to create: `open`, the client secret, and the notification secret when one was made. */
export function sessionCreatedView({ session, clientSecret, generatedNotificationSecret }: CreatedSession): Schemas['CheckoutSessionCreated'] {
  const name = [session.customer_first_name, session.customer_last_name].filter(Boolean).join(' ');
  return {
    id: session.id,
    object: 'checkout_session',
    // A free-trial subscription session is completed at creation (Till's design in the contract).
    status: session.status === 'completed' ? 'completed' : 'open',
    amount: decimalToAmount(session.amount, session.currency),
    currency: session.currency,
    mode: session.mode,
    paymentType: session.payment_type === 'subscription' ? 'subscription' : 'oneTime',
    clientSecret,
    url: session.url === null ? null : payPageUrl(session.url, clientSecret),
    successUrl: session.success_url,
    cancelUrl: session.cancel_url,
    customer: { email: session.customer_email, name: name === '' ? null : name },
    paymentStatus: session.payment_status === 'no_payment_required' ? 'no_payment_required' : 'unpaid',
    expiresAt: session.expires_at.toISOString(),
    createdAt: session.created_at.toISOString(),
    ...(generatedNotificationSecret ? { notificationSecret: generatedNotificationSecret } : {}),
  };
}

/** Every retrieval field of the document. */
export function sessionView(session: CheckoutSessionRow, merchant: Merchant, payment?: PaymentRow, refund?: Refundability): Schemas['CheckoutSession'] {
  return {
    object: 'checkout_session',
    id: session.id,
    sessionId: session.id,
    status: restStatus(session.status),
    amount: decimalToAmount(session.amount, session.currency),
    currency: session.currency,
    ...payerFields(session),
    allowGuestSavedCards: session.allow_saved_cards,
    paymentType: session.payment_type,
    mode: session.mode,
    expiresAt: session.expires_at.toISOString(),
    merchantName: merchant.name,
    merchantLogoUrl: merchant.logo_url,
    allowedPaymentMethods: allowedPaymentMethods(session, merchant),
    successUrl: session.success_url,
    cancelUrl: session.cancel_url,
    clientId: session.client_id,
    subscriptionId: session.subscription_id,
    invoiceId: session.invoice_id,
    refund: refundStateView(payment, refund),
  };
}

const HOLD_STATUS: Record<string, 'authorized' | 'captured' | 'released' | 'expired'> = {
  authorized: 'authorized',
  captured: 'captured',
  succeeded: 'captured',
  partially_refunded: 'captured',
  refunded: 'captured',
  released: 'released',
  expired: 'expired',
};

/** The polling answer; a hold session adds its hold fields once the card is authorized. */
export function sessionStatusView(session: CheckoutSessionRow, hold?: PaymentRow): Schemas['CheckoutSessionStatusResult'] {
  const result: Schemas['CheckoutSessionStatusResult'] = { status: restStatus(session.status) };
  if (session.capture_method !== 'manual' || !hold || !hold.authorized_amount) return result;
  const holdStatus = HOLD_STATUS[hold.status] ?? 'authorized';
  return {
    ...result,
    captureMethod: 'manual',
    paymentId: hold.id,
    holdStatus,
    authorizedAmount: decimalToAmount(hold.authorized_amount, hold.currency),
    ...(holdStatus === 'authorized' && hold.authorization_expires_at ? { authorizationExpiresAt: hold.authorization_expires_at.toISOString() } : {}),
  };
}

/** The `checkout_session` object of `checkout.session.*` events (statuses in PascalCase). */
export function sessionEventObject(session: SessionSnapshot, payment: PaymentRow | null): Schemas['CheckoutSessionEventObject'] {
  return {
    object: 'checkout_session',
    id: session.id,
    sessionId: session.id,
    status: (PASCAL[session.status] ?? 'Created') as Schemas['CheckoutSessionEventObject']['status'],
    paymentStatus: (PASCAL[session.payment_status] ?? 'Unpaid') as Schemas['CheckoutSessionEventObject']['paymentStatus'],
    amount: decimalToAmount(session.amount, session.currency),
    currency: session.currency,
    paymentId: session.payment_id,
    paymentReferenceNumber: payment?.reference_number ?? null,
    ...payerFields(session),
    invoiceId: session.invoice_id,
    invoiceReference: session.invoice_reference,
    isLive: session.livemode,
    metadata: session.metadata,
    createdAt: session.created_at.toISOString(),
    refund: refundStateView(payment),
  };
}

/** What the payer must do next, with this server's links: the 3-D Secure page, or the QR code and its image. */
export function nextActionView(action: NextAction, publicBaseUrl: string): Schemas['CheckoutSessionRedirectAction'] | Schemas['CheckoutSessionQrAction'] {
  if (action.type === 'redirect_to_3ds') return { type: 'redirect_to_3ds', url: challengeUrl(publicBaseUrl, action.challengeId) };
  const p = action.payment;
  return {
    type: 'display_qr',
    qrData: p.qr_data ?? '',
    qrImageUrl: `${publicBaseUrl}/qr/${p.qr_token}.png`,
    expiresAt: (p.qr_expires_at ?? new Date(0)).toISOString(),
  };
}

const CONFIRM_PAYMENT_STATUS: Record<string, Schemas['CheckoutSessionPaymentResult']['status']> = {
  authorized: 'authorized',
  requires_action: 'requires_action',
  pending: 'pending',
};

/** The confirm answer: `complete` once paid or authorized, `payment_pending` while `nextAction` waits for the payer. */
export function confirmResultView({ session, payment, nextAction }: Confirmed, publicBaseUrl: string): Schemas['CheckoutSessionConfirmResult'] {
  const complete = session.status === 'completed';
  const paymentStatus = (['paid', 'authorized', 'pending'] as const).find((s) => s === session.payment_status) ?? (complete ? 'paid' : 'unpaid');
  return {
    id: session.id,
    object: 'checkout_session',
    status: complete ? 'complete' : 'payment_pending',
    paymentStatus,
    paymentResult: {
      id: payment.id,
      status: CONFIRM_PAYMENT_STATUS[payment.status] ?? 'succeeded',
      amount: decimalToAmount(payment.amount, payment.currency),
      currency: payment.currency,
    },
    nextAction: nextAction ? nextActionView(nextAction, publicBaseUrl) : null,
  };
}

const WITHDRAW_MESSAGES: Record<QrWithdrawal['why'], string> = {
  withdrawn: 'The QR code can no longer be paid. Choose another way to pay.',
  none: 'There is no QR code to withdraw. Choose a way to pay.',
  paid_by_qr: 'Your payment by QR code went through. No need to pay again.',
  paid: 'This payment is already done. No need to pay again.',
  failed: 'We could not cancel the QR code yet, so it may still be paid. Please try again in a moment.',
};

/** withdraw-qr's answer, with a message for the payer. */
export const qrWithdrawalView = (w: QrWithdrawal): Schemas['CheckoutSessionQrWithdrawal'] => ({
  sessionId: w.sessionId,
  outcome: w.outcome,
  status: w.status as Schemas['CheckoutSessionStatus'],
  message: WITHDRAW_MESSAGES[w.why],
});

/** A create request as the domain's session: the amount as exact decimal text, the expiry as a Date, the payment type stored-spelled. */
export function sessionToCreate(body: Schemas['CheckoutSessionCreateRequest']): SessionToCreate {
  const { amount, paymentType, expiresAt, ...rest } = body;
  return {
    ...rest,
    amount: amount === undefined ? undefined : String(amount),
    paymentType: paymentType === 'oneTime' ? 'one_time' : 'subscription',
    expiresAt: expiresAt === undefined ? undefined : new Date(expiresAt),
  };
}
