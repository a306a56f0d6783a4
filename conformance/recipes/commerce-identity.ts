// The recipes of the Commerce identity operations: the merchant, its locations, the user, roles, scopes and restricted keys.
import { type Recipe } from './fixtures.js';
import type { ConformanceContext } from '../types.js';
import { commerceJson, onOwnAndForeign } from './commerce-request.js';

/** A role of the merchant behind `key`, unique to this run, with two read scopes. */
export async function fixtureRole(ctx: ConformanceContext, key?: string): Promise<{ id: number }> {
  const name = `Conformance ${ctx.runId} ${Math.random().toString(36).slice(2, 8)}`.replace(/[^A-Za-z0-9 _.-]/g, '').slice(0, 100);
  return commerceJson(ctx, 'createRole', { method: 'POST', path: '/v1/role', body: { name, scopes: ['user.read', 'invoice.read'] } }, key);
}
/** A restricted key of a new role of the merchant behind `key`: the path that reads and revokes it. */
export async function fixtureRestrictedKeyPath(ctx: ConformanceContext, key?: string): Promise<string> {
  const role = await fixtureRole(ctx, key);
  const made = await commerceJson(
    ctx,
    'createRestrictedKey',
    { method: 'POST', path: `/v1/role/${role.id}/keys`, body: { description: `conformance ${ctx.runId}`.slice(0, 200) } },
    key,
  );
  return `/v1/role/${role.id}/keys/${made.id}`;
}

/** The merchant, its locations, the user, roles, scopes and restricted keys (issue 16 §4). */
export const identityRecipes: Record<string, Recipe> = {
  getMerchant: { success: async () => ({ path: '/v1/merchant' }) },
  createMerchant: {
    // Each run makes one merchant more (named for the run): Till has no way to delete one.
    success: async (ctx) => ({
      path: '/v1/merchant',
      body: {
        name: `Conformance ${ctx.runId}`.slice(0, 200),
        email: 'conformance@example.com',
        country: 'US',
        location: { address: { addressLine1: '1 Test St', city: 'Austin', country: 'US' } },
      },
    }),
  },
  listMerchantLocations: { success: async () => ({ path: '/v1/merchantLocation' }) },
  // On the run's sandbox merchant when the target offers one: the merchant given keeps its locations.
  createMerchantLocation: {
    success: async (ctx) => {
      const sandbox = await ctx.sandboxMerchant();
      const body = { name: `Conformance ${ctx.runId}`.slice(0, 200), address: { addressLine1: '1 Test St', city: 'Austin', country: 'US' } };
      return { path: '/v1/merchantLocation', body, ...('ctx' in sandbox ? { apiKey: sandbox.ctx.options.secretKey } : {}) };
    },
  },
  getCurrentUser: { success: async () => ({ path: '/v1/user' }) },
  listScopes: { success: async () => ({ path: '/v1/scope' }) },
  createRole: {
    success: async (ctx) => ({
      path: '/v1/role',
      body: {
        name: `Conformance ${ctx.runId} ${Math.random().toString(36).slice(2, 8)}`.replace(/[^A-Za-z0-9 _.-]/g, '').slice(0, 100),
        scopes: ['invoice.read'],
      },
    }),
  },
  listRoles: { success: async () => ({ path: '/v1/role' }) },
  getRole: onOwnAndForeign(fixtureRole, (role) => `/v1/role/${role.id}`),
  // A new role has no key: it can be deleted.
  deleteRole: onOwnAndForeign(fixtureRole, (role) => `/v1/role/${role.id}`),
  listRestrictedKeys: onOwnAndForeign(fixtureRole, (role) => `/v1/role/${role.id}/keys`),
  getRestrictedKey: onOwnAndForeign(fixtureRestrictedKeyPath, (path) => path),
  createRestrictedKey: onOwnAndForeign(
    fixtureRole,
    (role) => `/v1/role/${role.id}/keys`,
    () => ({ description: 'conformance' }),
  ),
  revokeRestrictedKey: onOwnAndForeign(fixtureRestrictedKeyPath, (path) => path),
};
