// Managing roles and restricted keys (issue 35 §15, Till's design): list, read and delete roles
// (409 while an active key carries one); list, read and revoke a role's keys (the key's text never
// again, only its prefix); only the full secret key manages keys; another merchant's answer 404.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onKeyRevoked, type RevokedKey } from '../../server/domain/merchants/key-revocation.js';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { SECRET_KEY_ONLY_SCOPES } from '../../server/domain/merchants/scopes.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();
let m: MerchantCredentials;
let sk: string;
const revoked: RevokedKey[] = [];
const stopListening = onKeyRevoked((key) => revoked.push(key));
beforeAll(async () => {
  m = await t.newMerchant('Key admin');
  sk = m.keys.test.secret;
});
afterAll(() => {
  stopListening();
});

async function role(name: string, scopes = ['invoice.read', 'account.read'], key = sk): Promise<number> {
  const res = await t.call('POST', '/v1/role', { apiKey: key, body: { name, scopes } });
  expect(res.status, res.text).toBe(201);
  return res.json.id;
}
async function restrictedKey(roleId: number, key = sk, description = 'test'): Promise<{ id: number; key: string; keyPrefix: string }> {
  const res = await t.call('POST', `/v1/role/${roleId}/keys`, { apiKey: key, body: { description } });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

describe('the contract', () => {
  it('marks the key-managing operations x-secret-key-only, and their scopes are exactly the ones a role cannot grant', () => {
    const doc = JSON.parse(readFileSync(new URL('../../generated/commerce.openapi.json', import.meta.url), 'utf8'));
    const ops = Object.values<any>(doc.paths).flatMap((item) => Object.values<any>(item).filter((op) => op?.operationId));
    const secretOnly = ops.filter((op) => op['x-secret-key-only'] === true);
    expect(secretOnly.map((op) => op.operationId).sort()).toEqual(['deleteRole', 'getRestrictedKey', 'listRestrictedKeys', 'revokeRestrictedKey']);
    expect(new Set(secretOnly.flatMap((op) => op['x-scopes']))).toEqual(SECRET_KEY_ONLY_SCOPES);
    const elsewhere = ops.filter((op) => !op['x-secret-key-only']).flatMap((op) => op['x-scopes'] ?? []);
    expect(elsewhere.filter((scope: string) => SECRET_KEY_ONLY_SCOPES.has(scope))).toEqual([]);
  });
});

describe('GET /v1/role', () => {
  it("pages the merchant's roles newest first, with $count, $filter and a next link; never another merchant's", async () => {
    const own = await t.newMerchant('Role list');
    const ids = [await role('Alpha', undefined, own.keys.test.secret), await role('Beta', undefined, own.keys.live.secret)];
    await role(`Theirs`, undefined, t.merchantB.keys.test.secret);
    const first = await t.call('GET', '/v1/role?$top=1&$count=true', { apiKey: own.keys.test.secret });
    expect(first.status, first.text).toBe(200);
    expect(first.json).toMatchObject({ '@odata.count': 2, '@odata.nextLink': '/v1/role?$top=1&$skip=1&$count=true' });
    expect(first.json.value).toEqual([expect.objectContaining({ id: ids[1], name: 'Beta', scopes: ['account.read', 'invoice.read'] })]);
    const next = await t.call('GET', first.json['@odata.nextLink'], { apiKey: own.keys.test.secret });
    expect(next.json.value.map((r: any) => r.id)).toEqual([ids[0]]);
    expect(next.json['@odata.nextLink']).toBeUndefined();
    const byName = await t.call('GET', `/v1/role?$filter=${encodeURIComponent("name eq 'Alpha'")}`, { apiKey: own.keys.live.secret });
    expect(byName.json.value.map((r: any) => r.id)).toEqual([ids[0]]);
    const bad = await t.call('GET', '/v1/role?$orderby=scopes', { apiKey: own.keys.test.secret });
    expect(bad.status, bad.text).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'parameter_invalid', param: '$orderby' });
  });
});

