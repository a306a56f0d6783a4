// What a payment does to its session: charged in full (paid, its invoice paid, a subscription
// started), authorized for a hold, declined, or waiting for the payer. Confirm, the 3-D Secure
// page and the wallet all end here, so a session completes the same way whichever way it is paid.
import { Decimal } from 'decimal.js';
import type { Trx } from '../../db/database.js';
import type { CheckoutSessionRow } from './session.tables.js';
import type { InvoiceRow } from '../invoices/invoice.tables.js';
import type { PaymentMethodRow, PaymentRow } from '../payments/payment.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { tenantOf } from '../../shared/tenant.js';
import { subscriptionInvoicePaid } from '../billing/renewal.js';
import { startPaidSubscription } from '../billing/subscription-start.js';
import { amountDue } from '../invoices/invoice.lines.js';
import { lockPayableInvoice, payInvoice, raiseSessionInvoice, recordInvoicePaymentFailure } from '../invoices/invoice-paying.js';
import { getMerchant } from '../merchants/merchant.service.js';
import { authorizeHold, chargeInFull, declineCard, holdDaysFor, paymentEvent } from '../payments/payment.service.js';
import { paymentReceipt } from './receipts.js';
import { keepSessionCard } from './saved-cards.js';
import { updateSession } from './session.repository.js';
import { sessionEvent } from './session.service.js';

/** A session and the payment that moved it. */
export interface SessionPayment {
  session: CheckoutSessionRow;
  payment: PaymentRow;
}

/**
 * The invoice a session's payment goes to. A session paying an existing invoice uses that one
 * (locked, and still payable for exactly the session's amount); any other one-time session raises
 * its own invoice for its payer. `pay` records the payment on it now; otherwise the capture will.
 */
async function sessionInvoice(trx: Trx, clock: Clock, session: CheckoutSessionRow, pay: boolean): Promise<InvoiceRow> {
  // A raised invoice is paid as it is inserted: one statement, and no pending row left behind.
  if (!session.pays_invoice || session.invoice_id === null) return raiseSessionInvoice(trx, clock, session, { paid: pay });
  const invoice = await lockPayableInvoice(trx, tenantOf(session), session.invoice_id);
  // A Commerce payment may pay part of what is due; a checkout session pays exactly all of it.
  const due = amountDue(invoice);
  if (session.origin === 'commerce' ? due.lessThan(session.amount) : !due.equals(new Decimal(session.amount))) {
    throw new AppError('invoice_not_payable', { message: 'The amount due on this invoice changed since the session was created; create a new session.' });
  }
  return pay ? payInvoice(trx, clock, invoice, session.amount) : invoice;
}

async function completeSession(
  trx: Trx,
  clock: Clock,
  session: CheckoutSessionRow,
  payment: PaymentRow,
  paymentStatus: 'paid' | 'authorized',
  invoiceId: number,
): Promise<CheckoutSessionRow> {
  return (await updateSession(trx, tenantOf(session), session.id, {
    status: 'completed',
    payment_status: paymentStatus,
    payment_id: payment.id,
    invoice_id: invoiceId,
    completed_at: clock.now(),
  }))!;
}

/**
 * Charges a session in full: one succeeded payment, one paid invoice recording the payer, the
 * payment and its fee in the ledger, the session completed, the card kept on file where the
 * session allows it, and a subscription session's subscription started; `payment.succeeded` then
 * `checkout.session.completed`. `method` is null for payments that are not by card. `waiting` is
 * the session's payment that waited for the payer (3-D Secure, a wallet QR code): it becomes this one.
 */
export async function chargeSession(
  trx: Trx,
  clock: Clock,
  session: CheckoutSessionRow,
  method: PaymentMethodRow | null,
  waiting?: PaymentRow,
): Promise<SessionPayment> {
  const invoice = await sessionInvoice(trx, clock, session, true);
  const payment = await chargeInFull(trx, clock, session, method, invoice.id, waiting);
  await keepSessionCard(trx, clock, session, method);
  const paid = await completeSession(trx, clock, session, payment, 'paid', invoice.id);
  await paymentEvent(trx, clock, 'payment.succeeded', payment, method);
  await subscriptionInvoicePaid(trx, clock, invoice, payment.id);
  await paymentReceipt(trx, clock, paid, payment, method);
  const subscription = await startPaidSubscription(trx, clock, paid, payment, method);
  const completed = subscription ? (await updateSession(trx, tenantOf(paid), paid.id, { subscription_id: subscription.id }))! : paid;
  await sessionEvent(trx, clock, 'checkout.session.completed', completed, payment);
  return { session: completed, payment };
}

/**
 * Authorizes a hold session's card for the option's hold period (7 days by default): the session
 * completes with payment status authorized, its invoice is raised pending (paid at capture,
 * cancelled at release or lapse); `payment.authorized` then `checkout.session.completed`.
 */
export async function authorizeSession(
  trx: Trx,
  clock: Clock,
  session: CheckoutSessionRow,
  method: PaymentMethodRow,
  waiting?: PaymentRow,
): Promise<SessionPayment> {
  const merchant = await getMerchant(trx, session.merchant_id);
  const invoice = await sessionInvoice(trx, clock, session, false);
  const payment = await authorizeHold(trx, clock, session, method, invoice.id, holdDaysFor(merchant.payment_options, method.brand), waiting);
  await keepSessionCard(trx, clock, session, method);
  const completed = await completeSession(trx, clock, session, payment, 'authorized', invoice.id);
  await paymentEvent(trx, clock, 'payment.authorized', payment, method);
  await sessionEvent(trx, clock, 'checkout.session.completed', completed, payment);
  return { session: completed, payment };
}

/**
 * Records a declined or failed card payment (`payment.failed`, and `invoice.payment_failed` for a
 * session paying an invoice); the session stays payable. Answers the error to give the payer.
 */
export async function declineSession(trx: Trx, clock: Clock, session: CheckoutSessionRow, method: PaymentMethodRow): Promise<AppError> {
  const { error } = await declineCard(trx, clock, session, method);
  await recordInvoicePaymentFailure(trx, clock, session);
  return error;
}

/** A session whose payment now waits for the payer (3-D Secure, a wallet QR code): `payment_pending`, pointing at that payment. */
export async function awaitPayer(trx: Trx, session: CheckoutSessionRow, payment: PaymentRow, paymentStatus: 'unpaid' | 'pending'): Promise<CheckoutSessionRow> {
  return (await updateSession(trx, tenantOf(session), session.id, { status: 'payment_pending', payment_status: paymentStatus, payment_id: payment.id }))!;
}
