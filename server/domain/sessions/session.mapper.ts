import type { components } from '../../../generated/checkout.js';
import type { Merchant } from '../../db/tables/merchants.js';
import type { PaymentRow } from '../../db/tables/payments.js';
import { refundState } from '../payments/refund.service.js';
import { decimalToAmount } from '../../shared/money.js';
import type { CheckoutSessionRow } from '../../db/tables/checkout-sessions.js';

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

/** A stored status as the REST interface spells it (the lifecycle values, snake_case). */
const restStatus = (status: string): Schemas['CheckoutSessionStatus'] => (status === 'open' ? 'created' : (status as Schemas['CheckoutSessionStatus']));

/** The answer to create: `open`, the client secret, and the notification secret when one was made. */
export function sessionCreated(session: CheckoutSessionRow, clientSecret: string, generatedNotificationSecret: string | undefined): Schemas['CheckoutSessionCreated'] {
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
    url: session.url,
    successUrl: session.success_url,
    cancelUrl: session.cancel_url,
    customer: { email: session.customer_email, name: name === '' ? null : name },
    paymentStatus: session.payment_status === 'no_payment_required' ? 'no_payment_required' : 'unpaid',
    expiresAt: session.expires_at.toISOString(),
    createdAt: session.created_at.toISOString(),
    ...(generatedNotificationSecret ? { notificationSecret: generatedNotificationSecret } : {}),
  };
}

/** The payment options a session offers, from the merchant's enabled options. */
export function allowedPaymentMethods(session: CheckoutSessionRow, merchant: Merchant): Schemas['CheckoutSessionPaymentOption'][] {
  const options = merchant.payment_options.filter((o) => o.enabled);
  const hold = session.capture_method === 'manual';
  const methods: Schemas['CheckoutSessionPaymentOption'][] = [];
  if (options.some((o) => o.method === 'CreditCard' && (!hold || o.canHold))) methods.push('card');
  if (session.allow_saved_cards) methods.push('saved_card');
  if (session.enable_click_to_pay) methods.push('click_to_pay');
  // Wallets can neither hold a card nor keep one on file for renewals.
  if (!hold && session.payment_type !== 'subscription' && options.some((o) => o.method === 'GatewayWallet')) methods.push('wallet:qr');
  return methods;
}

/** Every retrieval field of the document. */
export function sessionRetrieved(session: CheckoutSessionRow, merchant: Merchant, payment?: PaymentRow): Schemas['CheckoutSession'] {
  return {
    object: 'checkout_session',
    id: session.id,
    sessionId: session.id,
    status: restStatus(session.status),
    amount: decimalToAmount(session.amount, session.currency),
    currency: session.currency,
    customerEmail: session.customer_email,
    customerFirstName: session.customer_first_name,
    customerLastName: session.customer_last_name,
    customerPhone: session.customer_phone,
    notifyCustomer: session.notify_customer,
    sendReceipt: session.send_receipt,
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
    refund: refundState(payment),
  };
}

/** A hold's state, as polling shows it. */
export interface HoldView {
  id: number;
  status: string;
  amount: string;
  authorized_amount: string | null;
  currency: string;
  authorization_expires_at: Date | null;
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
export function sessionStatus(session: CheckoutSessionRow, hold?: HoldView): Schemas['CheckoutSessionStatusResult'] {
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
export function sessionEventObject(session: CheckoutSessionRow, payment?: PaymentRow): Schemas['CheckoutSessionEventObject'] {
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
    customerEmail: session.customer_email,
    customerFirstName: session.customer_first_name,
    customerLastName: session.customer_last_name,
    customerPhone: session.customer_phone,
    notifyCustomer: session.notify_customer,
    sendReceipt: session.send_receipt,
    invoiceId: session.invoice_id,
    invoiceReference: session.invoice_reference,
    isLive: session.livemode,
    metadata: session.metadata,
    createdAt: session.created_at.toISOString(),
    refund: refundState(payment),
  };
}
