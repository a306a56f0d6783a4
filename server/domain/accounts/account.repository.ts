// Wallet accounts: one per merchant, mode and currency. Every query takes the tenant first, except
// the lookup of a transfer's destination by its account number (any merchant, same mode).
import { randomInt } from 'node:crypto';
import type { Db } from '../../db/database.js';
import { ofTenant } from '../../db/scope.js';
import type { WalletAccountRow } from './account.tables.js';
import type { Tenant } from '../../shared/tenant.js';

/** `TL` and 11 random digits (10^11 numbers: a clash is left to the unique index). */
const newAccountNumber = (): string => `TL${randomInt(0, 100_000_000_000).toString().padStart(11, '0')}`;

/** Opens the tenant's accounts in these currencies where none is open yet (concurrent openers meet on the unique key). */
export async function openAccounts(db: Db, tenant: Tenant, currencies: string[], now: Date): Promise<void> {
  if (currencies.length === 0) return;
  const rows = currencies.map((currency) => ({
    merchant_id: tenant.merchantId,
    livemode: tenant.livemode,
    currency,
    account_number: newAccountNumber(),
    name: `${currency} wallet`,
    description: null,
    created_at: now,
  }));
  await db
    .insertInto('wallet_accounts')
    .values(rows)
    .onConflict((oc) => oc.columns(['merchant_id', 'livemode', 'currency']).doNothing())
    .execute();
}

/** The tenant's accounts, oldest first. */
export async function findAccounts(db: Db, tenant: Tenant): Promise<WalletAccountRow[]> {
  return db.selectFrom('wallet_accounts').selectAll().where(ofTenant(tenant)).orderBy('id').execute();
}

/** One account of the tenant, or undefined. */
export async function findAccount(db: Db, tenant: Tenant, id: number): Promise<WalletAccountRow | undefined> {
  return db.selectFrom('wallet_accounts').selectAll().where(ofTenant(tenant)).where('id', '=', id).executeTakeFirst();
}

/** The tenant's account in a currency, or undefined. */
export async function findAccountInCurrency(db: Db, tenant: Tenant, currency: string): Promise<WalletAccountRow | undefined> {
  return db.selectFrom('wallet_accounts').selectAll().where(ofTenant(tenant)).where('currency', '=', currency).executeTakeFirst();
}

/** A transfer's destination: the account with this number in this mode, whoever's it is. */
export async function findDestination(db: Db, livemode: boolean, accountNumber: string): Promise<WalletAccountRow | undefined> {
  return db
    .selectFrom('wallet_accounts')
    .selectAll()
    .where('livemode', '=', livemode)
    .where('account_number', '=', accountNumber.toUpperCase())
    .executeTakeFirst();
}

/** For a join in another statement (the transactions list): the tenant's accounts, each with its currency. */
export function accountsOf(db: Db, tenant: Tenant) {
  return db.selectFrom('wallet_accounts').select(['id', 'merchant_id', 'livemode', 'currency']).where(ofTenant(tenant));
}
