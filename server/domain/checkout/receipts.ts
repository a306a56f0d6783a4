// What a checkout session tells its payer by email and text message, written to the outbox in the
// transaction of the change it reports (so a message exists exactly when its change does):
// - a receipt (`sendReceipt`, with the payer's email) when a payment succeeds, a hold is captured,
//   or a refund is made; nothing at a hold's authorization ("nothing is receipted until capture");
// - the session's invoice (`notifyCustomer`), by email and by text, when the session is created.
import { Decimal } from 'decimal.js';
import type { Db } from '../../db/database.js';
import type { CheckoutSessionRow } from './session.tables.js';
import type { PaymentMethodRow, PaymentRow } from '../payments/payment.tables.js';
import type { Clock } from '../../shared/clock.js';
import { minorUnits } from '../../shared/money.js';
import { tenantOf } from '../../shared/tenant.js';
import { getMerchant } from '../merchants/merchant.service.js';
import { recordMessage } from '../messages/message.service.js';
import { cardOf } from '../payments/payment.service.js';
import { findSessionRow } from './session.repository.js';

const BRANDS: Record<string, string> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  discover: 'Discover',
  diners: 'Diners Club',
  jcb: 'JCB',
  unionpay: 'UnionPay',
  maestro: 'Maestro',
};

/** `42.50 USD`: exact, in the currency's minor unit. */
const money = (amount: Decimal.Value, currency: string) => `${new Decimal(amount).toFixed(minorUnits(currency))} ${currency}`;
const when = (at: Date) => `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
const paidWith = (card: PaymentMethodRow | null) => (card ? `${BRANDS[card.brand] ?? card.brand} ending in ${card.last4}` : 'Wallet QR');

/** Where the receipt goes: the session's payer email, or the email given with the card. */
function receiptTo(session: CheckoutSessionRow, card: PaymentMethodRow | null): string | null {
  return session.send_receipt ? (session.customer_email ?? card?.billing_email ?? null) : null;
}

async function sendReceipt(db: Db, clock: Clock, session: CheckoutSessionRow, to: string, subject: string, lines: string[]): Promise<void> {
  await recordMessage(db, clock, { tenant: tenantOf(session), channel: 'email', kind: 'receipt', to, subject, body: lines.join('\n'), sessionId: session.id });
}

/** The receipt of a payment that succeeded, or of a hold when it is captured (`captured`). */
export async function paymentReceipt(
  db: Db,
  clock: Clock,
  session: CheckoutSessionRow,
  payment: PaymentRow,
  card: PaymentMethodRow | null,
  captured = false,
): Promise<void> {
  const to = receiptTo(session, card);
  if (!to) return;
  const merchant = await getMerchant(db, session.merchant_id);
  const amount = captured ? (payment.captured_amount ?? payment.amount) : payment.amount;
  const lines = [
    `Receipt from ${merchant.name}`,
    '',
    `Amount paid: ${money(amount, payment.currency)}`,
    ...(captured && payment.authorized_amount
      ? [`Authorized earlier: ${money(payment.authorized_amount, payment.currency)}; only the amount paid was charged.`]
      : []),
    `Paid with: ${paidWith(card)}`,
    `Reference: ${payment.reference_number}`,
    `Date: ${when(clock.now())}`,
    ...session.line_items.map((item) => `- ${item.name} x ${item.quantity}: ${money(new Decimal(item.unitAmount).times(item.quantity), session.currency)}`),
    '',
    `Thank you for your payment. Questions? Reply to ${merchant.name} quoting ${payment.reference_number}.`,
  ];
  await sendReceipt(db, clock, session, to, `Your receipt from ${merchant.name} (${payment.reference_number})`, lines);
}

/** The receipt of a refund made on a session's payment: what was refunded, and what is left. */
export async function refundReceipt(db: Db, clock: Clock, payment: PaymentRow, amount: string): Promise<void> {
  if (payment.session_id === null) return;
  const session = await findSessionRow(db, tenantOf(payment), payment.session_id);
  const card = await cardOf(db, payment);
  const to = session && receiptTo(session, card);
  if (!session || !to) return;
  const merchant = await getMerchant(db, session.merchant_id);
  const charged = payment.captured_amount ?? payment.amount;
  const lines = [
    `Refund from ${merchant.name}`,
    '',
    `Refunded now: ${money(amount, payment.currency)}`,
    `Refunded in all: ${money(payment.refunded_amount, payment.currency)} of ${money(charged, payment.currency)}`,
    `Left on the payment: ${money(new Decimal(charged).minus(payment.refunded_amount), payment.currency)}`,
    `To: ${paidWith(card)}`,
    `Reference: ${payment.reference_number}`,
    `Date: ${when(clock.now())}`,
    '',
    'Your bank may take a few days to show it.',
  ];
  await sendReceipt(db, clock, session, to, `Your refund from ${merchant.name} (${payment.reference_number})`, lines);
}

/**
 * `notifyCustomer`: the session's invoice by email and by text message, to whichever of the
 * payer's address and phone the session has, with the link to pay a hosted session.
 */
export async function notifyPayer(db: Db, clock: Clock, session: CheckoutSessionRow, payUrl: string | null): Promise<void> {
  if (!session.notify_customer) return;
  const merchant = await getMerchant(db, session.merchant_id);
  const amount = money(session.amount, session.currency);
  const what = session.description ?? (session.line_items.map((item) => item.name).join(', ') || `your order with ${merchant.name}`);
  const pay = payUrl ? `Pay here: ${payUrl}` : `Complete the payment on ${merchant.name}'s website.`;
  const base = { tenant: tenantOf(session), kind: 'checkout_notification' as const, sessionId: session.id };
  if (session.customer_email) {
    const body = [`${merchant.name} sent you an invoice.`, '', `Amount due: ${amount}`, `For: ${what}`, `Pay by: ${when(session.expires_at)}`, '', pay].join(
      '\n',
    );
    await recordMessage(db, clock, { ...base, channel: 'email', to: session.customer_email, subject: `Invoice from ${merchant.name}: ${amount}`, body });
  }
  if (session.customer_phone) {
    await recordMessage(db, clock, { ...base, channel: 'sms', to: session.customer_phone, body: `${merchant.name}: ${amount} due for ${what}. ${pay}` });
  }
}

/** The receipt of a captured hold: its session and card are read here. */
export async function captureReceipt(db: Db, clock: Clock, payment: PaymentRow): Promise<void> {
  const session = payment.session_id === null ? undefined : await findSessionRow(db, tenantOf(payment), payment.session_id);
  if (session) await paymentReceipt(db, clock, session, payment, await cardOf(db, payment), true);
}
