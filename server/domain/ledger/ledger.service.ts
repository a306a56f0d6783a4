// The ledger is the only writer of money: payments, fees, refunds, holds, settlements, disputes and transfers post
// balanced entries here, and balances are sums of them.
import { Decimal } from 'decimal.js';
import type { Db, Trx } from '../../db/database.js';
import type { Tenant } from '../../shared/tenant.js';
import {
  availableBalancesInScope,
  insertPostings,
  lockBalance,
  type PostingContext,
  sumAccount,
  sumAccounts,
  type TenantBalance,
} from './ledger.repository.js';
import { bookedCurrencies } from './ledger-reads.repository.js';
import { availableDebit, entriesFor, type Movement, takesFromAvailable } from './postings.js';

export type { Movement, PostingContext, TenantBalance };

/** The available balances of a due-work scope holding at least `atLeast` now and just before `then`, by tenant and currency (the payout schedule's candidates). */
export const availableBalances = availableBalancesInScope;

/** A merchant's money in one currency and mode: `pending` (not settled yet), `available`, and `current` (both). */
export interface Balances {
  currency: string;
  pending: string;
  available: string;
  current: string;
  /** Held on payers' cards by open holds: not money yet, not part of `current`. */
  authorized: string;
}

/** Refused: the movements would take the available balance below zero. Nothing was posted. */
export class InsufficientBalanceError extends Error {
  constructor(
    readonly available: Decimal,
    readonly needed: Decimal,
  ) {
    super(`The available balance (${available.toFixed()}) is short of ${needed.toFixed()}.`);
    this.name = 'InsufficientBalanceError';
  }
}

/**
 * Posts movements of one payment (or none), in the caller's transaction, each as a balanced
 * posting. Movements that take money out of the available balance lock that balance for the rest
 * of the transaction and are refused (InsufficientBalanceError, nothing written) when it is short.
 */
export async function post(trx: Trx, context: PostingContext, movements: Movement[]): Promise<void> {
  const debit = movements.reduce((sum, m) => sum.plus(availableDebit(m)), new Decimal(0));
  if (debit.greaterThan(0)) await ensureAvailable(trx, context.tenant, context.currency, debit);
  // A dispute may overdraw the balance, but it still waits for a refund that is checking it.
  else if (movements.some(takesFromAvailable)) await lockBalance(trx, context.tenant, context.currency);
  await insertPostings(trx, context, movements.map(entriesFor));
}

/**
 * Locks the tenant's available balance in a currency for the rest of the transaction and checks
 * that it holds `amount`; otherwise InsufficientBalanceError. Call it before writing anything when
 * a shortfall must be answered rather than rolled back (the refund does).
 */
export async function ensureAvailable(trx: Trx, tenant: Tenant, currency: string, amount: Decimal): Promise<Decimal> {
  await lockBalance(trx, tenant, currency);
  const available = new Decimal(await sumAccount(trx, tenant, 'available', { currency }));
  if (available.lessThan(amount)) throw new InsufficientBalanceError(available, amount);
  return available;
}

/** The available balance in a currency (settled money less what left it); as it stood just before `before`, when given. */
export async function availableBalance(db: Db, tenant: Tenant, currency: string, before?: Date): Promise<Decimal> {
  return new Decimal(await sumAccount(db, tenant, 'available', before ? { currency, before } : { currency }));
}

/** Every balance of a tenant in a currency, in one query. */
export async function balances(db: Db, tenant: Tenant, currency: string): Promise<Balances> {
  const sums = await sumAccounts(db, tenant, currency);
  return {
    currency,
    pending: sums.pending,
    available: sums.available,
    current: new Decimal(sums.pending).plus(sums.available).toFixed(),
    authorized: sums.authorized,
  };
}

/** What one payment left in the pending balance (its payment, less its fee and pre-settlement refunds): what its settlement moves. */
export async function pendingNetOf(db: Db, tenant: Tenant, paymentId: number): Promise<string> {
  return sumAccount(db, tenant, 'pending', { paymentId });
}

/** A tenant's money in one currency as the dashboard shows it: pending, available, and paid out but not arrived yet. */
export interface DashboardBalance {
  currency: string;
  pending: string;
  available: string;
  inTransit: string;
}

/** The tenant's balances in every currency it has booked money in (one query per currency). */
export async function balancesByCurrency(db: Db, tenant: Tenant): Promise<DashboardBalance[]> {
  const currencies = (await bookedCurrencies(db, tenant)).sort();
  return Promise.all(
    currencies.map(async (currency) => {
      const sums = await sumAccounts(db, tenant, currency);
      return { currency, pending: sums.pending, available: sums.available, inTransit: sums.in_transit };
    }),
  );
}
