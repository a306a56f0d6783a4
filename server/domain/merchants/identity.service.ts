import type { Kysely } from 'kysely';
import { type AuditTrail, createdFields } from '../../db/audit-trail.js';
import type { Db } from '../../db/database.js';
import { isUniqueViolation, sqlState } from '../../db/errors.js';
import type { Database } from '../../db/schema.js';
import type { MerchantLocation, Role, User } from './identity.tables.js';
import type { ApiKey, Merchant } from './merchant.tables.js';
import type { Clock } from '../../shared/clock.js';
import { hashSecret } from '../../shared/crypto.js';
import { AppError } from '../../shared/errors.js';
import type { Tenant } from '../../shared/tenant.js';
import {
  findOwner,
  findRole,
  insertOwner,
  insertRestrictedKey,
  insertRole,
  listLocationRows,
  revokeRestrictedKeyRow,
  roleNameTaken,
} from './identity.repository.js';
import { keyDisplayPrefix, newApiKey } from './keys.js';
import { findMerchant } from './merchant.repository.js';
import { announceKeyRevoked } from './key-revocation.js';
import { ALL_SCOPE_NAMES, SECRET_KEY_ONLY_SCOPES, isScope } from './scopes.js';

/** What the calling key holds: every scope (a secret key: null), or its role's (a restricted key). */
export type Grants = { roleName: string; scopes: readonly string[] } | null;

/** The role a secret key acts with; no role of a merchant may take its name. */
export const OWNER_ROLE = 'Owner';

/** The first of `wanted` that `grants` does not hold, if any. */
export function firstMissingScope(grants: Grants, wanted: readonly string[]): string | undefined {
  if (grants === null) return undefined;
  return wanted.find((scope) => !grants.scopes.includes(scope));
}

/** A restricted key may hand on only what it holds itself. */
function refuseEscalation(grants: Grants, wanted: readonly string[], what: string): void {
  const missing = firstMissingScope(grants, wanted);
  if (missing) {
    throw new AppError('permission_denied', {
      message: `This restricted key (role \`${grants!.roleName}\`) does not have the scope \`${missing}\`, so it cannot ${what} that grants it.`,
    });
  }
}

/** The merchant's owner, made on first need: the merchant's email (or a placeholder at `.invalid` when it has none), no name. */
export async function ownerOf(db: Db, clock: Clock, merchant: Merchant): Promise<User> {
  const found = await findOwner(db, merchant.id);
  if (found) return found;
  await insertOwner(db, {
    merchant_id: merchant.id,
    email: merchant.email ?? `owner@${merchant.slug}.invalid`,
    first_name: null,
    last_name: null,
    created_at: clock.now(),
  });
  return (await findOwner(db, merchant.id))!;
}

/** The user behind a key, with the roles it acts with and the scopes it holds. */
export interface CurrentUser {
  user: User;
  roles: string[];
  scopes: string[];
}

export async function currentUser(db: Db, clock: Clock, merchantId: number, grants: Grants): Promise<CurrentUser> {
  const user = await ownerOf(db, clock, await findMerchant(db, merchantId));
  if (grants === null) return { user, roles: [OWNER_ROLE], scopes: [...ALL_SCOPE_NAMES] };
  return { user, roles: [grants.roleName], scopes: [...grants.scopes].sort() };
}

export interface NewRole {
  name: string;
  description?: string | undefined;
  scopes: string[];
}

const nameTaken = (name: string) => new AppError('invalid_state', { param: 'name', message: `A role named '${name}' already exists.` });

/**
 * Makes a role of the merchant: known scopes only (400), no more than the caller holds (403), a
 * name not in use (409). Recorded on `trail` with it, when given.
 */
export async function createRole(db: Kysely<Database>, clock: Clock, merchantId: number, input: NewRole, grants: Grants, trail?: AuditTrail): Promise<Role> {
  const name = input.name.trim();
  if (name.length === 0) throw new AppError('parameter_invalid', { param: 'name', message: 'A role name must not be blank.' });
  const unknown = input.scopes.find((scope) => !isScope(scope));
  if (unknown) throw new AppError('parameter_invalid', { param: 'scopes', message: `'${unknown}' is not a scope. GET /v1/scope lists them.` });
  const secretOnly = input.scopes.find((scope) => SECRET_KEY_ONLY_SCOPES.has(scope));
  if (secretOnly) {
    throw new AppError('parameter_invalid', {
      param: 'scopes',
      message: `'${secretOnly}' belongs to the merchant's full secret key only: a role cannot grant it.`,
    });
  }
  refuseEscalation(grants, input.scopes, 'make a role');
  if (name.toLowerCase() === OWNER_ROLE.toLowerCase() || (await roleNameTaken(db, merchantId, name))) throw nameTaken(name);
  const scopes = [...new Set(input.scopes)].sort();
  return db.transaction().execute(async (trx) => {
    const role = await insertRole(trx, {
      merchant_id: merchantId,
      name,
      description: input.description?.trim() || null,
      scopes,
      created_at: clock.now(),
    }).catch((error: unknown) => {
      throw isUniqueViolation(error, 'roles_name') ? nameTaken(name) : error;
    });
    await trail?.(trx, { action: 'role.created', targetId: role.id, changes: createdFields(roleFields(role)) });
    return role;
  });
}

