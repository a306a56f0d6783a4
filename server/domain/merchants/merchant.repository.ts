import type { Db } from '../../db/database.js';
import { type Insertable, sql } from 'kysely';
import type { ApiKeysTable, Merchant, MerchantsTable } from './merchant.tables.js';

// Merchants own everything else; their rows are looked up by id (the tenant's merchant) or, for
// authentication, by the hash of a presented key.

export async function slugTaken(db: Db, slug: string): Promise<boolean> {
  return (await db.selectFrom('merchants').select('id').where('slug', '=', slug).executeTakeFirst()) !== undefined;
}

export async function insertMerchant(db: Db, values: Insertable<MerchantsTable>): Promise<Merchant> {
  return db.insertInto('merchants').values(values).returningAll().executeTakeFirstOrThrow();
}

/** Inserts a sandbox merchant made now and expiring `lifetimeSeconds` later, in real time (the database's clock, never a sandbox clock). */
export async function insertSandboxMerchant(
  db: Db,
  values: Omit<Insertable<MerchantsTable>, 'sandbox_expires_at' | 'created_at'> & { parent_merchant_id: number },
  lifetimeSeconds: number,
): Promise<Merchant> {
  return db
    .insertInto('merchants')
    .values({ ...values, created_at: sql<Date>`now()`, sandbox_expires_at: sql<Date>`now() + make_interval(secs => ${lifetimeSeconds})` })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function insertApiKeys(db: Db, rows: Insertable<ApiKeysTable>[]): Promise<void> {
  await db.insertInto('api_keys').values(rows).execute();
}

/** A merchant by id; it exists whenever a caller acts for it (authentication found it). */
export async function findMerchant(db: Db, merchantId: number): Promise<Merchant> {
  return db.selectFrom('merchants').selectAll().where('id', '=', merchantId).executeTakeFirstOrThrow();
}

/** The merchant of an id, or undefined when there is none. */
export async function findMerchantIfAny(db: Db, merchantId: number): Promise<Merchant | undefined> {
  return db.selectFrom('merchants').selectAll().where('id', '=', merchantId).executeTakeFirst();
}

/**
 * The merchant and key behind a key hash, or undefined when it is unknown or revoked. A
 * restricted key's role comes with it (its name and scopes), so authentication needs no second
 * query; roles never change once made, so a cached key's scopes stay true.
 */
export async function findActiveKeyByHash(db: Db, keyHash: string) {
  return (
    db
      .selectFrom('api_keys')
      .innerJoin('merchants', 'merchants.id', 'api_keys.merchant_id')
      .leftJoin('roles', 'roles.id', 'api_keys.role_id')
      .select([
        'api_keys.id as keyId',
        'api_keys.kind',
        'api_keys.livemode',
        'api_keys.merchant_id as merchantId',
        'merchants.rate_plan as ratePlan',
        'merchants.sandbox_expires_at as sandboxExpiresAt',
        'roles.name as roleName',
        'roles.scopes as roleScopes',
      ])
      .where('api_keys.key_hash', '=', keyHash)
      .where('api_keys.revoked_at', 'is', null)
      // A sandbox merchant's keys stop at its expiry, in real time (the database's clock).
      .where((eb) => eb.or([eb('merchants.sandbox_expires_at', 'is', null), eb('merchants.sandbox_expires_at', '>', sql<Date>`now()`)]))
      .executeTakeFirst()
  );
}

/** How many sandbox merchants of `parentId` are alive (not yet expired, in real time). */
export async function countLiveSandboxes(db: Db, parentId: number): Promise<number> {
  const row = await db
    .selectFrom('merchants')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('parent_merchant_id', '=', parentId)
    .where('sandbox_expires_at', '>', sql<Date>`now()`)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Serializes the making of sandbox merchants of one parent (PostgreSQL; PGlite has one connection), so the limit holds under concurrency. */
export async function lockSandboxParent(db: Db, parentId: number): Promise<void> {
  await db.selectFrom('merchants').select('id').where('id', '=', parentId).forUpdate().execute();
}

export async function countMerchantRows(db: Db): Promise<number> {
  const row = await db
    .selectFrom('merchants')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The text of the tenant's hosted-page publishable key, if it has one. */
export async function findPageKey(db: Db, merchantId: number, livemode: boolean): Promise<string | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .select('page_key')
    .where('merchant_id', '=', merchantId)
    .where('livemode', '=', livemode)
    .where('page_key', 'is not', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row?.page_key ?? undefined;
}

/** Adds the tenant's hosted-page key; a concurrent first request may have added one already (then nothing is added). */
export async function insertPageKey(db: Db, values: Insertable<ApiKeysTable> & { page_key: string }): Promise<void> {
  await db
    .insertInto('api_keys')
    .values(values)
    .onConflict((oc) => oc.columns(['merchant_id', 'livemode']).where('page_key', 'is not', null).where('revoked_at', 'is', null).doNothing())
    .execute();
}

// For other modules' statements: the merchant columns they join or read, in the same statement.

/** For a join: each merchant's rate plan (a session's client secret is authenticated with it). */
export function merchantRatePlans(db: Db) {
  return db.selectFrom('merchants').select(['id', 'rate_plan']);
}

/** For a join: each merchant's slug (a link's vanity URL names it). */
export function merchantSlugs(db: Db) {
  return db.selectFrom('merchants').select(['id', 'slug']);
}

/** A subquery: the merchant's setting that a new checkout session takes as its default. */
export function merchantSessionDefault(db: Db, merchantId: number, setting: 'message_checkout_customers' | 'send_checkout_receipts') {
  return db.selectFrom('merchants').select(setting).where('id', '=', merchantId);
}
