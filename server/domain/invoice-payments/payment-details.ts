// A payment as the Commerce interface shows it (`GET /v1/payment/{id}`): the payment, the invoice
// it pays, the payment option it used and what the payer must still do. Also its capture, and the
// sandbox's arrival of a bank transfer or wallet payment that waits for the payer.
import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { CheckoutSessionRow } from '../checkout/session.tables.js';
import type { InvoiceRow } from '../invoices/invoice.tables.js';
import type { Merchant, PaymentOption } from '../merchants/merchant.tables.js';
import type { PaymentRow } from '../payments/payment.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import type { Tenant } from '../../shared/tenant.js';
import { getInvoice } from '../invoices/invoice.service.js';
import { cancelSessionRaisedInvoice, PAYABLE_STATUSES } from '../invoices/invoice-paying.js';
import { getMerchant } from '../merchants/merchant.service.js';
import { lockOpenChallengeOf } from '../payments/challenge.repository.js';
import { lapseIfDue } from '../payments/holds.js';
import { cardOf, getPayment } from '../payments/payment.service.js';
import { lockInvoicePayments } from '../payments/payment.repository.js';
import { bankTransferInstructions } from './bank-transfer.js';
import type { InvoicePaymentResult } from './pay-invoice.js';
import type { PayerAction } from './payers.js';
import { captureHold } from '../checkout/payment-operations.js';
import { getSession } from '../checkout/session.service.js';
import { payQr } from '../checkout/session-qr.js';

/** A payment with its invoice, the option it used and what the payer must still do; `invoice` and `option` are null when there are none (a Checkout payment that failed before its invoice was raised). */
export interface PaymentDetails extends Omit<InvoicePaymentResult, 'invoice' | 'option'> {
  invoice: InvoiceRow | null;
  option: PaymentOption | null;
}

/** The merchant's payment option a payment used: the one recorded, else by wallet, bank transfer, account balance, or the card's brand. */
export async function optionOf(db: Db, merchant: Merchant, payment: PaymentRow): Promise<PaymentOption | null> {
  const options = merchant.payment_options;
  if (payment.payment_option_id !== null) return options.find((o) => o.id === payment.payment_option_id) ?? null;
  if (payment.awaits_hosted_page) return null;
  if (payment.method_type === 'wallet') return options.find((o) => o.method === 'GatewayWallet') ?? null;
  if (payment.method_type === 'bank_transfer') return options.find((o) => o.method === 'BankTransfer') ?? null;
  if (payment.method_type === 'account_balance') return options.find((o) => o.method === 'AccountBalance') ?? null;
  const card = await cardOf(db, payment);
  return (card && options.find((o) => o.name.toLowerCase() === card.brand)) ?? null;
}

/** What the payer must still do for a payment that waits (3-D Secure, a QR scan, a bank transfer). */
async function actionOf(db: Kysely<Database>, merchant: Merchant, payment: PaymentRow, session: CheckoutSessionRow | undefined): Promise<PayerAction> {
  if (payment.awaits_hosted_page) return payment.status === 'pending' ? { type: 'hosted_page' } : { type: 'none' };
  if (!session) return { type: 'none' };
  if (payment.status === 'requires_action') {
    const challenge = await lockOpenChallengeOf(db, { merchantId: payment.merchant_id, livemode: payment.livemode }, session.id);
    return challenge ? { type: 'redirect_to_3ds', challengeId: challenge.id } : { type: 'none' };
  }
  if (payment.status !== 'pending') return { type: 'none' };
  if (payment.method_type === 'wallet' && payment.qr_data) return { type: 'display_qr', data: payment.qr_data };
  if (payment.method_type === 'bank_transfer') return { type: 'bank_transfer', instructions: bankTransferInstructions(merchant, payment, session.expires_at) };
  return { type: 'none' };
}

/** A hold past its period lapses now (as the job would): released, its raised invoice cancelled, `payment.authorization_expired`. */
async function lapseHoldIfDue(db: Kysely<Database>, clock: Clock, tenant: Tenant, payment: PaymentRow): Promise<PaymentRow> {
  if (payment.status !== 'authorized' || !payment.authorization_expires_at || payment.authorization_expires_at > clock.now()) return payment;
  return db.transaction().execute(async (trx) => {
    const { payment: after, lapsed } = await lapseIfDue(trx, clock, await getPayment(trx, tenant, payment.id, { lock: true }));
    if (lapsed && after.invoice_id) await cancelSessionRaisedInvoice(trx, tenant, after.invoice_id);
    return after;
  });
}

/**
 * A payment created without an option follows its invoice: while payable it waits for the payer
 * on the hosted page; once paid, it is answered as the payment that paid it there (under its own id
 * and reference); cancelled or expired unpaid, it is answered as withdrawn (`Cancelled`).
 */
