import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import { inScope, ofTenant } from '../../db/scope.js';
import { precompiledInsert } from '../../db/precompiled.js';
import { WITH_NEXT } from '../../db/transaction-client.js';
import type { DueScope } from '../../shared/due-scope.js';
import type { LedgerAccount } from './ledger.tables.js';
import type { Tenant } from '../../shared/tenant.js';
import type { Entry } from './postings.js';

/** Where a set of postings happens: the tenant, the payment (or payout) it concerns, its currency and time. */
export interface PostingContext {
  tenant: Tenant;
  paymentId: number | null;
  /** The payout (`po_…`) it moves, for payout postings. */
  payoutId?: string;
  /** The transfer the postings book, when they book one. */
  transferId?: number | null;
  currency: string;
  at: Date;
}

/**
 * Inserts postings (each a balanced set of entries, under a posting id of its own) in one
 * statement, sent with the transaction's next statement (WITH_NEXT): nothing reads its answer, the
 * statements after it see its rows, and its failure (a check refused) is a bug, never an answer.
 */
export async function insertPostings(trx: Trx, context: PostingContext, postings: Entry[][]): Promise<void> {
  const rows = postings.flatMap((entries) => {
    const postingId = randomUUID();
    return entries.map((e) => ({
      posting_id: postingId,
      merchant_id: context.tenant.merchantId,
      livemode: context.tenant.livemode,
      payment_id: context.paymentId,
      payout_id: context.payoutId ?? null,
      transfer_id: context.transferId ?? null,
      type: e.type,
      account: e.account,
      amount: e.amount,
      currency: context.currency,
      created_at: context.at,
    }));
  });
  if (rows.length > 0) await insertEntryRows(trx, rows);
}

const insertEntryRows = precompiledInsert(
  (db) => db.insertInto('ledger_entries'),
  (insert) => insert.modifyEnd(sql.raw(WITH_NEXT)),
);

/**
 * Serializes the postings that take money out of one balance (a tenant's currency) until the
 * transaction ends, so two of them cannot both see enough money and overdraw it.
 */
export async function lockBalance(trx: Trx, tenant: Tenant, currency: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtext(${`ledger:${tenant.merchantId}:${tenant.livemode}:${currency}`}))`.execute(trx);
}

/** A tenant's balances in one currency: the sum of each account, one query. */
export async function sumAccounts(db: Db, tenant: Tenant, currency: string): Promise<Record<LedgerAccount, string>> {
  const sum = (account: LedgerAccount) => sql<string>`coalesce(sum(amount) FILTER (WHERE account = ${account}), 0)::text`.as(account);
  return db
    .selectFrom('ledger_entries')
    .select([sum('pending'), sum('available'), sum('authorized'), sum('payer'), sum('fees'), sum('in_transit'), sum('paid_out'), sum('transfers')])
    .where(ofTenant(tenant))
    .where('currency', '=', currency)
    .executeTakeFirstOrThrow();
}

/**
 * One account's sum for a tenant: in a currency (as it stood just before `before`, when given), or
 * of one payment's entries (what it left pending, for its settlement).
 */
export async function sumAccount(
  db: Db,
  tenant: Tenant,
  account: LedgerAccount,
  of: { currency: string; before?: Date } | { paymentId: number },
): Promise<string> {
  let query = db
    .selectFrom('ledger_entries')
    .select(sql<string>`coalesce(sum(amount), 0)::text`.as('total'))
    .where(ofTenant(tenant))
    .where('account', '=', account);
  query = 'currency' in of ? query.where('currency', '=', of.currency) : query.where('payment_id', '=', of.paymentId);
  if ('before' in of && of.before) query = query.where('created_at', '<', of.before);
  return (await query.executeTakeFirstOrThrow()).total;
}

/** A tenant's available balance in one currency: now, and as it stood at an instant. */
export interface TenantBalance {
  merchant_id: number;
  livemode: boolean;
  currency: string;
  available: string;
  availableThen: string;
}

/**
 * The available balances of a due-work scope that hold at least `atLeast` now and held it just
 * before `then` (what the payout schedule pays out), by tenant and currency. Reads across the
 * tenants of the scope; each row answers its tenant, so the work on it is scoped again.
 */
export async function availableBalancesInScope(db: Db, scope: DueScope, atLeast: string, then: Date, limit: number): Promise<TenantBalance[]> {
  const availableThen = sql<string>`coalesce(sum(amount) FILTER (WHERE created_at < ${then}), 0)`;
  return db
    .selectFrom('ledger_entries')
    .select(['merchant_id', 'livemode', 'currency', sql<string>`sum(amount)::text`.as('available'), sql<string>`${availableThen}::text`.as('availableThen')])
    .where('account', '=', 'available')
    .where(inScope(scope, 'ledger_entries'))
    .groupBy(['merchant_id', 'livemode', 'currency'])
    .having(sql`sum(amount)`, '>=', atLeast)
    .having(availableThen, '>=', atLeast)
    .orderBy('merchant_id')
    .orderBy('currency')
    .limit(limit)
    .execute();
}
