// A refund through `payinvoice` (`originalPaymentReference`): the referenced payment of the tenant
// is refunded, in part or in full, by the refund rules of payments/refunds.ts. It never charges:
// the payment option and the card of the request are not used. The refund follows the payment's
// rail (an account-balance payment goes back to the account that paid; a bank transfer cannot be
// refunded through the API). A refusal rolls back; a failed attempt alone is then recorded.
import type { Kysely } from 'kysely';
import type { Trx } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { InvoiceRow } from '../invoices/invoice.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import type { Tenant } from '../../shared/tenant.js';
import { getInvoice, getInvoiceByIdentifier } from '../invoices/invoice.service.js';
import { getMerchant } from '../merchants/merchant.service.js';
import { findPaymentByReference } from '../payments/payment.repository.js';
import { recordFailedRefundAttempt, type RefundOutcome, refundableAmount, refundPayment } from '../payments/refunds.js';
import { afterRefund } from '../checkout/payment-operations.js';
import { RefusedRefund } from './invoice-refund.js';
import type { InvoicePaymentResult } from './pay-invoice.js';
import { optionOf } from './payment-details.js';

/** What a refund by reference asks: the payment, optionally the invoice it must be of, and how much (all that is left by default). */
export interface RefundByReference {
  originalPaymentReference: string;
  invoiceId?: number | undefined;
  invoiceIdentifier?: string | undefined;
  amount?: string | undefined;
}

/** The refunded payment as `payinvoice` answers it, with what this call refunded and what is left to refund. */
export interface PaymentRefundResult extends InvoicePaymentResult {
  refund: RefundOutcome & { left: string };
}

const notOfThisInvoice = (reference: string) =>
  new AppError('validation_error', {
    param: 'originalPaymentReference',
    message: `Payment ${reference} is not a payment of the invoice named by invoiceId or invoiceIdentifier.`,
  });

/** The invoice the caller named must be the payment's, when it named one. */
async function checkNamedInvoice(trx: Trx, input: RefundByReference, invoice: InvoiceRow): Promise<void> {
  if (input.invoiceId !== undefined && input.invoiceId !== invoice.id) throw notOfThisInvoice(input.originalPaymentReference);
  if (input.invoiceIdentifier === undefined) return;
  const named = await getInvoiceByIdentifier(trx, input.invoiceIdentifier).catch(() => undefined);
  if (named?.id !== invoice.id) throw notOfThisInvoice(input.originalPaymentReference);
}

async function refundInTransaction(trx: Trx, clock: Clock, tenant: Tenant, input: RefundByReference): Promise<PaymentRefundResult> {
  const payment = await findPaymentByReference(trx, tenant, input.originalPaymentReference);
  if (!payment || payment.invoice_id === null)
    throw new AppError('resource_not_found', {
      param: 'originalPaymentReference',
      message: `No payment of this merchant and mode has the reference ${input.originalPaymentReference}.`,
    });
  await checkNamedInvoice(trx, input, await getInvoice(trx, tenant, payment.invoice_id));
  const outcome = await refundPayment(trx, clock, payment, { amount: input.amount });
  if (outcome instanceof AppError) throw new RefusedRefund(outcome, payment);
  if (!outcome.alreadyRefunded) await afterRefund(trx, clock, outcome);
  const option = await optionOf(trx, await getMerchant(trx, tenant.merchantId), outcome.payment);
  if (!option) throw new AppError('payment_not_refundable', { status: 400, message: 'This payment was not made through a payment option of this merchant.' });
  return {
    payment: outcome.payment,
    invoice: await getInvoice(trx, tenant, payment.invoice_id),
    option,
    action: { type: 'none' },
    threeDSecure: false,
    refund: { ...outcome, left: refundableAmount(outcome.payment).toFixed() },
  };
}

/** Refunds the tenant's payment named by `originalPaymentReference` (all that is left of it, or `amount`). */
export async function refundByReference(db: Kysely<Database>, clock: Clock, tenant: Tenant, input: RefundByReference): Promise<PaymentRefundResult> {
  try {
    return await db.transaction().execute((trx) => refundInTransaction(trx, clock, tenant, input));
  } catch (err) {
    if (!(err instanceof RefusedRefund)) throw err;
    if (err.error.code === 'refund_failed') await db.transaction().execute((trx) => recordFailedRefundAttempt(trx, clock, err.payment));
    throw err.error;
  }
}
