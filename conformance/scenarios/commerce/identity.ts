// The merchant, its locations, the user behind the key, roles, scopes and restricted keys of the
// Commerce interface; a restricted key's scopes hold on both interfaces.
import assert from 'node:assert/strict';
import type { ConformanceContext, HttpResult, RequestSpec, Scenario } from '../../types.js';
import { call, expectStatus } from '../fixtures/http.js';
import { secretKey, tag } from '../fixtures/keys.js';
import { COMMERCE_DOC, scenario, source } from '../fixtures/scenario.js';

const OTHER_OPS = source(COMMERCE_DOC, 'Endpoints', 'Other listed operations');
const AUTH = source(COMMERCE_DOC, 'Authentication');

const commerce = (
  ctx: ConformanceContext,
  operationId: string,
  spec: Omit<RequestSpec, 'apiKey'>,
  apiKey = ctx.options.apiKey ?? secretKey(ctx),
): Promise<HttpResult> => call(ctx, 'commerce', operationId, { ...spec, apiKey });
const unique = (ctx: ConformanceContext, label: string) => `${label} ${tag(ctx)} ${Math.random().toString(36).slice(2, 8)}`.slice(0, 100);

async function newRole(ctx: ConformanceContext, scopes: string[]): Promise<number> {
  const res = await commerce(ctx, 'createRole', { method: 'POST', path: '/v1/role', body: { name: unique(ctx, 'Conf role'), scopes } });
  expectStatus(res, 201, 'create a role');
  return res.json.id;
}
async function newRestrictedKey(ctx: ConformanceContext, roleId: number): Promise<string> {
  const res = await commerce(ctx, 'createRestrictedKey', { method: 'POST', path: `/v1/role/${roleId}/keys`, body: { description: `conformance ${tag(ctx)}` } });
  expectStatus(res, 201, 'create a restricted key');
  return res.json.key;
}
function assertDenied(res: HttpResult, scope: string, what: string): void {
  expectStatus(res, 403, what);
  const message: string = res.json?.error?.message ?? res.json?.errorMessage ?? '';
  assert.equal(res.json?.error?.code ?? res.json?.errorCode, 'permission_denied', `${what}: ${res.text.slice(0, 300)}`);
  assert.ok(message.includes(scope), `${what}: the message names ${scope}: ${message}`);
}

