import type { Kysely } from 'kysely';
import { type AuditTrail, deletedFields } from '../../db/audit-trail.js';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { ListPage, ListQuery } from '../../odata/index.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { type Page, toPage } from '../../shared/pagination.js';
import type { Tenant } from '../../shared/tenant.js';
import type { Role } from './identity.tables.js';
import { getRole, revokeRestrictedKey, roleFields } from './identity.service.js';
import {
  allMerchantKeyRows,
  allMerchantRoleRows,
  countActiveRoleKeys,
  deleteRoleRow,
  findRoleKeysNewestFirst,
  findRolesNewestFirst,
  findMerchantKeyRow,
  findRoleKeyRow,
  listRoleKeyRows,
  listRoleRows,
  lockRole,
  type RestrictedKeyRecord,
} from './key-admin.repository.js';

// Listing, reading and deleting roles; listing, reading and revoking restricted keys (issue 35
// §15, Till's design). On the API only a full secret key reaches these (`x-secret-key-only` in
// the contract, enforced by http/auth.ts); the merchant command calls them for any merchant.

export type { RestrictedKeyRecord } from './key-admin.repository.js';

/** A page of the merchant's roles (both modes share them). */
export const listRoles = (db: Db, merchantId: number, query: ListQuery): Promise<ListPage<Role>> => listRoleRows(db, merchantId, query);

/** Every role of the merchant, oldest first (the merchant command). */
export const listMerchantRoles = (db: Db, merchantId: number): Promise<Role[]> => allMerchantRoleRows(db, merchantId);

/** A page of the merchant's roles, newest first (the dashboard). */
export const pageRoles = async (db: Db, merchantId: number, page: { limit: number; startingAfter?: number | undefined }): Promise<Page<Role>> =>
  toPage(await findRolesNewestFirst(db, merchantId, page), page.limit);

/** A page of the role's keys in the tenant's mode, newest first (the dashboard); 404 when the role is not the merchant's. */
export async function pageRoleKeys(
  db: Db,
  tenant: Tenant,
  roleId: number,
  page: { limit: number; startingAfter?: number | undefined },
): Promise<Page<RestrictedKeyRecord>> {
  await getRole(db, tenant.merchantId, roleId);
  return toPage(await findRoleKeysNewestFirst(db, tenant, roleId, page), page.limit);
}

const s = (n: number) => (n === 1 ? '' : 's');

/**
 * Deletes a role of the merchant with its revoked keys; 404 when it is not the merchant's, 409
 * `invalid_state` while an active key (either mode) carries it. The role is locked first, so a
 * key made meanwhile either counts here or finds no role. Recorded on `trail` when given.
 */
export async function deleteRole(db: Kysely<Database>, merchantId: number, roleId: number, trail?: AuditTrail): Promise<Role> {
  return db.transaction().execute(async (trx) => {
    const role = await lockRole(trx, merchantId, roleId);
    if (!role) throw new AppError('resource_not_found', { message: `No role ${roleId}.` });
    const active = await countActiveRoleKeys(trx, roleId);
    if (active > 0) {
      throw new AppError('invalid_state', {
        message: `Role ${roleId} (${role.name}) is carried by ${active} active restricted key${s(active)}. Revoke ${active === 1 ? 'it' : 'them'} first: DELETE /v1/role/${roleId}/keys/{keyId}.`,
      });
    }
    await deleteRoleRow(trx, roleId);
    await trail?.(trx, { action: 'role.deleted', targetId: role.id, changes: deletedFields(roleFields(role)) });
    return role;
  });
}

/** A page of the role's keys in the tenant's mode (404 when the role is not the merchant's). */
export async function listRestrictedKeys(db: Db, tenant: Tenant, roleId: number, query: ListQuery): Promise<ListPage<RestrictedKeyRecord>> {
  await getRole(db, tenant.merchantId, roleId);
  return listRoleKeyRows(db, tenant, roleId, query);
}

/** A key of the role in the tenant's mode, active or revoked, or 404. */
export async function getRestrictedKey(db: Db, tenant: Tenant, roleId: number, keyId: number): Promise<RestrictedKeyRecord> {
  const key = await findRoleKeyRow(db, tenant, roleId, keyId);
  if (!key) throw new AppError('resource_not_found', { message: `No restricted key ${keyId} of role ${roleId} in this mode.` });
  return key;
}

/** Every restricted key of the merchant, both modes, oldest first; of one role when given. */
export const listMerchantKeys = (db: Db, merchantId: number, roleId?: number): Promise<RestrictedKeyRecord[]> => allMerchantKeyRows(db, merchantId, roleId);

/**
 * Revokes a key of the merchant by its id alone, in whichever mode it is (the merchant command); 404
 * when it is not an active key of the merchant. Recorded on the trail `trailOf` makes for the key's
 * tenant, when given.
 */
export async function revokeMerchantKey(
  db: Kysely<Database>,
  clock: Clock,
  merchantId: number,
  keyId: number,
  trailOf?: (tenant: Tenant) => AuditTrail,
): Promise<RestrictedKeyRecord> {
  const key = await findMerchantKeyRow(db, merchantId, keyId);
  if (!key || key.revoked_at !== null) throw new AppError('resource_not_found', { message: `No active restricted key ${keyId} of merchant ${merchantId}.` });
  const tenant = { merchantId, livemode: key.livemode };
  await revokeRestrictedKey(db, clock, tenant, key.role_id, keyId, trailOf?.(tenant));
  return key;
}
