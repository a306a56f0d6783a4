// A wallet account pays (an invoice, with `sourceAccountId`): the amount leaves its available
// balance through the ledger, refused when the balance is short.
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
  tenant: Tenant;
  accountId: number;
  /** Exact decimal text, more than 0, in the account's currency. */
  amount: string;
  currency: string;
  /** The payment the debit pays for, when one is recorded (its ledger entries then name it). */
  paymentId: number | null;
}

/**
 * Debits a wallet account of the tenant in the caller's transaction: locks its balance, checks
 * the available amount covers `amount` (409 `invalid_state` naming `sourceAccountId` otherwise,
 * nothing written) and posts `account_payment` (available → payer). An unknown account is a 404
 * naming `sourceAccountId`; another currency a 400 `validation_error`; an account that is not
 * `Active` a 409. Answers the account.
 */
export async function debitAccount(trx: Trx, clock: Clock, debit: AccountDebit): Promise<WalletAccountRow> {
  const account = await getAccount(trx, debit.tenant, debit.accountId, 'sourceAccountId');
  const currency = account.currency.trim();
  if (account.status !== 'Active')
    throw new AppError('invalid_state', { param: 'sourceAccountId', message: `Account ${account.id} is ${account.status}: it cannot pay.` });
  if (debit.currency.toUpperCase() !== currency)
    throw new AppError('validation_error', {
      param: 'sourceAccountId',
      message: `Account ${account.id} holds ${currency}; the payment is in ${debit.currency.toUpperCase()}.`,
    });
  const needed = new Decimal(debit.amount);
  const short = (available: Decimal) =>
    new AppError('invalid_state', {
      param: 'sourceAccountId',
      message: `Account ${account.id} has ${available.toFixed(minorUnits(currency))} ${currency} available; the payment needs ${needed.toFixed(minorUnits(currency))} ${currency}.`,
    });
  try {
    await ensureAvailable(trx, debit.tenant, currency, needed);
  } catch (e) {
    throw e instanceof InsufficientBalanceError ? short(e.available) : e;
  }
  const available = new Decimal((await balanceOf(trx, debit.tenant, currency)).available);
  if (available.lessThan(needed)) throw short(available);
  await post(trx, { tenant: debit.tenant, paymentId: debit.paymentId, currency, at: clock.now() }, [{ type: 'account_payment', amount: needed.toFixed() }]);
  return account;
}
