// Paying an invoice through the Commerce interface (all or part of what is due, or a direct
// payment's own one-item invoice): the invoice is found and locked, the amount checked, a checkout
// session of its own opened (backing-session.ts), and the payer of the chosen option pays on it
// (payers.ts), in one transaction.
import { Decimal } from 'decimal.js';
import type { Kysely } from 'kysely';
import type { Trx } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { InvoiceRow } from '../invoices/invoice.tables.js';
import type { PaymentOption } from '../merchants/merchant.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { amountToDecimal, minorUnits } from '../../shared/money.js';
import { type Tenant, tenantOf } from '../../shared/tenant.js';
import { amountDue } from '../invoices/invoice.lines.js';
import { getInvoice, getInvoiceByIdentifier } from '../invoices/invoice.service.js';
import { assertPayable } from '../invoices/invoice-paying.js';
import { getMerchant } from '../merchants/merchant.service.js';
import { openBackingSession } from './backing-session.js';
import { enabledOption, type Paid, payerFor, type PayWith } from './payers.js';

/** A payment of an invoice as the payer asks for it: the invoice (by id or identifier), how much, and how it is paid. */
export interface InvoicePayment extends PayWith {
  invoiceId?: number | undefined;
  invoiceIdentifier?: string | undefined;
  /** Part of what is due (exact decimal text); all of it when left out. */
  amount?: string | undefined;
}

/** A payment of an invoice with one of the merchant's payment options: the payment, the invoice (as it is now), the option, what the payer must do. */
export interface InvoicePaymentResult extends Paid {
  invoice: InvoiceRow;
  option: PaymentOption;
}

/** A lookup that found nothing answers undefined; any other failure goes on. */
function unlessNotFound(error: unknown): undefined {
  if (error instanceof AppError && (error.code === 'resource_not_found' || error.code === 'invoice_not_found')) return undefined;
  throw error;
}

/** Only a wallet account (nothing else: no card, no funding source) pays another merchant's invoice. */
const paysFromAccountOnly = (input: InvoicePayment): boolean =>
  input.sourceAccountId !== undefined && input.fundingSourceId === undefined && input.card === undefined && input.invoiceId === undefined;

/**
 * The invoice named by id or identifier (both: the same one), locked and payable: the tenant's own,
 * or, paid from a wallet account by `invoiceIdentifier` alone, another merchant's in the same mode.
 */
async function lockInvoiceToPay(trx: Trx, tenant: Tenant, input: InvoicePayment): Promise<InvoiceRow> {
  if (input.invoiceId === undefined && input.invoiceIdentifier === undefined)
    throw new AppError('parameter_missing', { param: 'invoiceId', message: 'Send invoiceId or invoiceIdentifier: the invoice to pay.' });
  const param = input.invoiceId !== undefined ? 'invoiceId' : 'invoiceIdentifier';
  const notFound = () => new AppError('invoice_not_found', { param, message: 'No such invoice for this merchant and mode.' });
  let id = input.invoiceId;
  let payee = tenant;
  if (input.invoiceIdentifier !== undefined) {
    const byIdentifier = await getInvoiceByIdentifier(trx, input.invoiceIdentifier).catch(unlessNotFound);
    const sameMode = byIdentifier?.livemode === tenant.livemode;
    const found = byIdentifier && sameMode && (byIdentifier.merchant_id === tenant.merchantId || paysFromAccountOnly(input)) ? byIdentifier : undefined;
    if (id !== undefined && found?.id !== id)
      throw new AppError('validation_error', {
        param: 'invoiceIdentifier',
        message: 'invoiceId and invoiceIdentifier name different invoices; send one of them.',
      });
    if (!found) throw notFound();
    id = found.id;
    payee = tenantOf(found);
  }
  const invoice = await getInvoice(trx, payee, id!, { lock: true }).catch(unlessNotFound);
  if (!invoice) throw notFound();
  assertPayable(invoice);
  return invoice;
}

/** How much to pay now: all that is due by default; never more, and at least 1.00 unless it is all that is due. */
function amountToPay(invoice: InvoiceRow, requested: string | undefined): string {
  const due = amountDue(invoice);
  if (requested === undefined) return due.toFixed(minorUnits(invoice.currency));
  const amount = new Decimal(amountToDecimal(requested, invoice.currency, 'amount'));
  if (amount.greaterThan(due))
    throw new AppError('validation_error', {
      param: 'amount',
      message: `amount (${amount.toFixed()}) is more than is due on this invoice (${due.toFixed(minorUnits(invoice.currency))} ${invoice.currency}).`,
    });
  if (amount.lessThan(1) && !amount.equals(due))
    throw new AppError('amount_too_small', { param: 'amount', message: `amount must be at least 1.00 ${invoice.currency}, or all that is due.` });
  return amount.toFixed(minorUnits(invoice.currency));
}

/**
 * Pays an invoice of the tenant with one of the merchant's enabled payment options: charged at
 * once, declined (a failed payment, answered, not thrown), or waiting for the payer (3-D Secure,
 * a wallet QR code, a bank transfer). Part payments leave it `partially_paid`.
 */
export async function payInvoiceWithOption(db: Kysely<Database>, clock: Clock, tenant: Tenant, input: InvoicePayment): Promise<InvoicePaymentResult> {
  return db.transaction().execute(async (trx) => {
    const found = await lockInvoiceToPay(trx, tenant, input);
    // Another merchant's invoice (paid from the caller's wallet account): the payment is the invoice's merchant's.
    const { invoice, payee, payWith } = paidBy(found, tenant, input);
    const merchant = await getMerchant(trx, payee.merchantId);
    const option = enabledOption(merchant, payWith.paymentOptionId);
    const payer = payerFor(option, payWith);
    payer.check?.(merchant, option, payWith, clock.now());
    const amount = amountToPay(invoice, payWith.amount);
    const session = await openBackingSession(trx, clock, payee, merchant, {
      amount,
      currency: invoice.currency,
      captureMethod: 'automatic',
      invoice,
      description: null,
      metadata: {},
      payer: { email: invoice.payer_email, firstName: invoice.payer_first_name, lastName: invoice.payer_last_name, customerId: invoice.customer_id },
      waitMs: payer.waitMs,
    });
    const paid = await payer.pay(trx, clock, session, merchant, payWith);
    return { ...paid, option, invoice: await getInvoice(trx, payee, invoice.id) };
  });
}

/** The invoice's merchant (the payee) and, when the caller is another merchant, the caller as the payer of `sourceAccountId`. */
function paidBy(invoice: InvoiceRow, caller: Tenant, input: InvoicePayment) {
  const payee = tenantOf(invoice);
  return { invoice, payee, payWith: payee.merchantId === caller.merchantId ? input : { ...input, payerTenant: caller } };
}
