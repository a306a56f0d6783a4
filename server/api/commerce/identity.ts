import { createRestrictedKey, createRole, currentUser, getRole, revokeRestrictedKey } from '../../domain/merchants/identity.service.js';
import { SCOPES } from '../../domain/merchants/scopes.js';
import { forgetKey } from '../../http/auth.js';
import { created, noContent, ok } from '../kit.js';
import type { CommerceHandlers } from '../types.js';
import { restrictedKeyView, roleView, scopeView, userView } from './views/identity.view.js';

export const identityHandlers: CommerceHandlers = {
  async getCurrentUser({ db, deps, tenant, auth }) {
    return ok(userView(await currentUser(db, deps.clock, tenant.merchantId, auth.grants)));
  },
  async createRole({ db, deps, tenant, auth, body }) {
    return created(roleView(await createRole(db, deps.clock, tenant.merchantId, body, auth.grants)));
  },
  async getRole({ db, tenant, path }) {
    return ok(roleView(await getRole(db, tenant.merchantId, path.id)));
  },
  async listScopes() {
    return ok({ value: SCOPES.map(scopeView) });
  },
  async createRestrictedKey({ db, deps, tenant, auth, path, body }) {
    return created(restrictedKeyView(await createRestrictedKey(db, deps.clock, tenant, path.id, body?.description, auth.grants)));
  },
  async revokeRestrictedKey({ db, deps, tenant, path }) {
    forgetKey(await revokeRestrictedKey(db, deps.clock, tenant, path.id, path.keyId));
    return noContent();
  },
};
