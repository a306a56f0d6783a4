// Wallet accounts of the Commerce interface: the merchant's money in one mode and currency, as the
// ledger holds it. An account is opened on the first read, in the merchant's default currency
// and every booked currency.
import { Decimal } from 'decimal.js';
import type { Db } from '../../db/database.js';
import type { WalletAccountRow } from './account.tables.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import type { Tenant } from '../../shared/tenant.js';
import { balances } from '../ledger/ledger.service.js';
import { bookedCurrencies } from '../ledger/ledger-reads.repository.js';
import { defaultCurrencyOf } from '../merchants/default-currency.js';
import { findAccount, findAccounts, openAccounts } from './account.repository.js';

/** An account's money: `current` is every booked amount (pending or settled), `available` what can leave now (never above `current`). */
export interface AccountBalance {
  currency: string;
  current: string;
  available: string;
}

/** The tenant's accounts, oldest first, opening those it lacks (its default currency, and every currency it has booked money in). */
export async function listAccounts(db: Db, clock: Clock, tenant: Tenant): Promise<WalletAccountRow[]> {
  const wanted = new Set([await defaultCurrencyOf(db, tenant.merchantId), ...(await bookedCurrencies(db, tenant))]);
  const existing = await findAccounts(db, tenant);
  const missing = [...wanted].filter((c) => !existing.some((a) => a.currency.trim() === c));
  if (missing.length === 0) return existing;
  await openAccounts(db, tenant, missing, clock.now());
  return findAccounts(db, tenant);
}

/** One account of the tenant; 404 otherwise (another tenant's included). */
export async function getAccount(db: Db, tenant: Tenant, id: number, param = 'id'): Promise<WalletAccountRow> {
  const account = await findAccount(db, tenant, id);
  if (!account) throw new AppError('resource_not_found', { param, message: `No such account: ${id}.` });
  return account;
}

/** What an account's money is, from the ledger. */
export async function balanceOf(db: Db, tenant: Tenant, currency: string): Promise<AccountBalance> {
  const b = await balances(db, tenant, currency);
  return { currency, current: b.current, available: Decimal.min(b.available, b.current).toFixed() };
}

/** The balance of one account of the tenant. */
export async function accountBalance(db: Db, tenant: Tenant, id: number): Promise<AccountBalance> {
  const account = await getAccount(db, tenant, id);
  return balanceOf(db, tenant, account.currency.trim());
}
