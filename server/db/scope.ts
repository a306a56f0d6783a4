// The conditions that scope a statement to its owner. Repositories AND one of these into every
// statement on a merchant-owned table; nothing else touches those tables.
import { type RawBuilder, sql, type SqlBool } from 'kysely';
import type { DueScope } from '../shared/due-scope.js';
import type { MerchantRef, Tenant } from '../shared/tenant.js';

const column = (table: string | undefined, name: string) => sql.ref(table ? `${table}.${name}` : name);

/** The row belongs to the tenant: its merchant and its mode. `table` is the table's name or alias in a join. */
export function ofTenant(tenant: Tenant, table?: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`(${column(table, 'merchant_id')} = ${tenant.merchantId} AND ${column(table, 'livemode')} = ${tenant.livemode})`;
}

/** The row belongs to the merchant (rows both modes share). */
export function ofMerchant(owner: MerchantRef, table?: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`${column(table, 'merchant_id')} = ${owner.merchantId}`;
}

/**
 * The row belongs to a due-work scope (its `merchant_id` and `livemode` columns): test-mode rows of
 * a merchant with an advanced clock belong to that merchant's sandbox scope only; everything else
 * to the global scope.
 */
export function inScope(scope: DueScope, table: string): RawBuilder<SqlBool> {
  const merchant = column(table, 'merchant_id');
  const livemode = column(table, 'livemode');
  if (scope.kind === 'sandbox') return sql<SqlBool>`(${merchant} = ${scope.merchantId} AND NOT ${livemode})`;
  return sql<SqlBool>`(${livemode} OR NOT EXISTS (SELECT 1 FROM sandbox_clocks advanced WHERE advanced.merchant_id = ${merchant} AND advanced.offset_seconds > 0))`;
}
