// A payment without an invoice of the merchant's own (`POST /v1/payment`): Till raises a one-item
// invoice for it and pays that invoice exactly as `payinvoice` would, or only holds the card
// (`captureMethod` manual) to be captured later with the Checkout interface's hold rules.
import { Decimal } from 'decimal.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Trx } from '../../db/database.js';
import type { Merchant, PaymentOption } from '../merchants/merchant.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { amountToDecimal, currencyCode } from '../../shared/money.js';
import type { Tenant } from '../../shared/tenant.js';
import { getInvoice } from '../invoices/invoice.service.js';
import { raiseSessionInvoice } from '../invoices/invoice-paying.js';
import { getMerchant } from '../merchants/merchant.service.js';
import { insertPayment } from '../payments/payment.repository.js';
import { paymentBase } from '../payments/payment.service.js';
import { attachRaisedInvoice, openBackingSession, PAYER_WAIT_MINUTES } from './backing-session.js';
import type { InvoicePaymentResult } from './pay-invoice.js';
import { enabledOption, type PayWith, payerFor } from './payers.js';

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
  /** Where the payer goes after paying (the hosted invoice page, a 3-D Secure challenge) and on cancelling. */
  successUrl?: string | undefined;
  cancelUrl?: string | undefined;
}

const invalid = (param: string, message: string) => new AppError('parameter_invalid', { param, message });

/** The option must fit what else was asked: its method, and a hold only on a card option that can hold. */
function checkOption(option: PaymentOption, input: NewDirectPayment): void {
  if (input.paymentMethod !== undefined && input.paymentMethod !== option.method)
    throw invalid('paymentMethod', `paymentMethod ${input.paymentMethod} is not the method of payment option ${option.id} (${option.method}).`);
  if (input.captureMethod === 'manual' && !option.canHold)
    throw invalid('captureMethod', `Payment option ${option.id} (${option.name}) cannot hold: captureMethod Manual needs a card option that can hold.`);
}

/** The ways of paying the hosted invoice page offers (`paymentMethod` without an option must be one the merchant has enabled). */
const HOSTED_PAGE_METHODS = ['CreditCard', 'GatewayWallet'];

/** Without an option the payer chooses on the hosted page: nothing that needs an option may be sent, and `paymentMethod` must be a way the page offers. */
function checkHostedPage(merchant: Merchant, input: NewDirectPayment): void {
  const needsOption = (['card', 'fundingSourceId', 'sourceAccountId'] as const).find((field) => input[field] !== undefined);
  if (needsOption || input.captureMethod === 'manual')
    throw new AppError('parameter_missing', {
      param: 'paymentOptionId',
      message: `Send paymentOptionId with ${needsOption ?? 'captureMethod Manual'}; without it the payer chooses how to pay on the hosted invoice page.`,
    });
  const method = input.paymentMethod;
  if (method !== undefined && !(HOSTED_PAGE_METHODS.includes(method) && merchant.payment_options.some((o) => o.enabled && o.method === method)))
    throw invalid(
      'paymentMethod',
      `The hosted invoice page offers ${HOSTED_PAGE_METHODS.join(' and ')} among your enabled options, not ${method}; send paymentOptionId.`,
    );
}

/** Opens the payment's session and raises its one-item invoice (the description, or "Payment"), which the session then pays. */
async function raisePaymentInvoice(trx: Trx, clock: Clock, tenant: Tenant, merchant: Merchant, input: NewDirectPayment, waitMs: number) {
  const opened = await openBackingSession(trx, clock, tenant, merchant, {
    amount: amountToDecimal(input.amount, currencyCode(input.currency), 'amount'),
    currency: currencyCode(input.currency),
    captureMethod: input.captureMethod ?? 'automatic',
    invoice: undefined,
    description: input.description ?? 'Payment',
    metadata: input.clientReferenceNumber === undefined ? {} : { clientReferenceNumber: input.clientReferenceNumber },
    payer: { email: input.payer?.email ?? null, firstName: input.payer?.firstName ?? null, lastName: input.payer?.lastName ?? null, customerId: null },
    waitMs,
    returnUrls: { success: input.successUrl ?? null, cancel: input.cancelUrl ?? null },
  });
  const invoice = await raiseSessionInvoice(trx, clock, opened, { returnUrls: { success_url: input.successUrl ?? null, cancel_url: input.cancelUrl ?? null } });
  return { session: await attachRaisedInvoice(trx, opened, invoice), invoice };
}

/**
 * A payment without an option: its invoice is raised, and the payment waits (`Pending`) for the
 * payer to pay that invoice on the hosted invoice page, as long as the invoice is payable. It is
 * not the session's payment: the session only raised the invoice, and its end changes nothing.
 */
async function awaitHostedPage(db: Kysely<Database>, clock: Clock, tenant: Tenant, input: NewDirectPayment): Promise<DirectPaymentResult> {
  return db.transaction().execute(async (trx) => {
    const merchant = await getMerchant(trx, tenant.merchantId);
    checkHostedPage(merchant, input);
    const { session, invoice } = await raisePaymentInvoice(trx, clock, tenant, merchant, input, PAYER_WAIT_MINUTES * 60_000);
    const payment = await insertPayment(trx, {
      ...paymentBase(session, null, clock.now()),
      session_id: null,
      invoice_id: invoice.id,
      status: 'pending',
      awaits_hosted_page: true,
    });
    return { payment, action: { type: 'hosted_page' }, threeDSecure: false, option: null, invoice };
  });
}

/** A payment created directly: as an invoice's, but without an option until the payer chooses one on the hosted page. */
export type DirectPaymentResult = Omit<InvoicePaymentResult, 'option'> & { option: PaymentOption | null };

/**
 * Creates and charges a payment: a one-item invoice (the description, or "Payment") raised for
 * it, then charged, declined (a failed payment, answered), held (`manual`) or waiting for the payer.
 * Without `paymentOptionId` the payment waits for the payer on the hosted invoice page.
 */
export async function createDirectPayment(db: Kysely<Database>, clock: Clock, tenant: Tenant, input: NewDirectPayment): Promise<DirectPaymentResult> {
  const currency = currencyCode(input.currency);
  const amount = amountToDecimal(input.amount, currency, 'amount');
  if (new Decimal(amount).lessThan(1)) throw new AppError('amount_too_small', { param: 'amount', message: `amount must be at least 1.00 ${currency}.` });
  if (input.paymentOptionId === undefined) return awaitHostedPage(db, clock, tenant, input);
  const payWith: PayWith = { ...input, paymentOptionId: input.paymentOptionId };
  return db.transaction().execute(async (trx) => {
    const merchant = await getMerchant(trx, tenant.merchantId);
    const option = enabledOption(merchant, payWith.paymentOptionId);
    checkOption(option, input);
    const payer = payerFor(option, payWith);
    payer.check?.(merchant, option, payWith, clock.now());
    const { session, invoice } = await raisePaymentInvoice(trx, clock, tenant, merchant, input, payer.waitMs);
    const paid = await payer.pay(trx, clock, session, merchant, payWith);
    return { ...paid, option, invoice: await getInvoice(trx, tenant, invoice.id) };
  });
}
