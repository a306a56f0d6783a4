// Refunding an invoice: its payments, newest first, by the refund rules of payments/refunds.ts.
// The invoice's payments are locked (in id order) for the whole call, so concurrent refunds of one
// invoice, or of one of its payments through the other refund operations, never add up to more
// than was paid. All or nothing: a refusal on any payment rolls the whole call back (the refused
// attempt alone is then recorded on its payment, as the session refund records it).
import { Decimal } from 'decimal.js';
import type { Kysely } from 'kysely';
import type { Trx } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { InvoiceRow } from '../invoices/invoice.tables.js';
import type { PaymentRow } from '../payments/payment.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { amountToDecimal } from '../../shared/money.js';
import type { Tenant } from '../../shared/tenant.js';
import { getInvoice } from '../invoices/invoice.service.js';
import { lockInvoicePayments } from '../payments/payment.repository.js';
import { isPaid, recordFailedRefundAttempt, type RefundOutcome, refundableAmount, refundPayment } from '../payments/refunds.js';
import { afterRefund } from '../checkout/payment-operations.js';

/** What an invoice refund came to. */
export interface InvoiceRefundOutcome {
  /** The invoice after the call. */
  invoice: InvoiceRow;
  alreadyRefunded: boolean;
  /** Refunded by this call, over all payments. */
  amount: string;
  /** What is left to refund over the invoice's paid payments. */
  refundable: string;
  /** One per payment this call refunded, newest first. */
  refunds: RefundOutcome[];
}

/** A refusal on one payment, carried out of the transaction so that it rolls back. */
export class RefusedRefund extends Error {
  constructor(
    readonly error: AppError,
    readonly payment: PaymentRow,
  ) {
    super(error.message);
  }
}

const noPayment = (id: number) =>
  new AppError('nothing_to_refund', {
    message: `Invoice ${id} has no payment to refund.`,
    data: { refundable: false, reason: 'no_payment', manualRefundRequired: false },
  });

/**
 * Refunds `amount` (all that is left when absent) of one of the tenant's invoices, from its
 * payments newest first. Each payment refunded writes `invoice.refunded` and `payment.refunded`.
 */
export async function refundInvoice(
  db: Kysely<Database>,
  clock: Clock,
  tenant: Tenant,
  invoiceId: number,
  input: { amount?: number | string | undefined; reason?: string | undefined },
): Promise<InvoiceRefundOutcome> {
  try {
    return await db.transaction().execute((trx) => refundInTransaction(trx, clock, tenant, invoiceId, input));
  } catch (err) {
    if (!(err instanceof RefusedRefund)) throw err;
    if (err.error.code === 'refund_failed') await db.transaction().execute((trx) => recordFailedRefundAttempt(trx, clock, err.payment));
    throw err.error;
  }
}

async function refundInTransaction(
  trx: Trx,
  clock: Clock,
  tenant: Tenant,
  invoiceId: number,
  input: { amount?: number | string | undefined; reason?: string | undefined },
): Promise<InvoiceRefundOutcome> {
  const invoice = await getInvoice(trx, tenant, invoiceId);
  const payments = (await lockInvoicePayments(trx, tenant, invoiceId)).reverse();
  const paid = payments.filter(isPaid);
  const left = paid.reduce((sum, p) => sum.plus(refundableAmount(p)), new Decimal(0));
  if (payments.some((p) => p.status === 'pending_reversal')) {
    throw new AppError('payment_not_refundable', {
      status: 409,
      message: 'A refund of a payment of this invoice is under way; it completes on its own.',
      data: { refundable: false, reason: 'refund_pending', manualRefundRequired: false },
    });
  }
  if (left.isZero()) {
    if (payments.some((p) => p.status === 'refunded')) return { invoice, alreadyRefunded: true, amount: '0', refundable: '0', refunds: [] };
    if (payments.some((p) => p.status === 'authorized')) {
      throw new AppError('payment_not_refundable', {
        status: 400,
        message: "This invoice's payment is not paid yet (a hold must be captured first), so there is nothing to refund.",
        data: { refundable: false, reason: 'not_paid', manualRefundRequired: false },
      });
    }
    throw noPayment(invoiceId);
  }
  const asked = input.amount === undefined ? left : new Decimal(amountToDecimal(input.amount, invoice.currency));
  if (asked.lessThanOrEqualTo(0)) throw new AppError('validation_error', { param: 'amount', message: 'amount must be more than 0.' });
  if (asked.greaterThan(left))
    throw new AppError('validation_error', {
      param: 'amount',
      message: `amount (${asked.toFixed()}) is more than is left to refund on this invoice (${left.toFixed()}).`,
    });
  const refunds = await refundNewestFirst(trx, clock, paid, asked, input.reason);
  return {
    invoice: await getInvoice(trx, tenant, invoiceId),
    alreadyRefunded: false,
    amount: asked.toFixed(),
    refundable: left.minus(asked).toFixed(),
    refunds,
  };
}

/** Takes `amount` from the payments in order, each up to what is left of it; a refusal on any throws (rolling all back). */
async function refundNewestFirst(trx: Trx, clock: Clock, paid: PaymentRow[], amount: Decimal, reason: string | undefined): Promise<RefundOutcome[]> {
  const refunds: RefundOutcome[] = [];
  let remaining = amount;
  for (const payment of paid) {
    if (remaining.isZero()) break;
    const share = Decimal.min(remaining, refundableAmount(payment));
    if (share.isZero()) continue;
    const result = await refundPayment(trx, clock, payment, { amount: share.toFixed(), reason });
    if (result instanceof AppError) throw new RefusedRefund(result, payment);
    await afterRefund(trx, clock, result);
    refunds.push(result);
    remaining = remaining.minus(share);
  }
  return refunds;
}