/** A role's fields as the audit log shows them. */
export const roleFields = (role: Role) => ({ name: role.name, description: role.description, scopes: role.scopes });

const noSuchRole = (roleId: number) => new AppError('resource_not_found', { message: `No role ${roleId}.` });

/** A role of the merchant (either mode), or 404. */
export async function getRole(db: Db, merchantId: number, roleId: number): Promise<Role> {
  const role = await findRole(db, merchantId, roleId);
  if (!role) throw noSuchRole(roleId);
  return role;
}

/** A new restricted key, with its text (shown once) and its role. */
export interface NewRestrictedKey {
  key: string;
  row: ApiKey;
  role: Role;
}

/**
 * Makes a restricted key carrying the role, in the tenant's mode. A restricted caller may only make
 * one within its own scopes. Recorded on `trail` (its prefix, never the key), when given.
 */
export async function createRestrictedKey(
  db: Kysely<Database>,
  clock: Clock,
  tenant: Tenant,
  roleId: number,
  description: string | undefined,
  grants: Grants,
  trail?: AuditTrail,
): Promise<NewRestrictedKey> {
  const role = await getRole(db, tenant.merchantId, roleId);
  refuseEscalation(grants, role.scopes, 'make a key of a role');
  const key = newApiKey('restricted', tenant.livemode);
  const row = await db.transaction().execute(async (trx) => {
    const made = await insertKeyOfRole(trx, tenant, role, key, description, clock);
    await trail?.(trx, { action: 'restricted_key.created', targetId: made.id, changes: createdFields(keyFields(made, role)) });
    return made;
  });
  return { key, row, role };
}

/** A restricted key's fields as the audit log shows them: its display prefix, never the key. */
const keyFields = (row: ApiKey, role: Role) => ({ keyPrefix: row.key_prefix, roleId: role.id, roleName: role.name, description: row.description });

async function insertKeyOfRole(db: Db, tenant: Tenant, role: Role, key: string, description: string | undefined, clock: Clock): Promise<ApiKey> {
  return insertRestrictedKey(db, {
    merchant_id: tenant.merchantId,
    livemode: tenant.livemode,
    kind: 'restricted',
    role_id: role.id,
    key_hash: hashSecret(key),
    key_prefix: keyDisplayPrefix(key),
    description: description?.trim() || null,
    created_at: clock.now(),
  }).catch((error: unknown) => {
    // The role was deleted meanwhile (DELETE /v1/role/{id} locks it, then deletes it).
    throw sqlState(error) === '23503' ? noSuchRole(role.id) : error;
  });
}

/** Revokes a restricted key of the role in the tenant's mode, recorded on `trail` when given; answers its hash (to forget it at once). */
export async function revokeRestrictedKey(
  db: Kysely<Database>,
  clock: Clock,
  tenant: Tenant,
  roleId: number,
  keyId: number,
  trail?: AuditTrail,
): Promise<string> {
  const revokedAt = clock.now();
  const hash = await db.transaction().execute(async (trx) => {
    const revoked = await revokeRestrictedKeyRow(trx, tenant, roleId, keyId, revokedAt);
    if (!revoked) throw new AppError('resource_not_found', { message: `No active restricted key ${keyId} of role ${roleId} in this mode.` });
    await trail?.(trx, { action: 'restricted_key.revoked', targetId: keyId, changes: { revokedAt: { before: null, after: revokedAt } } });
    return revoked;
  });
  announceKeyRevoked({ merchantId: tenant.merchantId, livemode: tenant.livemode, keyId, keyHash: hash });
  return hash;
}

/** The merchant's locations, primary first. */
export const listLocations = (db: Db, merchantId: number): Promise<MerchantLocation[]> => listLocationRows(db, merchantId);
