// A payment without an invoice of the merchant's own (`POST /v1/payment`): Till raises a one-item
// invoice for it and pays that invoice exactly as `payinvoice` would, or only holds the card
// (`captureMethod` manual) to be captured later with the Checkout interface's hold rules.
import { Decimal } from 'decimal.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { PaymentOption } from '../merchants/merchant.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { amountToDecimal, currencyCode } from '../../shared/money.js';
import type { Tenant } from '../../shared/tenant.js';
import { getInvoice } from '../invoices/invoice.service.js';
import { raiseSessionInvoice } from '../invoices/invoice-paying.js';
import { getMerchant } from '../merchants/merchant.service.js';
import { attachRaisedInvoice, openBackingSession } from './backing-session.js';
import { type InvoicePaymentResult, enabledOption, type PayWith, payerFor } from './pay-invoice.js';

/** A payment without an invoice of the merchant's own: the amount in the currency's units as exact decimal text. */
export interface NewDirectPayment extends Partial<PayWith> {
  amount: string;
  currency: string;
  /** `CreditCard`, `GatewayWallet`, ...: when given, the option must be of this method. */
  paymentMethod?: string | undefined;
  description?: string | undefined;
  captureMethod?: 'automatic' | 'manual' | undefined;
  clientReferenceNumber?: string | undefined;
  payer?: { email?: string | undefined; firstName?: string | undefined; lastName?: string | undefined } | undefined;
}

const invalid = (param: string, message: string) => new AppError('parameter_invalid', { param, message });

/** The option must fit what else was asked: its method, and a hold only on a card option that can hold. */
function checkOption(option: PaymentOption, input: NewDirectPayment): void {
  if (input.paymentMethod !== undefined && input.paymentMethod !== option.method)
    throw invalid('paymentMethod', `paymentMethod ${input.paymentMethod} is not the method of payment option ${option.id} (${option.method}).`);
  if (input.captureMethod === 'manual' && !option.canHold)
    throw invalid('captureMethod', `Payment option ${option.id} (${option.name}) cannot hold: captureMethod Manual needs a card option that can hold.`);
}

/**
 * Creates and charges a payment: a one-item invoice (the description, or "Payment") raised for
 * it, then charged, declined (a failed payment, answered), held (`manual`) or waiting for the payer.
 * Without `paymentOptionId` the payment would wait on a hosted payment page, which is not served
 * yet: 400 naming `paymentOptionId`.
 */
export async function createDirectPayment(db: Kysely<Database>, clock: Clock, tenant: Tenant, input: NewDirectPayment): Promise<InvoicePaymentResult> {
  const currency = currencyCode(input.currency);
  const amount = amountToDecimal(input.amount, currency, 'amount');
  if (new Decimal(amount).lessThan(1)) throw new AppError('amount_too_small', { param: 'amount', message: `amount must be at least 1.00 ${currency}.` });
  if (input.paymentOptionId === undefined) {
    throw new AppError('parameter_missing', {
      param: 'paymentOptionId',
      message: 'Send paymentOptionId (and card for a card option): the hosted payment page for payments is not served yet.',
    });
  }
  const payWith: PayWith = { ...input, paymentOptionId: input.paymentOptionId };
  return db.transaction().execute(async (trx) => {
    const merchant = await getMerchant(trx, tenant.merchantId);
    const option = enabledOption(merchant, payWith.paymentOptionId);
    checkOption(option, input);
    const payer = payerFor(option, payWith);
    payer.check?.(merchant, option, payWith, clock.now());
    const opened = await openBackingSession(trx, clock, tenant, merchant, {
      amount,
      currency,
      captureMethod: input.captureMethod ?? 'automatic',
      invoice: undefined,
      description: input.description ?? 'Payment',
      metadata: input.clientReferenceNumber === undefined ? {} : { clientReferenceNumber: input.clientReferenceNumber },
      payer: { email: input.payer?.email ?? null, firstName: input.payer?.firstName ?? null, lastName: input.payer?.lastName ?? null, customerId: null },
      waitMs: payer.waitMs,
    });
    const invoice = await raiseSessionInvoice(trx, clock, opened);
    const session = await attachRaisedInvoice(trx, opened, invoice);
    const paid = await payer.pay(trx, clock, session, merchant, payWith);
    return { ...paid, option, invoice: await getInvoice(trx, tenant, invoice.id) };
  });
}
