import { createRestrictedKey, createRole, currentUser, getRole, revokeRestrictedKey } from '../../domain/merchants/identity.service.js';
import { deleteRole, getRestrictedKey, listRestrictedKeys, listRoles } from '../../domain/merchants/key-admin.service.js';
import { SCOPES } from '../../domain/merchants/scopes.js';
import { compileQuery } from '../../odata/index.js';
import { trailOf } from '../audit.js';
import { created, noContent, ok } from '../kit.js';
import type { CommerceHandlers } from '../types.js';
import { odataBody } from './odata-list.js';
import { restrictedKeyResource, roleResource } from './odata/identity.js';
import { restrictedKeyInfoView, restrictedKeyView, roleView, scopeView, userView } from './views/identity.view.js';

export const identityHandlers: CommerceHandlers = {
  async getCurrentUser({ db, deps, tenant, auth }) {
    return ok(userView(await currentUser(db, deps.clock, tenant.merchantId, auth.grants)));
  },
  async listRoles({ db, tenant, query }) {
    const compiled = compileQuery(roleResource, query);
    return ok(odataBody(await listRoles(db, tenant.merchantId, compiled), compiled, '/v1/role', roleView));
  },
  async createRole(input) {
    const { db, deps, tenant, auth, body } = input;
    return created(roleView(await createRole(db, deps.clock, tenant.merchantId, body, auth.grants, trailOf(input))));
  },
  async getRole({ db, tenant, path }) {
    return ok(roleView(await getRole(db, tenant.merchantId, path.id)));
  },
  // Only a full secret key reaches this (x-secret-key-only).
  async deleteRole(input) {
    await deleteRole(input.db, input.tenant.merchantId, input.path.id, trailOf(input));
    return noContent();
  },
  async listScopes() {
    return ok({ value: SCOPES.map(scopeView) });
  },
  async listRestrictedKeys({ db, tenant, path, query }) {
    const compiled = compileQuery(restrictedKeyResource, query);
    return ok(odataBody(await listRestrictedKeys(db, tenant, path.id, compiled), compiled, `/v1/role/${path.id}/keys`, restrictedKeyInfoView));
  },
  async createRestrictedKey(input) {
    const { db, deps, tenant, auth, path, body } = input;
    return created(restrictedKeyView(await createRestrictedKey(db, deps.clock, tenant, path.id, body?.description, auth.grants, trailOf(input))));
  },
  async getRestrictedKey({ db, tenant, path }) {
    return ok(restrictedKeyInfoView(await getRestrictedKey(db, tenant, path.id, path.keyId)));
  },
  // The revocation is announced (onKeyRevoked): this process's key cache forgets the key at once.
  async revokeRestrictedKey(input) {
    const { db, deps, tenant, path } = input;
    await revokeRestrictedKey(db, deps.clock, tenant, path.id, path.keyId, trailOf(input));
    return noContent();
  },
};
