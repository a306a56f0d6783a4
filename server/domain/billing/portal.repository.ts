import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import { ofTenant } from '../../db/scope.js';
import type { PortalSessionRow, PortalSessionsTable } from './portal.tables.js';
import type { Tenant } from '../../shared/tenant.js';

// Portal sessions, and the one write the portal makes to subscriptions itself (the card they are
// charged to). A portal page is reached by its token alone, so `findPortalSessionByTokenHash` is
// the one read that does not start from a tenant: everything after it is scoped to the session's.

export async function insertPortalSession(db: Db, values: Insertable<PortalSessionsTable>): Promise<PortalSessionRow> {
  return db.insertInto('portal_sessions').values(values).returningAll().executeTakeFirstOrThrow();
}

/** The portal session whose token hashes to `tokenHash` (the page's credential), or undefined. */
export async function findPortalSessionByTokenHash(db: Db, tokenHash: string): Promise<PortalSessionRow | undefined> {
  return db.selectFrom('portal_sessions').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** Points every subscription of the customer in the tenant's mode that is not canceled at a card; answers their ids. */
export async function setCardOfLiveSubscriptions(db: Db, tenant: Tenant, customerId: number, paymentMethodId: string, now: Date): Promise<number[]> {
  const rows = await db
    .updateTable('subscriptions')
    .set({ payment_method_id: paymentMethodId, updated_at: now })
    .where(ofTenant(tenant))
    .where('customer_id', '=', customerId)
    .where('status', '!=', 'canceled')
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}
