// Paying through the Commerce interface: an invoice (all or part of what is due), or a direct
// payment that raises its own one-item invoice. Each payment runs through a checkout session of
// its own (backing-session.ts), so a card, 3-D Secure, a wallet QR code, a decline, the
// ledger, the invoice and the `payment.*` / `invoice.*` webhooks follow exactly the checkout paths.
// How the payer pays is one small function per payment source (PAYERS below); an account balance
// pays through the ledger (accounts/account-payment.ts) in the same transaction.
import { Decimal } from 'decimal.js';
import type { Kysely } from 'kysely';
import type { Trx } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { CheckoutSessionRow } from '../checkout/session.tables.js';
import type { InvoiceRow } from '../invoices/invoice.tables.js';
import type { Merchant, PaymentOption } from '../merchants/merchant.tables.js';
import type { PaymentMethodRow, PaymentRow } from '../payments/payment.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { amountToDecimal, minorUnits } from '../../shared/money.js';
import { type Tenant, tenantOf } from '../../shared/tenant.js';
import { brandOf, type CardDetails, type TokenizedCard, tokenize } from '../../rails/cards.js';
import { amountDue } from '../invoices/invoice.lines.js';
import { getInvoice, getInvoiceByIdentifier } from '../invoices/invoice.service.js';
import { assertPayable, recordInvoicePaymentFailure } from '../invoices/invoice-paying.js';
import { type FundingSourceWithCard, usableFundingSource } from '../funding-sources/funding-source.service.js';
import { getMerchant } from '../merchants/merchant.service.js';
import { findPaymentMethod } from '../payments/payment-method.repository.js';
import { insertPayment } from '../payments/payment.repository.js';
import { declineCard, paymentBase, paymentEvent, storeCard } from '../payments/payment.service.js';
import { checkDebit, debitAccount, isRefusal } from '../accounts/account-payment.js';
import { type PaymentFailure, recordFailedPayment, recordPaymentOption } from './payment-record.js';
import { openBackingSession, PAYER_WAIT_MINUTES } from './backing-session.js';
import { awaitBankTransfer, BANK_TRANSFER_DAYS, bankTransferInstructions, type BankTransferInstructions } from './bank-transfer.js';
import { authorizeSession, chargeSession } from '../checkout/session-payment.js';
import { startChallenge } from '../checkout/session-challenge.js';
import { confirmWithWallet } from '../checkout/session-qr.js';

/** A card as the payer sends it: validated and reduced to what may be kept before anything is stored. */
export type PayerCard = CardDetails & { name?: string | undefined };

/** How the payer pays: the option, and the instrument the option needs. */
export interface PayWith {
  paymentOptionId: number;
  card?: PayerCard | undefined;
  fundingSourceId?: number | undefined;
  sourceAccountId?: number | undefined;
  /** Who pays from `sourceAccountId`: the caller, when it pays another merchant's invoice (the invoice's merchant otherwise). */
  payerTenant?: Tenant | undefined;
}

/** A payment of an invoice as the payer asks for it: the invoice (by id or identifier), how much, and how it is paid. */
export interface InvoicePayment extends PayWith {
  invoiceId?: number | undefined;
  invoiceIdentifier?: string | undefined;
  /** Part of what is due (exact decimal text); all of it when left out. */
  amount?: string | undefined;
}

/** What the payer must do next, if anything. */
export type PayerAction =
  | { type: 'none' }
  | { type: 'redirect_to_3ds'; challengeId: string }
  | { type: 'display_qr'; data: string }
  | { type: 'bank_transfer'; instructions: BankTransferInstructions }
  | { type: 'hosted_page' };

/** A payment of an invoice with one of the merchant's payment options: the payment, the invoice (as it is now), the option, what the payer must do. */
export interface InvoicePaymentResult {
  payment: PaymentRow;
  invoice: InvoiceRow;
  option: PaymentOption;
  action: PayerAction;
  threeDSecure: boolean;
}

export type Paid = Pick<InvoicePaymentResult, 'payment' | 'action' | 'threeDSecure'>;

/** One payment source: how long its payer may take, a check before anything is written, and the payment. */
export interface Payer {
  waitMs: number;
  check?: (merchant: Merchant, option: PaymentOption, input: PayWith, now: Date) => void;
  pay: (trx: Trx, clock: Clock, session: CheckoutSessionRow, merchant: Merchant, input: PayWith) => Promise<Paid>;
}

const invalid = (param: string, message: string) => new AppError('parameter_invalid', { param, message });
const CARD_METHODS = ['CreditCard', 'DebitCard', 'CardGateway'];

