// Managing roles and restricted keys (issue 35 §15, Till's design, on the Commerce interface where
// they are made): roles are listed, read and deleted (409 while an active key carries one); a
// role's keys are listed and read by prefix only, and revoked (401 at once); only the full secret
// key manages keys; another merchant's role or key answers 404.
import assert from 'node:assert/strict';
import type { ConformanceContext, HttpResult, RequestSpec, Scenario } from '../../types.js';
import { call, expectError, expectStatus } from '../fixtures/http.js';
import { secretKey, tag } from '../fixtures/keys.js';
import { COMMERCE_DOC, scenario, source } from '../fixtures/scenario.js';

const AUTH = source(COMMERCE_DOC, 'Authentication');
const OTHER_OPS = source(COMMERCE_DOC, 'Endpoints', 'Other listed operations');

const commerce = (ctx: ConformanceContext, operationId: string, spec: Omit<RequestSpec, 'apiKey'>, apiKey = ctx.options.apiKey ?? secretKey(ctx)) =>
  call(ctx, 'commerce', operationId, { ...spec, apiKey });
const unique = (ctx: ConformanceContext, label: string) => `${label} ${tag(ctx)} ${Math.random().toString(36).slice(2, 8)}`.slice(0, 100);

async function newRole(ctx: ConformanceContext, scopes = ['invoice.read'], apiKey?: string): Promise<{ id: number; name: string }> {
  const res = await commerce(ctx, 'createRole', { method: 'POST', path: '/v1/role', body: { name: unique(ctx, 'Conf keys'), scopes } }, apiKey);
  expectStatus(res, 201, 'create a role');
  return res.json;
}
async function newKey(ctx: ConformanceContext, roleId: number, apiKey?: string): Promise<{ id: number; key: string; keyPrefix: string }> {
  const res = await commerce(
    ctx,
    'createRestrictedKey',
    { method: 'POST', path: `/v1/role/${roleId}/keys`, body: { description: `conformance ${tag(ctx)}` } },
    apiKey,
  );
  expectStatus(res, 201, 'create a restricted key');
  return res.json;
}
/** A second merchant, made for the run: its test secret key. */
async function otherMerchantKey(ctx: ConformanceContext): Promise<string> {
  const body = { name: unique(ctx, 'Conf other'), email: 'conformance@example.com', country: 'US' };
  const res = await commerce(ctx, 'createMerchant', { method: 'POST', path: '/v1/merchant', body });
  expectStatus(res, 201, 'create a second merchant');
  return res.json.keys.secret;
}
function expectDenied(res: HttpResult, scope: string, what: string): void {
  expectError(res, 403, 'permission_denied', 'permission_denied');
  assert.ok(res.json.error.message.includes(`\`${scope}\``), `${what}: the message names ${scope}: ${res.json.error.message}`);
}

