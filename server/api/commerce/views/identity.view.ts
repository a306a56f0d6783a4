// The user behind a key, roles, restricted keys and scopes, as the Commerce interface writes them.
import type { components } from '../../../../generated/commerce.js';
import type { Role } from '../../../domain/merchants/identity.tables.js';
import type { CurrentUser, NewRestrictedKey } from '../../../domain/merchants/identity.service.js';
import type { RestrictedKeyRecord } from '../../../domain/merchants/key-admin.service.js';
import type { ScopeInfo } from '../../../domain/merchants/scopes.js';

type Schemas = components['schemas'];

export const userView = ({ user, roles, scopes }: CurrentUser): Schemas['User'] => ({
  id: user.id,
  email: user.email,
  firstName: user.first_name,
  lastName: user.last_name,
  merchantId: user.merchant_id,
  roles,
  scopes,
  createdDateTime: user.created_at.toISOString(),
});

export const roleView = (r: Role): Schemas['Role'] => ({
  id: r.id,
  name: r.name,
  description: r.description,
  scopes: r.scopes,
  createdDateTime: r.created_at.toISOString(),
});

export const restrictedKeyView = ({ key, row, role }: NewRestrictedKey): Schemas['RestrictedKey'] => ({
  id: row.id,
  key,
  keyPrefix: row.key_prefix,
  roleId: role.id,
  roleName: role.name,
  scopes: role.scopes,
  livemode: row.livemode,
  description: row.description,
  createdDateTime: row.created_at.toISOString(),
});

export const scopeView = (s: ScopeInfo): Schemas['Scope'] => ({ name: s.name, description: s.description, interfaces: s.interfaces });

/** A restricted key as listed and read: never its text, only its prefix. */
export const restrictedKeyInfoView = (k: RestrictedKeyRecord): Schemas['RestrictedKeyInfo'] => ({
  id: k.id,
  keyPrefix: k.key_prefix,
  roleId: k.role_id,
  roleName: k.role_name,
  scopes: k.role_scopes,
  livemode: k.livemode,
  description: k.description,
  createdDateTime: k.created_at.toISOString(),
  revokedDateTime: k.revoked_at?.toISOString() ?? null,
});
