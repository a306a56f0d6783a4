// The dashboard's list of a tenant's checkout sessions: keyset pages newest first on the index
// `checkout_sessions_merchant (merchant_id, livemode, created_at DESC)`, the cursor a session id
// (its creation time and id order the list).
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { ofTenant } from '../../db/scope.js';
import type { Tenant } from '../../shared/tenant.js';
import type { CheckoutSessionRow } from './session.tables.js';

export interface SessionListFilter {
  status?: string | undefined;
  /** A session id, or a customer's email. */
  search?: string | undefined;
}

export interface SessionCursor {
  limit: number;
  /** The last session id held: older ones follow. */
  after?: string | undefined;
  /** The first session id held: newer ones. */
  before?: string | undefined;
}

export type SessionListItem = Pick<
  CheckoutSessionRow,
  'id' | 'status' | 'payment_status' | 'amount' | 'currency' | 'mode' | 'payment_type' | 'customer_email' | 'payment_id' | 'created_at' | 'expires_at'
>;

/** One page, newest first, with one more row than `limit` when more follow in the cursor's direction. */
export async function findSessionPage(db: Db, tenant: Tenant, filter: SessionListFilter, cursor: SessionCursor): Promise<SessionListItem[]> {
  let query = db
    .selectFrom('checkout_sessions as s')
    .select([
      's.id',
      's.status',
      's.payment_status',
      's.amount',
      's.currency',
      's.mode',
      's.payment_type',
      's.customer_email',
      's.payment_id',
      's.created_at',
      's.expires_at',
    ])
    .where(ofTenant(tenant, 's'));
  if (filter.status) query = query.where('s.status', '=', filter.status);
  const search = filter.search?.trim();
  if (search) query = search.includes('@') ? query.where(sql<boolean>`lower(s.customer_email) = ${search.toLowerCase()}`) : query.where('s.id', '=', search);
  const mark = (id: string) => sql`(SELECT c.created_at, c.id FROM checkout_sessions c WHERE c.id = ${id} AND ${ofTenant(tenant, 'c')})`;
  if (cursor.before !== undefined) {
    const rows = await query
      .where(sql<boolean>`(s.created_at, s.id) > ${mark(cursor.before)}`)
      .orderBy('s.created_at', 'asc')
      .orderBy('s.id', 'asc')
      .limit(cursor.limit + 1)
      .execute();
    return rows.reverse();
  }
  if (cursor.after !== undefined) query = query.where(sql<boolean>`(s.created_at, s.id) < ${mark(cursor.after)}`);
  return query
    .orderBy('s.created_at', 'desc')
    .orderBy('s.id', 'desc')
    .limit(cursor.limit + 1)
    .execute();
}