/** A card option needs the card; any card option takes every brand the sandbox knows. Whether the card is valid is the processor's answer (a failed payment), not a refusal. */
function checkCard(_merchant: Merchant, option: PaymentOption, input: PayWith): void {
  if (!input.card)
    throw new AppError('parameter_missing', { param: 'card', message: `Payment option ${option.id} (${option.name}) is a card option: send card.` });
}

const noAction = (payment: PaymentRow): Paid => ({ payment, action: { type: 'none' }, threeDSecure: false });

/** The payment made with the option the payer chose, and the brand of its card (null: not a card). */
async function withOption(trx: Trx, paid: Paid, input: PayWith, cardBrand: string | null): Promise<Paid> {
  return { ...paid, payment: await recordPaymentOption(trx, paid.payment, input.paymentOptionId, cardBrand) };
}

/** A card the processor cannot read (a number that fails its check, an expired card, a wrong CVV length): a failed payment. */
function tokenizeOrFailure(card: PayerCard, merchantId: number, now: Date): TokenizedCard | PaymentFailure {
  try {
    return tokenize(card, merchantId, now);
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'invalid_card') throw error;
    return { code: 'invalid_card', message: error.message, cardBrand: brandOf(card.cardNumber) };
  }
}

/** A stored card the sandbox processor declines (recorded, answered 200), sends to 3-D Secure, authorizes (a hold) or charges. */
async function chargeCard(trx: Trx, clock: Clock, session: CheckoutSessionRow, method: PaymentMethodRow): Promise<Paid> {
  if (method.sandbox_outcome === 'insufficient_funds' || method.sandbox_outcome === 'processing_error') {
    const { payment } = await declineCard(trx, clock, session, method);
    await recordInvoicePaymentFailure(trx, clock, session);
    return noAction(payment);
  }
  if (method.sandbox_outcome === 'requires_3ds') {
    const started = await startChallenge(trx, clock, session, method, undefined);
    return { payment: started.payment, action: { type: 'redirect_to_3ds', challengeId: started.challenge.id }, threeDSecure: true };
  }
  const done = session.capture_method === 'manual' ? await authorizeSession(trx, clock, session, method) : await chargeSession(trx, clock, session, method);
  return noAction(done.payment);
}

/** A card typed in: the processor's answer, or a failed payment when it cannot read the card. */
async function payByCard(trx: Trx, clock: Clock, session: CheckoutSessionRow, _merchant: Merchant, input: PayWith): Promise<Paid> {
  const card = input.card!;
  const tokenized = tokenizeOrFailure(card, session.merchant_id, clock.now());
  if ('code' in tokenized) return noAction(await recordFailedPayment(trx, clock, session, input.paymentOptionId, tokenized));
  const method = await storeCard(trx, session, tokenized, clock.now(), { billingName: card.name });
  return withOption(trx, await chargeCard(trx, clock, session, method), input, method.brand);
}

async function payByWallet(trx: Trx, clock: Clock, session: CheckoutSessionRow, _merchant: Merchant, input: PayWith): Promise<Paid> {
  const { payment } = await confirmWithWallet(trx, clock, session, 'wallet:qr');
  return withOption(trx, { payment, action: { type: 'display_qr', data: payment.qr_data! }, threeDSecure: false }, input, null);
}

async function payByBankTransfer(trx: Trx, clock: Clock, session: CheckoutSessionRow, merchant: Merchant, input: PayWith): Promise<Paid> {
  const payment = await awaitBankTransfer(trx, clock, session);
  const action: PayerAction = { type: 'bank_transfer', instructions: bankTransferInstructions(merchant, payment, session.expires_at) };
  return withOption(trx, { payment, action, threeDSecure: false }, input, null);
}

/** The tenant's funding source that may pay, or why it cannot (not verified, blocked): a failed payment, not a refusal. */
async function fundingSourceOrFailure(trx: Trx, session: CheckoutSessionRow, id: number): Promise<FundingSourceWithCard | PaymentFailure> {
  try {
    return await usableFundingSource(trx, tenantOf(session), id);
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'invalid_state') throw error;
    return { code: 'funding_source_unusable', message: error.message, cardBrand: null };
  }
}

/**
 * A verified funding source (`GET /v1/FundingSource`) pays through any card option: its card on
 * file is charged at once (verifying the source stood in for 3-D Secure); a card the processor
 * declines, or a source that is not verified or is blocked, is a failed payment, answered as a card's is.
 */
