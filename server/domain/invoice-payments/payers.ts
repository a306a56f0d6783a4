// How a payer pays an invoice through the Commerce interface: one small function per payment
// source (PAYERS below), each on the invoice's backing checkout session (backing-session.ts), so a
// card, 3-D Secure, a wallet QR code, a decline, the ledger and the webhooks follow the checkout
// paths. A card the processor cannot read, an unusable funding source or a short account balance is
// a failed payment (answered, not thrown); an account balance pays through the ledger
// (accounts/account-payment.ts) in the same transaction. pay-invoice.ts picks the invoice and amount.
import type { Trx } from '../../db/database.js';
import type { CheckoutSessionRow } from '../checkout/session.tables.js';
import type { Merchant, PaymentOption } from '../merchants/merchant.tables.js';
import type { PaymentMethodRow, PaymentRow } from '../payments/payment.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { type Tenant, tenantOf } from '../../shared/tenant.js';
import { brandOf, type CardDetails, type TokenizedCard, tokenize } from '../../rails/cards.js';
import { recordInvoicePaymentFailure } from '../invoices/invoice-paying.js';
import { type FundingSourceWithCard, usableFundingSource } from '../funding-sources/funding-source.service.js';
import { findPaymentMethod } from '../payments/payment-method.repository.js';
import { insertPayment } from '../payments/payment.repository.js';
import { declineCard, paymentBase, paymentEvent, storeCard } from '../payments/payment.service.js';
import { checkDebit, debitAccount, isRefusal } from '../accounts/account-payment.js';
import { type PaymentFailure, recordFailedPayment, recordPaymentOption } from './payment-record.js';
import { PAYER_WAIT_MINUTES } from './backing-session.js';
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

/** What the payer must do next, if anything. */
export type PayerAction =
  | { type: 'none' }
  | { type: 'redirect_to_3ds'; challengeId: string }
  | { type: 'display_qr'; data: string }
  | { type: 'bank_transfer'; instructions: BankTransferInstructions }
  | { type: 'hosted_page' };

/** What a payer's payment gives: the payment, what the payer must do next, whether it went to 3-D Secure. */
export interface Paid {
  payment: PaymentRow;
  action: PayerAction;
  threeDSecure: boolean;
}

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
