// A wallet account pays (an invoice, with `sourceAccountId`): the amount leaves its available
// balance through the ledger. A short balance or an account that is not `Active` is a refusal the
// caller records as a failed payment; an account that is not the payer's, or of another currency,
// is an error in the request.
import { Decimal } from 'decimal.js';
import type { Trx } from '../../db/database.js';
import type { WalletAccountRow } from './account.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { minorUnits } from '../../shared/money.js';
import type { Tenant } from '../../shared/tenant.js';
import { ensureAvailable, InsufficientBalanceError, post } from '../ledger/ledger.service.js';
import { balanceOf, getAccount } from './account.service.js';

export interface AccountDebit {
  /** The payer: the account's merchant and mode. */
  tenant: Tenant;
  accountId: number;
  /** Exact decimal text, more than 0, in the account's currency. */
  amount: string;
  currency: string;
  /** The payment the debit pays for, when one is recorded (its ledger entries then name it). */
  paymentId: number | null;
}

/** Why an account could not pay, as the payer is told (`hostMessage`); nothing was written. */
export interface AccountRefusal {
  refused: 'insufficient_funds' | 'account_inactive';
  message: string;
}

/**
 * Checks that a wallet account of the payer can pay, in the caller's transaction: an unknown
 * account is a 404 naming `sourceAccountId`, another currency a 400 `validation_error`. Answers
 * the account, or a refusal when it is not `Active` or its available balance (locked for the rest
 * of the transaction) is short of the amount.
 */
export async function checkDebit(trx: Trx, debit: Omit<AccountDebit, 'paymentId'>): Promise<WalletAccountRow | AccountRefusal> {
  const account = await getAccount(trx, debit.tenant, debit.accountId, 'sourceAccountId');
  const currency = account.currency.trim();
  if (debit.currency.toUpperCase() !== currency)
    throw new AppError('validation_error', {
      param: 'sourceAccountId',
      message: `Account ${account.id} holds ${currency}; the payment is in ${debit.currency.toUpperCase()}.`,
    });
  if (account.status !== 'Active') return { refused: 'account_inactive', message: `Account ${account.id} is ${account.status}: it cannot pay.` };
  const needed = new Decimal(debit.amount);
  const short = (available: Decimal): AccountRefusal => ({
    refused: 'insufficient_funds',
    message: `Account ${account.id} has ${available.toFixed(minorUnits(currency))} ${currency} available; the payment needs ${needed.toFixed(minorUnits(currency))} ${currency}.`,
  });
  try {
    await ensureAvailable(trx, debit.tenant, currency, needed);
  } catch (e) {
    if (e instanceof InsufficientBalanceError) return short(e.available);
    throw e;
  }
  const available = new Decimal((await balanceOf(trx, debit.tenant, currency)).available);
  return available.lessThan(needed) ? short(available) : account;
}

/** Debits an account `checkDebit` accepted in this transaction: posts `account_payment` (available → payer), naming the payment. */
export async function debitAccount(trx: Trx, clock: Clock, debit: AccountDebit): Promise<void> {
  await post(trx, { tenant: debit.tenant, paymentId: debit.paymentId, currency: debit.currency.toUpperCase(), at: clock.now() }, [
    { type: 'account_payment', amount: new Decimal(debit.amount).toFixed() },
  ]);
}

/** Whether `checkDebit` refused. */
export const isRefusal = (result: WalletAccountRow | AccountRefusal): result is AccountRefusal => 'refused' in result;
