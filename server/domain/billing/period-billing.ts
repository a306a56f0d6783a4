// Billing one period of a subscription: its invoice is raised (plan × quantity per item, exact,
// and each metered item's usage of the period that ended × its unit price, less any credit from a downgrade) and charged at once to the card on file, as a merchant-initiated
// payment. Renewals, trial ends, resumes and dunning retries all charge through here.
import { Decimal } from 'decimal.js';
import type { Trx } from '../../db/database.js';
import type { InvoiceRow } from '../invoices/invoice.tables.js';
import type { PaymentMethodRow, PaymentRow } from '../payments/payment.tables.js';
import type { SubscriptionDetails, SubscriptionRow } from './subscription.tables.js';
import type { Clock } from '../../shared/clock.js';
import { minorUnits } from '../../shared/money.js';
import { type Tenant, tenantOf } from '../../shared/tenant.js';
import { addInterval } from '../../shared/time.js';
import { findOwnCustomer } from '../customers/customer.service.js';
import { invoicePaymentFailed, markPaidByCredit, raiseBillingInvoice } from '../invoices/invoice-billing.js';
import { getInvoice } from '../invoices/invoice.service.js';
import { payInvoice } from '../invoices/invoice-paying.js';
import { getMerchant } from '../merchants/merchant.service.js';
import { recordMessage } from '../messages/message.service.js';
import { markUsageBilled, unbilledUsage } from './usage.repository.js';
import { type CardOnFileOutcome, chargeCardOnFile } from '../payments/card-on-file-charge.js';

const MONTHS: Record<string, number> = { month: 1, year: 12 };

/**
 * The end of the period that contains `from`: the first instant after it that is a whole number
 * of intervals from the billing anchor (calendar months and years keep the anchor's day, or the
 * month's last day when it is shorter; they never drift to it).
 */
