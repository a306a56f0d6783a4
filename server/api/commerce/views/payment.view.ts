// Payments on the Commerce wire: the payment response of `payinvoice`, and the payment object of
// `/v1/payment`. Amounts are numbers here; the status words are the Commerce interface's.
import { createHash } from 'node:crypto';
import { Decimal } from 'decimal.js';
import type { components } from '../../../../generated/commerce.js';
import type { PaymentRow } from '../../../domain/payments/payment.tables.js';
import type { CapturedPayment, PaymentDetails } from '../../../domain/invoice-payments/payment-details.js';
import type { InvoicePaymentResult } from '../../../domain/invoice-payments/pay-invoice.js';
import type { PayerAction, PayerCard } from '../../../domain/invoice-payments/payers.js';
import type { PaymentRefundResult } from '../../../domain/invoice-payments/payment-refund.js';
import { amountDue } from '../../../domain/invoices/invoice.lines.js';
import { decimalToAmount, minorUnits } from '../../../shared/money.js';
import { challengeUrl } from '../../../rails/issuer-challenge.js';
import { bankTransferPagePath } from '../../../domain/invoice-payments/bank-transfer.js';

type Schemas = components['schemas'];
type PaymentStatus = Schemas['PaymentStatus'];

/** A payment's status on the Commerce wire (holds are `Pending` while authorized). */
export function paymentStatusOf(p: PaymentRow): PaymentStatus {
  switch (p.status) {
    case 'succeeded':
    case 'captured':
    case 'partially_refunded':
      return 'Success';
    case 'requires_action':
      return 'CustomerAuthRequired';
    case 'pending':
      // A payment created without an option waits for the payer to choose one on the hosted page.
      return p.awaits_hosted_page ? 'Pending' : 'CustomerAuthRequired';
    case 'authorized':
      return 'Pending';
    case 'failed':
      return 'Failed';
    case 'refunded':
    case 'pending_reversal':
      return 'Refunded';
    default:
      return 'Cancelled';
  }
}

/** The rule of the contract, in one place: true exactly for `Success` and `CustomerAuthRequired`. */
export const isSuccess = (status: PaymentStatus): boolean => status === 'Success' || status === 'CustomerAuthRequired';

// The document's four values only: a bank transfer and the hosted invoice page are pages to send the payer to.
const APPROVAL: Record<PayerAction['type'], Schemas['PaymentApprovalAction']> = {
  none: 'None',
  redirect_to_3ds: 'Redirect',
  display_qr: 'QrCode',
  bank_transfer: 'Redirect',
  hosted_page: 'Redirect',
};

function approvalData(action: PayerAction, publicBaseUrl: string, invoiceIdentifier: string | undefined, paymentId: number): string | null {
  if (action.type === 'redirect_to_3ds') return challengeUrl(publicBaseUrl, action.challengeId);
  if (action.type === 'display_qr') return action.data;
  if (action.type === 'bank_transfer' && invoiceIdentifier) return `${publicBaseUrl}${bankTransferPagePath(invoiceIdentifier, paymentId)}`;
  if (action.type === 'hosted_page' && invoiceIdentifier) return `${publicBaseUrl}/invoice/${invoiceIdentifier}`;
  return null;
}

function hostMessage(p: PaymentRow, action: PayerAction): string | null {
  if (p.status === 'failed') return p.failure_message;
  if (action.type === 'redirect_to_3ds') return 'Customer authentication required';
  if (action.type === 'display_qr') return 'Scan to approve';
  if (action.type === 'bank_transfer') return 'Awaiting the bank transfer';
  if (action.type === 'hosted_page') return 'Awaiting the payer on the hosted page';
  if (p.status === 'authorized') return 'Authorized';
  return paymentStatusOf(p) === 'Success' ? 'Approved' : null;
}

/** The sandbox issuer's authorization code: six characters derived from the payment's reference. */
const authorizationCode = (p: PaymentRow): string | null =>
  p.method_type === 'card' && ['succeeded', 'captured', 'authorized', 'partially_refunded', 'refunded'].includes(p.status)
    ? createHash('sha256').update(p.reference_number).digest('hex').slice(0, 6).toUpperCase()
    : null;

const BRANDS: readonly string[] = ['visa', 'mastercard', 'amex', 'discover', 'diners', 'jcb', 'unionpay', 'maestro', 'unknown'];

/** The card's brand as the processor read it; null when no card was used. */
const cardBrandOf = (p: PaymentRow): Schemas['PaymentCardBrand'] =>
  p.card_brand === null ? null : ((BRANDS.includes(p.card_brand) ? p.card_brand : 'unknown') as Schemas['PaymentCardBrand']);

const taken = (p: PaymentRow): string =>
  ['succeeded', 'captured', 'partially_refunded', 'refunded', 'pending_reversal'].includes(p.status) ? (p.captured_amount ?? p.amount) : '0';

