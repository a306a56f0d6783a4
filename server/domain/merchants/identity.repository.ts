import type { Insertable } from 'kysely';
import type { Db } from '../../db/database.js';
import type { MerchantLocation, MerchantLocationsTable, Role, RolesTable, User, UsersTable } from './identity.tables.js';
import type { ApiKey, ApiKeysTable } from './merchant.tables.js';
import type { Tenant } from '../../shared/tenant.js';

// Users, roles, restricted keys and locations of a merchant. Roles, users and locations are the
// merchant's in both modes (`merchantId` only); restricted keys are a mode's (the tenant).

/** The merchant's owner, if made yet. */
export async function findOwner(db: Db, merchantId: number): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('merchant_id', '=', merchantId).where('is_owner', '=', true).executeTakeFirst();
}

/** Adds the merchant's owner; a concurrent first read may have added it already (then nothing is added). */
export async function insertOwner(db: Db, values: Omit<Insertable<UsersTable>, 'is_owner'>): Promise<void> {
  await db
    .insertInto('users')
    .values({ ...values, is_owner: true })
    .onConflict((oc) => oc.column('merchant_id').where('is_owner', '=', true).doNothing())
    .execute();
}

export async function insertRole(db: Db, values: Insertable<RolesTable>): Promise<Role> {
  return db.insertInto('roles').values(values).returningAll().executeTakeFirstOrThrow();
}

/** A role of the merchant, by id. */
export async function findRole(db: Db, merchantId: number, roleId: number): Promise<Role | undefined> {
  return db.selectFrom('roles').selectAll().where('merchant_id', '=', merchantId).where('id', '=', roleId).executeTakeFirst();
}

/** Whether the merchant has a role of this name, compared without regard to case. */
export async function roleNameTaken(db: Db, merchantId: number, name: string): Promise<boolean> {
  const row = await db
    .selectFrom('roles')
    .select('id')
    .where('merchant_id', '=', merchantId)
    .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()))
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertRestrictedKey(db: Db, values: Insertable<ApiKeysTable> & { role_id: number }): Promise<ApiKey> {
  return db
    .insertInto('api_keys')
    .values({ ...values, kind: 'restricted' })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Revokes an active restricted key of the role in the tenant's mode; answers its hash, or undefined when there is none. */
export async function revokeRestrictedKeyRow(db: Db, tenant: Tenant, roleId: number, keyId: number, at: Date): Promise<string | undefined> {
  const row = await db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('merchant_id', '=', tenant.merchantId)
    .where('livemode', '=', tenant.livemode)
    .where('kind', '=', 'restricted')
    .where('role_id', '=', roleId)
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null)
    .returning('key_hash')
    .executeTakeFirst();
  return row?.key_hash;
}

/** The merchant's locations, primary first, then by id. */
export async function listLocationRows(db: Db, merchantId: number): Promise<MerchantLocation[]> {
  return db.selectFrom('merchant_locations').selectAll().where('merchant_id', '=', merchantId).orderBy('is_primary', 'desc').orderBy('id').limit(100).execute();
}

export async function insertLocation(db: Db, values: Insertable<MerchantLocationsTable>): Promise<MerchantLocation> {
  return db.insertInto('merchant_locations').values(values).returningAll().executeTakeFirstOrThrow();
}
