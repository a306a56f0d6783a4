import { sql } from 'kysely';
import type { Db } from '../db/database.js';
import { SHARED_WRITE, THEN_COMMIT } from '../db/pipelined-pool.js';
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
  const claimed = await db
    .insertInto('idempotency_keys')
    .values({ merchant_id: tenant.merchantId, livemode: tenant.livemode, key, request_hash: requestHash, state: 'in_flight', locked_at: now, created_at: now })
    .onConflict((oc) => oc.columns(['merchant_id', 'livemode', 'key']).doNothing())
    .returning('key')
    .modifyEnd(sql.raw(SHARED_WRITE))
    .executeTakeFirst();
  return claimed !== undefined;
}

export async function findKey(db: Db, tenant: Tenant, key: string) {
  return db.selectFrom('idempotency_keys').selectAll().where(ofTenant(tenant)).where('key', '=', key).executeTakeFirst();
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
export async function storeResponse(db: Db, tenant: Tenant, key: string, response: { status: number; headers: Record<string, string>; body: string }): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ state: 'done', response_status: response.status, response_headers: JSON.stringify(response.headers), response_body: response.body })
    .where(ofTenant(tenant))
    .where('key', '=', key)
    .modifyEnd(sql.raw(SHARED_WRITE))
    .execute();
}

/**
 * Marks the key of the request whose transaction this is: it commits with it. It runs last in the
 * transaction (the commit hook's place), so on PostgreSQL the commit is sent with it.
 */
export async function markKeyCommitted(trx: Db, tenant: Tenant, key: string): Promise<void> {
  await trx
    .updateTable('idempotency_keys')
    .set({ state: 'committed' })
    .where(ofTenant(tenant))
    .where('key', '=', key)
    .where('state', '=', 'in_flight')
    .modifyEnd(sql.raw(THEN_COMMIT))
    .execute();
}

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