/** The answer of `POST /api/payment/payinvoice`. */
export function paymentResponseView(r: InvoicePaymentResult, publicBaseUrl: string): Schemas['PaymentResponse'] {
  const p = r.payment;
  const status = paymentStatusOf(p);
  const money = (value: string) => decimalToAmount(value, p.currency);
  return {
    paymentId: p.id,
    referenceNumber: p.reference_number,
    clientReferenceNumber: null,
    invoiceIdentifier: r.invoice.identifier,
    amountPaid: money(taken(p)),
    amountDue: money(amountDue(r.invoice).toFixed()),
    feePaid: money(status === 'Success' ? p.fee : '0'),
    currency: p.currency,
    paymentStatusId: status,
    paymentDateTime: p.created_at.toISOString(),
    paymentMethod: r.option.method as Schemas['PaymentMethod'],
    cardBrand: cardBrandOf(p),
    isSuccess: isSuccess(status),
    approvalAction: APPROVAL[r.action.type],
    approvalDataOrUrl: approvalData(r.action, publicBaseUrl, r.invoice.identifier, p.id),
    is3DSecureAuth: r.threeDSecure,
    authorizationCode: authorizationCode(p),
    hostMessage: hostMessage(p, r.action),
    ...(r.action.type === 'bank_transfer' ? { bankTransferInstructions: bankTransferView(r.action.instructions) } : {}),
  };
}

/**
 * The answer of `payinvoice` to a refund (`originalPaymentReference`): the refunded payment, the
 * refund made (`Success`, or accepted to complete later), never a charge (`amountPaid` 0).
 */
export function refundResponseView(r: PaymentRefundResult, publicBaseUrl: string): Schemas['PaymentResponse'] {
  const p = r.payment;
  const money = (value: string) => decimalToAmount(value, p.currency);
  const amount = `${new Decimal(r.refund.amount).toFixed(minorUnits(p.currency))} ${p.currency}`;
  const hostMessage = r.refund.alreadyRefunded
    ? 'Already refunded in full'
    : r.refund.completed
      ? `Refunded ${amount}`
      : `Refund of ${amount} accepted; it completes later`;
  return {
    ...paymentResponseView({ ...r, action: { type: 'none' } }, publicBaseUrl),
    amountPaid: 0,
    feePaid: 0,
    paymentStatusId: 'Success',
    isSuccess: true,
    hostMessage,
    refund: {
      amount: money(r.refund.amount),
      alreadyRefunded: r.refund.alreadyRefunded,
      completed: r.refund.completed,
      refundedAmount: money(p.refunded_amount),
      refundableAmount: money(r.refund.left),
    },
  };
}

function bankTransferView(i: Extract<PayerAction, { type: 'bank_transfer' }>['instructions']): Schemas['BankTransferInstructions'] {
  return { ...i, amount: decimalToAmount(i.amount, i.currency), expiresAt: i.expiresAt.toISOString() };
}

const HOLD_STATUS: Record<string, Schemas['CommercePaymentHoldStatus']> = {
  authorized: 'Authorized',
  captured: 'Captured',
  released: 'Released',
  expired: 'Expired',
  refunded: 'Captured',
  partially_refunded: 'Captured',
};

/** The payment object of `/v1/payment`. */
export function commercePaymentView(v: PaymentDetails, publicBaseUrl: string): Schemas['CommercePayment'] {
  const p = v.payment;
  const money = (value: string | null) => decimalToAmount(value ?? '0', p.currency);
  const status = paymentStatusOf(p);
  const manual = p.capture_method === 'manual';
  const authorized = p.authorized_amount ?? (status === 'Success' || status === 'Refunded' ? p.amount : '0');
  return {
    id: p.id,
    referenceNumber: p.reference_number,
    clientReferenceNumber: p.metadata.clientReferenceNumber ?? null,
    invoiceId: v.invoice?.id ?? null,
    invoiceIdentifier: v.invoice?.identifier ?? null,
    amount: money(p.amount),
    currency: p.currency,
    description: v.invoice?.description ?? null,
    status,
    paymentMethod: v.option ? (v.option.method as Schemas['PaymentMethod']) : null,
    paymentOptionId: v.option?.id ?? null,
    cardBrand: cardBrandOf(p),
    captureMethod: manual ? 'Manual' : 'Automatic',
    holdStatus: manual ? (HOLD_STATUS[p.status] ?? null) : null,
    authorizedAmount: money(authorized),
    capturedAmount: money(taken(p)),
    refundedAmount: money(p.refunded_amount),
    feePaid: money(new Decimal(taken(p)).greaterThan(0) ? p.fee : '0'),
    authorizationExpiresAt: p.status === 'authorized' && p.authorization_expires_at ? p.authorization_expires_at.toISOString() : null,
    approvalAction: APPROVAL[v.action.type],
    approvalDataOrUrl: approvalData(v.action, publicBaseUrl, v.invoice?.identifier, p.id),
    hostMessage: hostMessage(p, v.action),
    paymentDateTime: p.captured_at?.toISOString() ?? (p.status === 'authorized' ? p.created_at.toISOString() : null),
    createdDateTime: p.created_at.toISOString(),
  };
}

/** A capture's answer: the payment, and whether it had been captured already. */
export function commerceCaptureView(v: CapturedPayment, publicBaseUrl: string): Schemas['CommercePaymentCaptureResult'] {
  return { ...commercePaymentView(v, publicBaseUrl), alreadyDone: v.alreadyDone };
}

/** The card of a Commerce request (`MM/YY`, `cvv`) as the processor reads it. Never logged, never stored. */
export function payerCardOf(card: Schemas['PaymentCardInput'] | undefined): PayerCard | undefined {
  if (!card) return undefined;
  const [month, year] = card.expiryDate.split('/');
  return { cardNumber: card.cardNumber, expiryMonth: Number(month), expiryYear: 2000 + Number(year), cvc: card.cvv, name: card.name };
}