async function payByFundingSource(trx: Trx, clock: Clock, session: CheckoutSessionRow, merchant: Merchant, input: PayWith): Promise<Paid> {
  const option = enabledOption(merchant, input.paymentOptionId);
  if (!CARD_METHODS.includes(option.method))
    throw invalid('paymentOptionId', `A funding source is a card: pay it through a card option, not payment option ${option.id} (${option.method}).`);
  const source = await fundingSourceOrFailure(trx, session, input.fundingSourceId!);
  if ('code' in source) return noAction(await recordFailedPayment(trx, clock, session, option.id, source));
  const method = await findPaymentMethod(trx, tenantOf(session), source.payment_method_id);
  if (!method) throw new AppError('resource_not_found', { param: 'fundingSourceId', message: `No such funding source: ${source.id}.` });
  const declines = method.sandbox_outcome === 'insufficient_funds' || method.sandbox_outcome === 'processing_error';
  const paid = declines ? await chargeCard(trx, clock, session, method) : noAction((await chargeSession(trx, clock, session, method)).payment);
  return withOption(trx, paid, input, source.brand);
}

/** An account balance pays through an `AccountBalance` option, and needs the account. */
function checkAccount(_merchant: Merchant, option: PaymentOption, input: PayWith): void {
  if (option.method !== 'AccountBalance')
    throw invalid('paymentOptionId', `An account balance pays through an AccountBalance option, not payment option ${option.id} (${option.method}).`);
  if (input.sourceAccountId === undefined)
    throw new AppError('parameter_missing', {
      param: 'sourceAccountId',
      message: `Payment option ${option.id} (${option.name}) pays from an account: send sourceAccountId (GET /v1/account).`,
    });
}

/**
 * A wallet account pays at once, without a fee (the money never leaves Till): the payment is
 * recorded with the account that paid it (its refunds go back there), the amount leaves that
 * account's available balance through the ledger (naming the payment), and the session is charged
 * as any other payment is (the invoice paid, `payment.succeeded`). The account is the payer's: the
 * merchant's own, or another merchant's of the same mode paying this invoice by its identifier. A
 * short balance or an account that is not `Active` is a failed payment (answered, not thrown).
 */
async function payFromAccount(trx: Trx, clock: Clock, session: CheckoutSessionRow, _merchant: Merchant, input: PayWith): Promise<Paid> {
  const payer = input.payerTenant ?? tenantOf(session);
  const debit = { tenant: payer, accountId: input.sourceAccountId!, amount: session.amount, currency: session.currency };
  const checked = await checkDebit(trx, debit);
  const paidFrom = { method_type: 'account_balance' as const, source_account_id: debit.accountId, source_merchant_id: payer.merchantId };
  if (isRefusal(checked)) {
    const failed = await insertPayment(trx, {
      ...paymentBase(session, null, clock.now()),
      ...paidFrom,
      status: 'failed',
      failure_code: checked.refused,
      failure_message: checked.message,
    });
    await paymentEvent(trx, clock, 'payment.failed', failed, null);
    await recordInvoicePaymentFailure(trx, clock, session);
    return { payment: failed, action: { type: 'none' }, threeDSecure: false };
  }
  const waiting = await insertPayment(trx, { ...paymentBase(session, null, clock.now()), ...paidFrom, status: 'pending' });
  await debitAccount(trx, clock, { ...debit, paymentId: waiting.id });
  const done = await chargeSession(trx, clock, session, null, waiting);
  return { payment: done.payment, action: { type: 'none' }, threeDSecure: false };
}

const PAYERS = {
  card: { waitMs: PAYER_WAIT_MINUTES * 60_000, check: checkCard, pay: payByCard },
  wallet: { waitMs: PAYER_WAIT_MINUTES * 60_000, pay: payByWallet },
  bankTransfer: { waitMs: BANK_TRANSFER_DAYS * 86_400_000, pay: payByBankTransfer },
  fundingSource: { waitMs: PAYER_WAIT_MINUTES * 60_000, pay: payByFundingSource },
  account: { waitMs: PAYER_WAIT_MINUTES * 60_000, check: checkAccount, pay: payFromAccount },
} satisfies Record<string, Payer>;

/** The payer for an option and what was sent with it. */
export function payerFor(option: PaymentOption, input: PayWith): Payer {
  if (input.fundingSourceId !== undefined) return PAYERS.fundingSource;
  if (input.sourceAccountId !== undefined || option.method === 'AccountBalance') return PAYERS.account;
  if (CARD_METHODS.includes(option.method)) return PAYERS.card;
  if (option.method === 'GatewayWallet') return PAYERS.wallet;
  if (option.method === 'BankTransfer') return PAYERS.bankTransfer;
  throw invalid('paymentOptionId', `Payment option ${option.id} (${option.method}) cannot be paid through this operation.`);
}

/** One of the merchant's enabled payment options, or 400 naming `paymentOptionId`. */
export function enabledOption(merchant: Merchant, id: number): PaymentOption {
  const option = merchant.payment_options.find((o) => o.id === id && o.enabled);
  if (!option)
    throw invalid('paymentOptionId', `paymentOptionId ${id} is not one of this invoice's payment methods (see GET /v1/invoice/{id}/PaymentMethods).`);
  return option;
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
