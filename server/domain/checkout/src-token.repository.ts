import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import { ofTenant } from '../../db/scope.js';
import { precompiled } from '../../db/precompiled.js';
import type { SrcTokensTable } from './saved-card.tables.js';
import type { Tenant } from '../../shared/tenant.js';

export async function insertSrcToken(db: Db, values: Insertable<SrcTokensTable>): Promise<void> {
  await db.insertInto('src_tokens').values(values).execute();
}

/** The click-to-pay token behind a payment method, if it is one. */
export async function findSrcToken(db: Db, tenant: Tenant, paymentMethodId: string): Promise<{ expires_at: Date } | undefined> {
  return (await srcTokenQuery(db, [paymentMethodId, tenant.merchantId, tenant.livemode])).rows[0];
}

/** The token of payment method value(0) in a tenant (value(1), value(2)). */
const srcTokenQuery = precompiled((db, value) =>
  db
    .selectFrom('src_tokens')
    .select('expires_at')
    .where('payment_method_id', '=', value(0))
    .where(ofTenant({ merchantId: value(1), livemode: value(2) })),
);