export const identityScenarios: Scenario[] = [
  scenario(
    'commerce.other.merchant',
    '`GET /v1/merchant`, `POST /v1/merchant` and `GET /v1/merchantLocation` answer',
    OTHER_OPS,
    ['getMerchant', 'createMerchant', 'listMerchantLocations'],
    async (ctx) => {
      const mine = await commerce(ctx, 'getMerchant', { method: 'GET', path: '/v1/merchant' });
      expectStatus(mine, 200, 'the merchant');
      assert.match(mine.json.slug, /^[a-z0-9][a-z0-9-]+[a-z0-9]$/);
      const slug = `conf-${tag(ctx)}-${Math.random().toString(36).slice(2, 8)}`.slice(0, 50).replace(/-+$/, '');
      const body = {
        name: `Conformance ${tag(ctx)}`,
        email: 'conformance@example.com',
        country: 'US',
        slug,
        location: { name: 'Main', address: { addressLine1: '1 Test St', city: 'Austin', country: 'US' } },
      };
      const made = await commerce(ctx, 'createMerchant', { method: 'POST', path: '/v1/merchant', body });
      expectStatus(made, 201, 'create a merchant');
      assert.equal(made.json.slug, slug);
      assert.match(made.json.keys.secret, /^sk_test_/);
      const locations = await commerce(ctx, 'listMerchantLocations', { method: 'GET', path: '/v1/merchantLocation' }, made.json.keys.secret);
      expectStatus(locations, 200, "the new merchant's locations");
      assert.deepEqual(
        locations.json.value.map((l: any) => [l.name, l.isPrimary, l.address.city]),
        [['Main', true, 'Austin']],
      );
      const again = await commerce(ctx, 'createMerchant', { method: 'POST', path: '/v1/merchant', body: { ...body, location: undefined } });
      expectStatus(again, 400, 'a slug in use');
      assert.equal(again.json.error.param, 'slug');
    },
  ),
  scenario(
    'commerce.other.user-role-scope',
    '`GET /v1/user`, `POST /v1/role` and `GET /v1/scope` answer',
    OTHER_OPS,
    ['getCurrentUser', 'createRole', 'listScopes'],
    async (ctx) => {
      const scopes = await commerce(ctx, 'listScopes', { method: 'GET', path: '/v1/scope' });
      expectStatus(scopes, 200, 'the scopes');
      const names: string[] = scopes.json.value.map((s: any) => s.name);
      assert.deepEqual(names, [...names].sort(), 'sorted by name');
      for (const needed of ['invoice.read', 'merchant.read', 'role.create', 'checkout.session.create']) assert.ok(names.includes(needed), needed);
      const user = await commerce(ctx, 'getCurrentUser', { method: 'GET', path: '/v1/user' });
      expectStatus(user, 200, 'the user');
      assert.deepEqual(user.json.scopes, names, 'a secret key holds every scope');
      const role = await commerce(ctx, 'createRole', {
        method: 'POST',
        path: '/v1/role',
        body: { name: unique(ctx, 'Conf reader'), scopes: ['invoice.read', 'account.read'] },
      });
      expectStatus(role, 201, 'create a role');
      assert.deepEqual(role.json.scopes, ['account.read', 'invoice.read']);
      const taken = await commerce(ctx, 'createRole', { method: 'POST', path: '/v1/role', body: { name: role.json.name, scopes: ['invoice.read'] } });
      expectStatus(taken, 409, 'a role name in use');
      const unknown = await commerce(ctx, 'createRole', {
        method: 'POST',
        path: '/v1/role',
        body: { name: unique(ctx, 'Conf typo'), scopes: ['invoice.reed'] },
      });
      expectStatus(unknown, 400, 'an unknown scope');
      assert.equal(unknown.json.error.param, 'scopes');
    },
  ),
  scenario(
    'commerce.identity.restricted-key-scopes',
    'A restricted key (`rk_`) calls the operations its role holds on both interfaces, and is refused any other with 403 `permission_denied` naming the missing scope',
    AUTH,
    ['createRole', 'createRestrictedKey', 'getCurrentUser', 'listCommerceInvoices', 'listInvoices', 'createProduct', 'getMerchant'],
    async (ctx) => {
      const rk = await newRestrictedKey(ctx, await newRole(ctx, ['invoice.read', 'user.read']));
      assert.match(rk, /^rk_test_/);
      const user = await commerce(ctx, 'getCurrentUser', { method: 'GET', path: '/v1/user' }, rk);
      assert.deepEqual(user.json.scopes, ['invoice.read', 'user.read']);
      expectStatus(
        await commerce(ctx, 'listCommerceInvoices', { method: 'GET', path: '/v1/invoice', query: { $top: 1 } }, rk),
        200,
        'Commerce invoices with the restricted key',
      );
      expectStatus(
        await call(ctx, 'checkout', 'listInvoices', { method: 'GET', path: '/v1/invoices', query: { limit: 1 }, key: rk }),
        200,
        'Checkout invoices with the restricted key',
      );
      assertDenied(await commerce(ctx, 'getMerchant', { method: 'GET', path: '/v1/merchant' }, rk), 'merchant.read', 'the merchant with the restricted key');
      assertDenied(
        await call(ctx, 'checkout', 'createProduct', { method: 'POST', path: '/v1/products', body: { name: 'never' }, key: rk }),
        'subscriptionproduct.create',
        'a product with the restricted key',
      );
    },
  ),
  scenario(
    'commerce.identity.no-escalation-and-revoke',
    'A restricted key cannot make a role beyond its own scopes; a revoked key answers 401',
    AUTH,
    ['createRole', 'createRestrictedKey', 'revokeRestrictedKey', 'getCurrentUser'],
    async (ctx) => {
      const roleId = await newRole(ctx, ['role.create', 'user.read']);
      const made = await commerce(ctx, 'createRestrictedKey', { method: 'POST', path: `/v1/role/${roleId}/keys` });
      expectStatus(made, 201, 'a restricted key');
      const beyond = await commerce(
        ctx,
        'createRole',
        { method: 'POST', path: '/v1/role', body: { name: unique(ctx, 'Conf wider'), scopes: ['transfer.create'] } },
        made.json.key,
      );
      assertDenied(beyond, 'transfer.create', 'a role beyond the key');
      expectStatus(await commerce(ctx, 'revokeRestrictedKey', { method: 'DELETE', path: `/v1/role/${roleId}/keys/${made.json.id}` }), 204, 'revoke');
      expectStatus(await commerce(ctx, 'getCurrentUser', { method: 'GET', path: '/v1/user' }, made.json.key), 401, 'the revoked key');
    },
  ),
];
