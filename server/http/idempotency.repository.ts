import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { SHARED_WRITE } from '../db/pipelined-pool.js';
import { THEN_COMMIT } from '../db/transaction-client.js';
import { precompiled } from '../db/precompiled.js';
import { ofTenant } from '../db/scope.js';
import type { Tenant } from '../shared/tenant.js';

// Idempotency keys, per merchant, mode and key: a claim while the first request runs, then its
// stored response.

/**
 * Claims a key for a first request; answers false when the key exists already. A shared write:
 * a key row is locked by a transaction only in its last statement (the mark, sent with the
 * commit), and otherwise only by single statements like this one.
 */
export async function claimKey(db: Db, tenant: Tenant, key: string, requestHash: string, now: Date): Promise<boolean> {
  const claimed = await claimQuery(db, [tenant.merchantId, tenant.livemode, key, requestHash, now]);
  return claimed.rows.length > 0;
}

const claimQuery = precompiled((db, value) =>
  db
    .insertInto('idempotency_keys')
    .values({ merchant_id: value(0), livemode: value(1), key: value(2), request_hash: value(3), state: 'in_flight', locked_at: value(4), created_at: value(4) })
    .onConflict((oc) => oc.columns(['merchant_id', 'livemode', 'key']).doNothing())
    .returning('key')
    .modifyEnd(sql.raw(SHARED_WRITE)),
);

export async function findKey(db: Db, tenant: Tenant, key: string) {
  return db.selectFrom('idempotency_keys').selectAll().where(ofTenant(tenant)).where('key', '=', key).executeTakeFirst();
}

/**
 * Claims again a key created before `expiredBefore` (older than the retention: forgotten, even while
 * the cleanup job has not deleted it yet) for a new first request; answers whether it did.
 */
export async function reclaimExpiredKey(db: Db, tenant: Tenant, key: string, requestHash: string, now: Date, expiredBefore: Date): Promise<boolean> {
  const taken = await db
    .updateTable('idempotency_keys')
    .set({ request_hash: requestHash, state: 'in_flight', locked_at: now, created_at: now, response_status: null, response_headers: null, response_body: null })
    .where(ofTenant(tenant))
    .where('key', '=', key)
    .where('created_at', '<', expiredBefore)
    .returning('key')
    .executeTakeFirst();
  return taken !== undefined;
}

/** Takes over an in-flight claim older than `staleBefore` (its process died); answers whether it did. */
export async function takeOverStaleKey(db: Db, tenant: Tenant, key: string, now: Date, staleBefore: Date): Promise<boolean> {
  const taken = await db
    .updateTable('idempotency_keys')
    .set({ locked_at: now })
    .where(ofTenant(tenant))
    .where('key', '=', key)
    .where('state', '=', 'in_flight')
    .where('locked_at', '<', staleBefore)
    .returning('key')
    .executeTakeFirst();
  return taken !== undefined;
}

/** Stores the first request's answer under its key. A shared write, as `claimKey` is. */
export async function storeResponse(
  db: Db,
  tenant: Tenant,
  key: string,
  response: { status: number; headers: Record<string, string>; body: string },
): Promise<void> {
  await storeQuery(db, [tenant.merchantId, tenant.livemode, key, response.status, JSON.stringify(response.headers), response.body]);
}

const storeQuery = precompiled((db, value) =>
  db
    .updateTable('idempotency_keys')
    .set({ state: 'done', response_status: value(3), response_headers: value(4), response_body: value(5) })
    .where(ofTenant({ merchantId: value(0), livemode: value(1) }))
    .where('key', '=', value(2))
    .modifyEnd(sql.raw(SHARED_WRITE)),
);

/**
 * Marks the key of the request whose transaction this is: it commits with it. It runs last in the
 * transaction (the commit hook's place), so on PostgreSQL the commit is sent with it.
 */
export async function markKeyCommitted(trx: Db, tenant: Tenant, key: string): Promise<void> {
  await markQuery(trx, [tenant.merchantId, tenant.livemode, key]);
}

const markQuery = precompiled((db, value) =>
  db
    .updateTable('idempotency_keys')
    .set({ state: 'committed' })
    .where(ofTenant({ merchantId: value(0), livemode: value(1) }))
    .where('key', '=', value(2))
    .where('state', '=', 'in_flight')
    .modifyEnd(sql.raw(THEN_COMMIT)),
);

/**
 * Lets a key go (the first request failed on our side; a retry runs again), unless the request
 * committed something: then a retry must not run it again. `evenCommitted`: the request committed
 * only the record of a refused attempt (the processor's 502), and the operation says a retry runs
 * it again.
 */
export async function releaseKey(db: Db, tenant: Tenant, key: string, options: { evenCommitted?: boolean } = {}): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where(ofTenant(tenant))
    .where('key', '=', key)
    .where('state', 'in', options.evenCommitted ? ['in_flight', 'committed'] : ['in_flight'])
    .execute();
}

/** Deletes the keys of every tenant created before `cutoff` (the retention job). */
export async function deleteKeysBefore(db: Db, cutoff: Date): Promise<number> {
  const result = await db.deleteFrom('idempotency_keys').where('created_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows ?? 0);
}
