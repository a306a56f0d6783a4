import { sql } from 'kysely';
import type { Db, Trx } from '../../db/database.js';
import type { ListPage, ListQuery } from '../../odata/index.js';
import { listPage } from '../../odata/index.js';
import type { Tenant } from '../../shared/tenant.js';
import type { Role } from './identity.tables.js';

// Listing, reading and deleting roles and restricted keys (issue 35 §15). Roles are the
// merchant's in both modes (`merchantId` only); restricted keys are a mode's (the tenant). A key's
// hash is never selected here: nothing that lists keys needs it.

/** A restricted key as listed: its row without the hash, with its role's name and scopes. */
export interface RestrictedKeyRecord {
  id: number;
  merchant_id: number;
  livemode: boolean;
  key_prefix: string;
  description: string | null;
  created_at: Date;
  revoked_at: Date | null;
  role_id: number;
  role_name: string;
  role_scopes: string[];
}

/** A page of the merchant's roles. */
export async function listRoleRows(db: Db, merchantId: number, query: ListQuery): Promise<ListPage<Role>> {
  return listPage(query, db.selectFrom('roles').selectAll().where('merchant_id', '=', merchantId));
}

/** The merchant's restricted keys with their roles (`api_keys` joined to `roles`), narrowed by `where`. */
function keysWithRoles(db: Db, merchantId: number) {
  return db
    .selectFrom('api_keys')
    .innerJoin('roles', 'roles.id', 'api_keys.role_id')
    .select([
      'api_keys.id',
      'api_keys.merchant_id',
      'api_keys.livemode',
      'api_keys.key_prefix',
      'api_keys.description',
      'api_keys.created_at',
      'api_keys.revoked_at',
      'roles.id as role_id',
      'roles.name as role_name',
      'roles.scopes as role_scopes',
    ])
    .where('api_keys.merchant_id', '=', merchantId)
    .where('api_keys.kind', '=', 'restricted');
}

/** A page of the role's keys in the tenant's mode, active and revoked. */
export async function listRoleKeyRows(db: Db, tenant: Tenant, roleId: number, query: ListQuery): Promise<ListPage<RestrictedKeyRecord>> {
  const scoped = keysWithRoles(db, tenant.merchantId).where('api_keys.livemode', '=', tenant.livemode).where('api_keys.role_id', '=', roleId);
  return listPage(query, scoped) as Promise<ListPage<RestrictedKeyRecord>>;
}

/** One key of the role in the tenant's mode. */
export async function findRoleKeyRow(db: Db, tenant: Tenant, roleId: number, keyId: number): Promise<RestrictedKeyRecord | undefined> {
  return keysWithRoles(db, tenant.merchantId)
    .where('api_keys.livemode', '=', tenant.livemode)
    .where('api_keys.role_id', '=', roleId)
    .where('api_keys.id', '=', keyId)
    .executeTakeFirst() as Promise<RestrictedKeyRecord | undefined>;
}

/** Every restricted key of the merchant, in both modes, optionally of one role: oldest first (the merchant command's list). */
export async function allMerchantKeyRows(db: Db, merchantId: number, roleId?: number): Promise<RestrictedKeyRecord[]> {
  let q = keysWithRoles(db, merchantId);
  if (roleId !== undefined) q = q.where('api_keys.role_id', '=', roleId);
  return q.orderBy('api_keys.id').execute() as Promise<RestrictedKeyRecord[]>;
}

/** One restricted key of the merchant in either mode, by id (the merchant command's revoke). */
export async function findMerchantKeyRow(db: Db, merchantId: number, keyId: number): Promise<RestrictedKeyRecord | undefined> {
  return keysWithRoles(db, merchantId).where('api_keys.id', '=', keyId).executeTakeFirst() as Promise<RestrictedKeyRecord | undefined>;
}

/**
 * Locks the merchant's role against new keys until the transaction ends (a key's insert takes a
 * share lock on its role), and answers it; undefined when there is none.
 */
export async function lockRole(trx: Trx, merchantId: number, roleId: number): Promise<Role | undefined> {
  return trx.selectFrom('roles').selectAll().where('merchant_id', '=', merchantId).where('id', '=', roleId).forUpdate().executeTakeFirst();
}

/** How many active (not revoked) keys carry the role, in either mode. */
export async function countActiveRoleKeys(trx: Trx, roleId: number): Promise<number> {
  const row = await trx
    .selectFrom('api_keys')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('role_id', '=', roleId)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return row.n;
}

/** Deletes the role; its (revoked) keys go with it (`ON DELETE CASCADE`). */
export async function deleteRoleRow(trx: Trx, roleId: number): Promise<void> {
  await trx.deleteFrom('roles').where('id', '=', roleId).execute();
}

/** Every role of the merchant, oldest first (the merchant command's list). */
export async function allMerchantRoleRows(db: Db, merchantId: number): Promise<Role[]> {
  return db.selectFrom('roles').selectAll().where('merchant_id', '=', merchantId).orderBy('id').execute();
}

/** The merchant's roles newest first, `limit + 1` of them, older than `startingAfter` when given (the dashboard's pages). */
export async function findRolesNewestFirst(db: Db, merchantId: number, page: { limit: number; startingAfter?: number | undefined }): Promise<Role[]> {
  let q = db.selectFrom('roles').selectAll().where('merchant_id', '=', merchantId);
  if (page.startingAfter !== undefined) q = q.where('id', '<', page.startingAfter);
  return q
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .execute();
}

/** The role's keys in the tenant's mode newest first, `limit + 1` of them, older than `startingAfter` when given. */
export async function findRoleKeysNewestFirst(
  db: Db,
  tenant: Tenant,
  roleId: number,
  page: { limit: number; startingAfter?: number | undefined },
): Promise<RestrictedKeyRecord[]> {
  let q = keysWithRoles(db, tenant.merchantId).where('api_keys.livemode', '=', tenant.livemode).where('api_keys.role_id', '=', roleId);
  if (page.startingAfter !== undefined) q = q.where('api_keys.id', '<', page.startingAfter);
  return q
    .orderBy('api_keys.id', 'desc')
    .limit(page.limit + 1)
    .execute() as Promise<RestrictedKeyRecord[]>;
}