describe('DELETE /v1/role/{id}', () => {
  it('refuses (409) while an active key of either mode carries the role; once revoked, deletes it with its keys, and the name is free', async () => {
    const roleId = await role('Temporary');
    const key = await restrictedKey(roleId, m.keys.live.secret);
    const refused = await t.call('DELETE', `/v1/role/${roleId}`, { apiKey: sk });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.json.error).toMatchObject({ type: 'conflict', code: 'invalid_state' });
    expect(refused.json.error.message).toContain('1 active restricted key');
    expect((await t.call('GET', '/v1/account', { apiKey: key.key })).status).toBe(200);
    expect((await t.call('DELETE', `/v1/role/${roleId}/keys/${key.id}`, { apiKey: m.keys.live.secret })).status).toBe(204);
    expect((await t.call('DELETE', `/v1/role/${roleId}`, { apiKey: sk })).status).toBe(204);
    expect((await t.call('GET', `/v1/role/${roleId}`, { apiKey: sk })).status).toBe(404);
    expect((await t.call('GET', `/v1/role/${roleId}/keys`, { apiKey: m.keys.live.secret })).status).toBe(404);
    expect((await t.call('DELETE', `/v1/role/${roleId}`, { apiKey: sk })).status).toBe(404);
    await role('Temporary');
  });

  it("another merchant's role answers 404 and stays", async () => {
    const theirs = await role('Not yours', undefined, t.merchantB.keys.test.secret);
    const res = await t.call('DELETE', `/v1/role/${theirs}`, { apiKey: sk });
    expect(res.status, res.text).toBe(404);
    expect(res.json.error).toMatchObject({ type: 'not_found', code: 'resource_not_found' });
    expect(res.text).not.toContain('Not yours');
    expect((await t.call('GET', `/v1/role/${theirs}`, { apiKey: t.merchantB.keys.test.secret })).status).toBe(200);
  });
});