async function followHostedPage(db: Kysely<Database>, clock: Clock, tenant: Tenant, details: PaymentDetails): Promise<PaymentDetails> {
  const { payment, invoice } = details;
  if (!payment.awaits_hosted_page || payment.status !== 'pending' || !invoice) return details;
  if ((PAYABLE_STATUSES as readonly string[]).includes(invoice.status)) return details;
  const paidBy = (await db.transaction().execute((trx) => lockInvoicePayments(trx, tenant, invoice.id))).find(
    (p) => p.id !== payment.id && !['failed', 'pending', 'requires_action', 'withdrawn', 'expired'].includes(p.status),
  );
  if (!paidBy) return { ...details, payment: { ...payment, status: 'withdrawn' }, action: { type: 'none' } };
  const paid = await getPaymentDetails(db, clock, tenant, paidBy.id);
  const { id, reference_number, metadata, created_at, awaits_hosted_page } = payment;
  return { ...paid, payment: { ...paid.payment, id, reference_number, metadata, created_at, awaits_hosted_page } };
}

/** The tenant's payment with its details; 404 for anyone else's. A waiting payment or a hold whose time ran out expires first. */
export async function getPaymentDetails(db: Kysely<Database>, clock: Clock, tenant: Tenant, id: number): Promise<PaymentDetails> {
  let payment = await lapseHoldIfDue(db, clock, tenant, await getPayment(db, tenant, id));
  const session = payment.session_id ? await getSession(db, clock, tenant, payment.session_id) : undefined;
  if (session?.status === 'expired') payment = await getPayment(db, tenant, id);
  const invoiceId = payment.invoice_id ?? (session?.pays_invoice ? session.invoice_id : null);
  const merchant = await getMerchant(db, tenant.merchantId);
  const card = await cardOf(db, payment);
  return followHostedPage(db, clock, tenant, {
    // A payment of the Checkout interface records no brand of its own: its card's.
    payment: { ...payment, card_brand: payment.card_brand ?? card?.brand ?? null },
    invoice: invoiceId === null ? null : await getInvoice(db, tenant, invoiceId),
    option: await optionOf(db, merchant, payment),
    action: await actionOf(db, merchant, payment, session),
    threeDSecure: session !== undefined && card?.sandbox_outcome === 'requires_3ds',
  });
}

/** A captured payment with its details, and whether the capture had gone through before this call. */
export interface CapturedPayment extends PaymentDetails {
  alreadyDone: boolean;
}

/**
 * Captures a card hold made through the Commerce interface (or any checkout session), once: the
 * hold rules of the Checkout interface. A payment captured already is answered as it stands with
 * `alreadyDone` (nothing charged, posted or sent again).
 */
export async function captureHeldPayment(db: Kysely<Database>, clock: Clock, tenant: Tenant, id: number, amount: number | undefined): Promise<CapturedPayment> {
  const payment = await lapseHoldIfDue(db, clock, tenant, await getPayment(db, tenant, id));
  if (payment.session_id === null) throw new AppError('hold_not_capturable', { message: 'This payment is not a card hold.' });
  const { alreadyDone } = await captureHold(db, clock, tenant, id, { amount, anyRepeat: true });
  return { ...(await getPaymentDetails(db, clock, tenant, id)), alreadyDone };
}

/**
 * The sandbox payer's bank transfer arrives, or its wallet pays the QR code (the receive test
 * helper): the waiting payment succeeds and pays its invoice exactly as a wallet payment does.
 * A payment that does not wait for the payer, or whose invoice can no longer be paid, answers 409
 * `invalid_state`.
 */
export async function receivePayment(db: Kysely<Database>, clock: Clock, tenant: Tenant, id: number): Promise<{ payment: PaymentRow; invoice: InvoiceRow }> {
  const waiting = await getPayment(db, tenant, id);
  const notWaiting = (why: string) =>
    new AppError('invalid_state', { message: `Payment ${id} ${why}; only a bank transfer or wallet payment waiting for the payer can be received.` });
  if (waiting.method_type === 'card' || waiting.session_id === null) throw notWaiting('is a card payment');
  if (waiting.status !== 'pending') throw notWaiting(`is ${waiting.status}`);
  try {
    const { payment } = await payQr(db, clock, tenant, waiting.session_id);
    return { payment, invoice: await getInvoice(db, tenant, payment.invoice_id!) };
  } catch (error) {
    if (error instanceof AppError && error.code === 'invoice_not_payable') throw notWaiting(`pays an invoice that can no longer be paid (${error.message})`);
    if (error instanceof AppError && error.code === 'invalid_state') throw notWaiting('no longer waits for the payer (its time ran out)');
    throw error;
  }
}