export const keysAndRoles: Scenario[] = [
  scenario(
    'platform.keys.roles-list-and-delete',
    '`GET /v1/role` pages the roles; `DELETE /v1/role/{id}` answers 409 `invalid_state` while an active key carries the role, 204 once its keys are revoked; then it answers 404',
    OTHER_OPS,
    ['createRole', 'listRoles', 'getRole', 'deleteRole', 'createRestrictedKey', 'revokeRestrictedKey'],
    async (ctx) => {
      const [first, second] = [await newRole(ctx), await newRole(ctx)];
      const page = await commerce(ctx, 'listRoles', { method: 'GET', path: '/v1/role', query: { $top: 1, $count: true } });
      expectStatus(page, 200, 'the roles');
      assert.equal(page.json.value.length, 1, '$top=1');
      assert.equal(page.json.value[0].id, second.id, 'newest first');
      assert.ok(page.json['@odata.count'] >= 2, '@odata.count');
      assert.match(page.json['@odata.nextLink'], /^\/v1\/role\?.*\$skip=1/, 'a next link while more follow');
      const key = await newKey(ctx, first.id);
      expectError(await commerce(ctx, 'deleteRole', { method: 'DELETE', path: `/v1/role/${first.id}` }), 409, 'conflict', 'invalid_state');
      expectStatus(await commerce(ctx, 'getRole', { method: 'GET', path: `/v1/role/${first.id}` }), 200, 'a refused delete keeps the role');
      expectStatus(await commerce(ctx, 'revokeRestrictedKey', { method: 'DELETE', path: `/v1/role/${first.id}/keys/${key.id}` }), 204, 'revoke its key');
      expectStatus(await commerce(ctx, 'deleteRole', { method: 'DELETE', path: `/v1/role/${first.id}` }), 204, 'delete the role');
      expectError(await commerce(ctx, 'getRole', { method: 'GET', path: `/v1/role/${first.id}` }), 404, 'not_found', 'resource_not_found');
    },
    { ownMerchant: true },
  ),
  scenario(
    'platform.keys.list-by-prefix-and-revoke',
    "A role's keys are listed and read by `keyPrefix` only (the key's text never again); a revoked key answers 401 at once and lists with `revokedDateTime`; another merchant's role or key answers 404",
    AUTH,
    ['createMerchant', 'createRole', 'createRestrictedKey', 'listRestrictedKeys', 'getRestrictedKey', 'revokeRestrictedKey', 'getCurrentUser', 'deleteRole'],
    async (ctx) => {
      const role = await newRole(ctx, ['user.read']);
      const key = await newKey(ctx, role.id);
      const listed = await commerce(ctx, 'listRestrictedKeys', { method: 'GET', path: `/v1/role/${role.id}/keys` });
      expectStatus(listed, 200, "the role's keys");
      assert.deepEqual(
        listed.json.value.map((k: any) => [k.id, k.keyPrefix, k.revokedDateTime]),
        [[key.id, key.keyPrefix, null]],
      );
      assert.ok(!listed.text.includes(key.key), "the list never shows the key's text");
      const read = await commerce(ctx, 'getRestrictedKey', { method: 'GET', path: `/v1/role/${role.id}/keys/${key.id}` });
      expectStatus(read, 200, 'the key');
      assert.equal(read.json.key, undefined, 'no text');
      const other = await otherMerchantKey(ctx);
      for (const [operationId, path] of [
        ['listRestrictedKeys', `/v1/role/${role.id}/keys`],
        ['getRestrictedKey', `/v1/role/${role.id}/keys/${key.id}`],
      ] as const) {
        expectError(await commerce(ctx, operationId, { method: 'GET', path }, other), 404, 'not_found', 'resource_not_found');
      }
      expectError(await commerce(ctx, 'revokeRestrictedKey', { method: 'DELETE', path: `/v1/role/${role.id}/keys/${key.id}` }, other), 404, 'not_found');
      expectError(await commerce(ctx, 'deleteRole', { method: 'DELETE', path: `/v1/role/${role.id}` }, other), 404, 'not_found');
      expectStatus(await commerce(ctx, 'getCurrentUser', { method: 'GET', path: '/v1/user' }, key.key), 200, 'the key works before');
      expectStatus(await commerce(ctx, 'revokeRestrictedKey', { method: 'DELETE', path: `/v1/role/${role.id}/keys/${key.id}` }), 204, 'revoke');
      expectError(await commerce(ctx, 'getCurrentUser', { method: 'GET', path: '/v1/user' }, key.key), 401, 'authentication');
      const after = await commerce(ctx, 'getRestrictedKey', { method: 'GET', path: `/v1/role/${role.id}/keys/${key.id}` });
      assert.equal(typeof after.json.revokedDateTime, 'string', 'revokedDateTime once revoked');
      expectStatus(await commerce(ctx, 'deleteRole', { method: 'DELETE', path: `/v1/role/${role.id}` }), 204, 'clean up the role');
    },
  ),
  scenario(
    'platform.keys.secret-key-only',
    'Only the full secret key lists, reads and revokes keys and deletes roles: a restricted key is answered 403 `permission_denied` naming the scope, whatever its role; a role cannot grant those scopes (400)',
    AUTH,
    ['createRole', 'createRestrictedKey', 'listRestrictedKeys', 'getRestrictedKey', 'revokeRestrictedKey', 'deleteRole', 'getCurrentUser'],
    async (ctx) => {
      const admin = await newKey(ctx, (await newRole(ctx, ['role.create', 'role.read', 'key.create', 'user.read'])).id);
      const role = await newRole(ctx, ['user.read']);
      const target = await newKey(ctx, role.id);
      const attempts: [string, 'GET' | 'DELETE', string, string][] = [
        ['listRestrictedKeys', 'GET', `/v1/role/${role.id}/keys`, 'key.read'],
        ['getRestrictedKey', 'GET', `/v1/role/${role.id}/keys/${target.id}`, 'key.read'],
        ['revokeRestrictedKey', 'DELETE', `/v1/role/${role.id}/keys/${target.id}`, 'key.delete'],
        ['deleteRole', 'DELETE', `/v1/role/${role.id}`, 'role.delete'],
      ];
      for (const [operationId, method, path, scope] of attempts)
        expectDenied(await commerce(ctx, operationId, { method, path }, admin.key), scope, operationId);
      expectStatus(await commerce(ctx, 'getCurrentUser', { method: 'GET', path: '/v1/user' }, target.key), 200, 'the target key still works');
      const grant = await commerce(ctx, 'createRole', { method: 'POST', path: '/v1/role', body: { name: unique(ctx, 'Conf grant'), scopes: ['key.read'] } });
      expectError(grant, 400, 'invalid_request', 'parameter_invalid', 'scopes');
    },
  ),
];