describe("a role's keys", () => {
  let roleId: number;
  let active: { id: number; key: string; keyPrefix: string };
  let gone: { id: number; key: string; keyPrefix: string };
  beforeAll(async () => {
    roleId = await role('Listed');
    active = await restrictedKey(roleId, sk, 'Ledger sync');
    gone = await restrictedKey(roleId, sk, 'Old export');
    await restrictedKey(roleId, m.keys.live.secret, 'Live one');
    expect((await t.call('DELETE', `/v1/role/${roleId}/keys/${gone.id}`, { apiKey: sk })).status).toBe(204);
  });

  it("lists the mode's keys, newest first, revoked ones with revokedDateTime, by prefix only (never the key's text)", async () => {
    const res = await t.call('GET', `/v1/role/${roleId}/keys?$count=true`, { apiKey: sk });
    expect(res.status, res.text).toBe(200);
    expect(res.json['@odata.count']).toBe(2);
    expect(res.json.value.map((k: any) => k.id)).toEqual([gone.id, active.id]);
    expect(res.json.value[1]).toEqual({
      id: active.id,
      keyPrefix: active.keyPrefix,
      roleId,
      roleName: 'Listed',
      scopes: ['account.read', 'invoice.read'],
      livemode: false,
      description: 'Ledger sync',
      createdDateTime: expect.any(String),
      revokedDateTime: null,
    });
    expect(res.json.value[0].revokedDateTime).toEqual(expect.any(String));
    for (const text of [active.key, gone.key]) expect(res.text).not.toContain(text);
    const activeOnly = await t.call('GET', `/v1/role/${roleId}/keys?$filter=${encodeURIComponent('revokedDateTime eq null')}`, { apiKey: sk });
    expect(activeOnly.json.value.map((k: any) => k.id)).toEqual([active.id]);
    const live = await t.call('GET', `/v1/role/${roleId}/keys`, { apiKey: m.keys.live.secret });
    expect(live.json.value.map((k: any) => [k.livemode, k.description])).toEqual([[true, 'Live one']]);
  });

  it('answers one key without its text; another mode, role or merchant answers 404', async () => {
    const res = await t.call('GET', `/v1/role/${roleId}/keys/${active.id}`, { apiKey: sk });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ id: active.id, keyPrefix: active.keyPrefix, revokedDateTime: null });
    expect(res.json.key).toBeUndefined();
    expect(res.text).not.toContain(active.key);
    const other = await role('Other role');
    for (const [path, key] of [
      [`/v1/role/${roleId}/keys/${active.id}`, m.keys.live.secret],
      [`/v1/role/${other}/keys/${active.id}`, sk],
      [`/v1/role/${roleId}/keys/${active.id}`, t.merchantB.keys.test.secret],
      [`/v1/role/${roleId}/keys`, t.merchantB.keys.test.secret],
    ] as const) {
      const refused = await t.call('GET', path, { apiKey: key });
      expect(refused.status, `${path}: ${refused.text}`).toBe(404);
      expect(refused.json.error.code).toBe('resource_not_found');
      expect(refused.text).not.toContain('Ledger sync');
    }
  });

  it('a revoked key stops at once and the revocation is announced in the process (onKeyRevoked), with the key hash, not its text', async () => {
    const key = await restrictedKey(roleId);
    expect((await t.call('GET', '/v1/account', { apiKey: key.key })).status).toBe(200);
    expect((await t.call('DELETE', `/v1/role/${roleId}/keys/${key.id}`, { apiKey: sk })).status).toBe(204);
    expect((await t.call('GET', '/v1/account', { apiKey: key.key })).status).toBe(401);
    const announced = revoked.find((r) => r.keyId === key.id);
    expect(announced).toMatchObject({ merchantId: m.merchantId, livemode: false, keyHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(JSON.stringify(announced)).not.toContain(key.key);
    const after = await t.call('GET', `/v1/role/${roleId}/keys/${key.id}`, { apiKey: sk });
    expect(after.json.revokedDateTime).toEqual(expect.any(String));
  });
});

describe('only the full secret key manages keys', () => {
  it('a restricted key is refused (403 permission_denied naming the scope) listing, reading and revoking keys and deleting roles, whatever its role', async () => {
    const admin = await restrictedKey(await role('Almost admin', ['role.create', 'role.read', 'key.create', 'invoice.read']));
    const target = await role('Target');
    const victim = await restrictedKey(target);
    for (const [method, path, scope] of [
      ['GET', `/v1/role/${target}/keys`, 'key.read'],
      ['GET', `/v1/role/${target}/keys/${victim.id}`, 'key.read'],
      ['DELETE', `/v1/role/${target}/keys/${victim.id}`, 'key.delete'],
      ['DELETE', `/v1/role/${target}`, 'role.delete'],
    ] as const) {
      const res = await t.call(method, path, { apiKey: admin.key });
      expect(res.status, `${method} ${path}: ${res.text}`).toBe(403);
      expect(res.json.error).toMatchObject({ type: 'permission_denied', code: 'permission_denied' });
      expect(res.json.error.message).toContain(`\`${scope}\``);
      expect(res.json.error.message).toContain('full secret key');
    }
    expect((await t.call('GET', '/v1/account', { apiKey: victim.key })).status).toBe(200);
    // It still reads roles, which its role holds.
    expect((await t.call('GET', '/v1/role', { apiKey: admin.key })).status).toBe(200);
  });

  it('a role cannot grant the secret key scopes (400 naming the scope)', async () => {
    for (const scope of SECRET_KEY_ONLY_SCOPES) {
      const res = await t.call('POST', '/v1/role', { apiKey: sk, body: { name: `Grant ${scope}`, scopes: ['invoice.read', scope] } });
      expect(res.status, res.text).toBe(400);
      expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'scopes' });
      expect(res.json.error.message).toContain(scope);
    }
  });
});