export function periodEndAfter(s: Pick<SubscriptionRow, 'billing_anchor' | 'interval' | 'interval_count'>, from: Date): Date {
  const anchor = s.billing_anchor;
  const months = MONTHS[s.interval];
  const elapsed = months
    ? (from.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + from.getUTCMonth() - anchor.getUTCMonth()
    : Math.floor((from.getTime() - anchor.getTime()) / (s.interval === 'week' ? 7 * 86_400_000 : 86_400_000));
  let k = Math.max(1, Math.floor(elapsed / ((months ?? 1) * s.interval_count)));
  while (addInterval(anchor, s.interval, k * s.interval_count).getTime() <= from.getTime()) k++;
  while (k > 1 && addInterval(anchor, s.interval, (k - 1) * s.interval_count).getTime() > from.getTime()) k--;
  return addInterval(anchor, s.interval, k * s.interval_count);
}

/** A period's invoice (null when there was nothing to bill), and how its charge went. */
export interface PeriodBill {
  invoice: InvoiceRow | null;
  /** True when the invoice is paid (by the card, or all by credit). */
  paid: boolean;
  payment: PaymentRow | null;
  /** The credit the invoice used up. */
  creditUsed: string;
  failure: { code: string; message: string } | null;
}

const money = (amount: Decimal.Value, currency: string) => `${new Decimal(amount).toFixed(minorUnits(currency))} ${currency}`;
const day = (at: Date) => at.toISOString().slice(0, 10);

/** The span of time whose recorded usage an invoice bills (after it: metered items bill in arrears). */
export interface UsageWindow {
  start: Date;
  /** Usage recorded before this instant and not billed yet is billed. */
  end: Date;
}

/**
 * A period's invoice lines: each licensed item's plan × quantity for `period` (in advance), and
 * each metered item's unbilled usage before `usage.end` × its unit price (in arrears; no line when
 * it used nothing).
 */
async function periodLines(trx: Trx, s: SubscriptionDetails, period: { start: Date; end: Date }, usage: UsageWindow | undefined) {
  const metered = usage !== undefined && s.items.some((item) => item.is_metered);
  const units = metered ? await unbilledUsage(trx, tenantOf(s), s.id, usage.end) : new Map<number, string>();
  return s.items.flatMap((item) => {
    if (!item.is_metered)
      return [{ name: item.plan_name, description: `${day(period.start)} to ${day(period.end)}`, quantity: item.quantity, unitAmount: item.amount }];
    const used = units.get(item.id);
    if (!usage || used === undefined) return [];
    return [
      {
        name: `${item.plan_name} (usage)`,
        description: `${used} units used, ${day(usage.start)} to ${day(usage.end)}`,
        quantity: Number(used),
        unitAmount: item.amount,
      },
    ];
  });
}

/**
 * Raises the invoice of a period: its lines (periodLines), less the credit (at most the total).
 * Nothing is raised when there is no line (a metered subscription that used nothing). An invoice
 * of usage only covers the usage window and is due when raised; the usage it bills is marked billed.
 */
async function raisePeriodInvoice(
  trx: Trx,
  clock: Clock,
  s: SubscriptionDetails,
  period: { start: Date; end: Date },
  usage: UsageWindow | undefined,
): Promise<{ invoice: InvoiceRow; creditUsed: string } | undefined> {
  const tenant = tenantOf(s);
  const lines = await periodLines(trx, s, period, usage);
  if (lines.length === 0) return undefined;
  const customer = await findOwnCustomer(trx, tenant, s.customer_id);
  const gross = lines.reduce((sum, line) => sum.plus(new Decimal(line.unitAmount).times(line.quantity)), new Decimal(0));
  const creditUsed = Decimal.min(new Decimal(s.credit_balance), gross).toFixed();
  const covered = usage && s.items.every((item) => item.is_metered) ? usage : period;
  const invoice = await raiseBillingInvoice(trx, clock, {
    tenant,
    subscriptionId: s.id,
    customer: { id: s.customer_id, email: customer?.email ?? null, name: customer?.name ?? null },
    currency: s.currency,
    lines,
    credit: creditUsed,
    periodStart: covered.start,
    periodEnd: covered.end,
    dueDate: covered === period ? period.start : clock.now(),
    description: `${s.plan_name}, ${day(covered.start)} to ${day(covered.end)}`,
  });
  if (usage && s.items.some((item) => item.is_metered)) await markUsageBilled(trx, tenant, s.id, usage.end, invoice.id);
  return { invoice, creditUsed };
}

/** Emails the customer the receipt of a paid period. */
async function periodReceipt(trx: Trx, clock: Clock, tenant: Tenant, invoice: InvoiceRow, payment: PaymentRow, card: PaymentMethodRow): Promise<void> {
  if (!invoice.payer_email) return;
  const merchant = await getMerchant(trx, tenant.merchantId);
  const lines = [
    `Receipt from ${merchant.name}`,
    '',
    `Amount paid: ${money(payment.amount, payment.currency)}`,
    `For: ${invoice.description ?? 'your subscription'}`,
    `Invoice: ${invoice.invoice_number}`,
    `Paid with: ${card.brand} ending in ${card.last4}`,
    `Reference: ${payment.reference_number}`,
    `Date: ${clock.now().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
  ];
  await recordMessage(trx, clock, {
    tenant,
    channel: 'email',
    kind: 'receipt',
    to: invoice.payer_email,
    subject: `Your receipt from ${merchant.name} (${payment.reference_number})`,
    body: lines.join('\n'),
  });
}

/**
 * Charges an open invoice of the subscription to its card on file: paid (`payment.succeeded`,
 * `invoice.paid`, a receipt) or not (`payment.failed` when a card was tried, `invoice.payment_failed`).
 */
export async function chargeInvoice(
  trx: Trx,
  clock: Clock,
  s: Pick<SubscriptionRow, 'merchant_id' | 'livemode' | 'id' | 'payment_method_id'>,
  invoiceId: number,
): Promise<Omit<PeriodBill, 'creditUsed'> & { invoice: InvoiceRow }> {
  const tenant = tenantOf(s);
  const invoice = await getInvoice(trx, tenant, invoiceId, { lock: true });
  const due = new Decimal(invoice.total).minus(invoice.amount_paid);
  if (due.lessThanOrEqualTo(0))
    return { invoice: invoice.status === 'paid' ? invoice : await markPaidByCredit(trx, clock, invoice), paid: true, payment: null, failure: null };
  const outcome: CardOnFileOutcome = await chargeCardOnFile(trx, clock, {
    tenant,
    amount: due.toFixed(),
    currency: invoice.currency,
    invoiceId: invoice.id,
    paymentMethodId: s.payment_method_id,
    metadata: { subscriptionId: String(s.id), invoiceNumber: invoice.invoice_number },
  });
  if (!outcome.ok) {
    await invoicePaymentFailed(trx, clock, invoice);
    return { invoice, paid: false, payment: outcome.payment, failure: { code: outcome.code, message: outcome.message } };
  }
  const paid = await payInvoice(trx, clock, invoice, outcome.payment.amount);
  await periodReceipt(trx, clock, tenant, paid, outcome.payment, outcome.card);
  return { invoice: paid, paid: true, payment: outcome.payment, failure: null };
}

/**
 * Raises a period's invoice and charges it at once (with `usage`, metered items bill the usage of
 * that window). Nothing to bill is a paid bill without an invoice. The caller moves the
 * subscription by the outcome.
 */
export async function billPeriod(trx: Trx, clock: Clock, s: SubscriptionDetails, period: { start: Date; end: Date }, usage?: UsageWindow): Promise<PeriodBill> {
  const raised = await raisePeriodInvoice(trx, clock, s, period, usage);
  if (!raised) return { invoice: null, paid: true, payment: null, creditUsed: '0', failure: null };
  return { ...(await chargeInvoice(trx, clock, s, raised.invoice.id)), creditUsed: raised.creditUsed };
}

/**
 * A subscription with metered items ends (its scheduled cancellation, or a cancellation now): the
 * usage recorded before `end` and not billed yet is invoiced and charged at once. A failed charge
 * leaves that invoice open (`invoice.payment_failed`, payable from the invoice page); the
 * subscription ends either way. Without metered items nothing is billed.
 */
export async function billFinalUsage(trx: Trx, clock: Clock, s: SubscriptionDetails, end: Date): Promise<PeriodBill | undefined> {
  const metered = s.items.filter((item) => item.is_metered);
  if (metered.length === 0) return undefined;
  const window = { start: s.current_period_start, end };
  return billPeriod(trx, clock, { ...s, items: metered }, window, window);
}
