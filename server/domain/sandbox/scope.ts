import { type Kysely, type RawBuilder, sql, type SqlBool, type Transaction } from 'kysely';
import { baseClock, type Clock, clockAhead } from '../../shared/clock.js';
import type { Database } from '../../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

/**
 * Whose due work a run handles, and by which clock. The global scope is live mode and every
 * merchant whose test clock was never advanced, by the base clock; a sandbox scope is one
 * merchant's test mode, by that merchant's clock (the base clock plus its offset).
 */
export type DueScope = { kind: 'global' } | { kind: 'sandbox'; merchantId: number; offsetSeconds: number };

export const GLOBAL_SCOPE: DueScope = { kind: 'global' };

/** The clock a scope's work reads: the base clock, or the merchant's sandbox clock. */
export function scopedClock(clock: Clock, scope: DueScope): Clock {
  const base = baseClock(clock);
  return scope.kind === 'global' ? base : clockAhead(base, scope.offsetSeconds);
}

/**
 * A condition on a row of `table` (its name or alias; its `merchant_id` and `livemode` columns):
 * the row belongs to the scope. Test-mode rows of a merchant with an advanced clock belong to that
 * merchant's sandbox scope only.
 */
export function inScope(scope: DueScope, table: string): RawBuilder<SqlBool> {
  const merchant = sql.ref(`${table}.merchant_id`);
  const livemode = sql.ref(`${table}.livemode`);
  if (scope.kind === 'sandbox') return sql<SqlBool>`(${merchant} = ${scope.merchantId} AND NOT ${livemode})`;
  return sql<SqlBool>`(${livemode} OR NOT EXISTS (SELECT 1 FROM sandbox_clocks advanced WHERE advanced.merchant_id = ${merchant} AND advanced.offset_seconds > 0))`;
}

/** Seconds a merchant has advanced its test-mode clock (0 when never). */
export async function sandboxOffset(db: Db, merchantId: number): Promise<number> {
  const row = await db.selectFrom('sandbox_clocks').select('offset_seconds').where('merchant_id', '=', merchantId).executeTakeFirst();
  return row ? Number(row.offset_seconds) : 0;
}

/** The clock of a merchant in a mode: live mode reads the base clock; test mode, the merchant's sandbox clock. */
export async function merchantClock(db: Db, clock: Clock, merchantId: number, livemode: boolean): Promise<Clock> {
  const base = baseClock(clock);
  if (livemode) return base;
  return clockAhead(base, await sandboxOffset(db, merchantId));
}

/** Every scope the jobs run: the global one, then each merchant whose test clock was advanced. */
export async function dueScopes(db: Db): Promise<DueScope[]> {
  const rows = await db.selectFrom('sandbox_clocks').select(['merchant_id', 'offset_seconds']).where('offset_seconds', '>', '0').orderBy('merchant_id').execute();
  return [GLOBAL_SCOPE, ...rows.map((r) => ({ kind: 'sandbox' as const, merchantId: r.merchant_id, offsetSeconds: Number(r.offset_seconds) }))];
}
