// Restricted keys (`rk_…`): a role's scopes on both interfaces, 403 naming the missing scope in
// each operation's error shape, no escalation through roles or keys, and revocation.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();
let m: MerchantCredentials;
beforeAll(async () => {
  m = await t.newMerchant('Restricted');
});
afterAll(() => {
  vi.useRealTimers();
});

async function role(key: string, name: string, scopes: string[]): Promise<number> {
  const res = await t.call('POST', '/v1/role', { apiKey: key, body: { name, scopes } });
  expect(res.status, res.text).toBe(201);
  return res.json.id;
}
async function restrictedKey(key: string, roleId: number): Promise<{ id: number; key: string }> {
  const res = await t.call('POST', `/v1/role/${roleId}/keys`, { apiKey: key, body: { description: 'test' } });
  expect(res.status, res.text).toBe(201);
  return res.json;
}
const BOOKS = ['invoice.read', 'account.read', 'user.read', 'subscriptionplan.read'];

describe('a restricted key', () => {
  let rk: string;
  let roleId: number;
  beforeAll(async () => {
    roleId = await role(m.keys.test.secret, 'Bookkeeper', BOOKS);
    const made = await t.call('POST', `/v1/role/${roleId}/keys`, { apiKey: m.keys.test.secret, body: { description: 'Ledger sync' } });
    expect(made.status, made.text).toBe(201);
    expect(made.json).toMatchObject({ roleId, roleName: 'Bookkeeper', scopes: [...BOOKS].sort(), livemode: false, description: 'Ledger sync' });
    expect(made.json.key).toMatch(/^rk_test_[A-Za-z0-9]{32}$/);
    expect(made.json.keyPrefix).toBe(made.json.key.slice(0, 12));
    rk = made.json.key;
  });

  it('calls the Commerce operations its role holds, as x-api-key, and GET /v1/user tells what it holds', async () => {
    expect((await t.call('GET', '/v1/account', { apiKey: rk })).status).toBe(200);
    const user = await t.call('GET', '/v1/user', { apiKey: rk });
    expect(user.status, user.text).toBe(200);
    expect(user.json).toMatchObject({ merchantId: m.merchantId, roles: ['Bookkeeper'], scopes: [...BOOKS].sort() });
  });

  it('is refused any other Commerce operation with 403 permission_denied naming the scope', async () => {
    for (const [method, path, scope, body] of [
      ['GET', '/v1/merchant', 'merchant.read'],
      ['POST', '/v1/invoice', 'invoice.create', { currencyCode: 'USD', sourceInfo: { email: 'a@b.co' }, items: [{ name: 'x', unitCost: 1, quantity: 1 }] }],
      ['GET', '/v1/scope', 'scope.read'],
    ] as const) {
      const res = await t.call(method, path, { apiKey: rk, body });
      expect(res.status, `${path}: ${res.text}`).toBe(403);
      expect(res.json.error).toMatchObject({ type: 'permission_denied', code: 'permission_denied' });
      expect(res.json.error.message).toContain(`\`${scope}\``);
    }
  });

  it('works as a Bearer key on the Checkout interface within its scopes, and is refused outside them in each shape', async () => {
    expect((await t.call('GET', '/v1/invoices', { key: rk })).status).toBe(200);
    expect((await t.call('GET', '/v1/plans', { key: rk })).status).toBe(200);
    const product = await t.call('POST', '/v1/products', { key: rk, body: { name: 'Nope' } });
    expect(product.status, product.text).toBe(403);
    expect(product.json.error).toMatchObject({ type: 'permission_denied', code: 'permission_denied' });
    expect(product.json.error.message).toContain('`subscriptionproduct.create`');
    // The customer operations answer in the envelope.
    const customers = await t.call('GET', '/v1/customers', { key: rk });
    expect(customers.status, customers.text).toBe(403);
    expect(customers.json).toMatchObject({ success: false, errorCode: 'permission_denied', data: { type: 'permission_denied' } });
    expect(customers.json.errorMessage).toContain('`merchantclient.read`');
    const session = await t.call('POST', '/v1/checkout-sessions', { key: rk, body: { amount: 10, currency: 'USD', mode: 'embedded', paymentType: 'oneTime' } });
    expect(session.status).toBe(403);
    expect(session.json.error.message).toContain('`checkout.session.create`');
  });

  it('stays in its mode, never goes to a browser, and the full secret key keeps every scope', async () => {
    const live = await t.call('POST', `/v1/role/${roleId}/keys`, { apiKey: m.keys.live.secret });
    expect(live.status, live.text).toBe(201);
    expect(live.json.key).toMatch(/^rk_live_/);
    const [testAccount, liveAccount] = await Promise.all(
      [rk, live.json.key].map(async (key) => (await t.call('GET', '/v1/account', { apiKey: key })).json.value[0].id),
    );
    expect(liveAccount).not.toBe(testAccount);
    const browser = await t.call('GET', '/v1/invoices', { key: rk, headers: { origin: 'https://shop.example.com' } });
    expect(browser.status).toBe(403);
    expect(browser.json.error.code).toBe('secret_key_in_browser');
    expect((await t.call('GET', '/v1/merchant', { apiKey: m.keys.test.secret })).status).toBe(200);
  });
});

describe('no escalation', () => {
  it('a restricted key makes roles and keys only within its own scopes', async () => {
    const secret = m.keys.test.secret;
    const admin = await restrictedKey(secret, await role(secret, 'Key admin', ['role.create', 'key.create', 'invoice.read']));
    const within = await t.call('POST', '/v1/role', { apiKey: admin.key, body: { name: 'Reader', scopes: ['invoice.read'] } });
    expect(within.status, within.text).toBe(201);
    expect((await restrictedKey(admin.key, within.json.id)).key).toMatch(/^rk_test_/);
    const beyond = await t.call('POST', '/v1/role', { apiKey: admin.key, body: { name: 'Writer', scopes: ['invoice.read', 'invoice.create'] } });
    expect(beyond.status, beyond.text).toBe(403);
    expect(beyond.json.error.message).toContain('`invoice.create`');
    const wider = await role(secret, 'Wider', ['invoice.read', 'transfer.create']);
    const key = await t.call('POST', `/v1/role/${wider}/keys`, { apiKey: admin.key });
    expect(key.status, key.text).toBe(403);
    expect(key.json.error.message).toContain('`transfer.create`');
    // Revoking needs key.delete, which it does not hold.
    const revoke = await t.call('DELETE', `/v1/role/${within.json.id}/keys/${admin.id}`, { apiKey: admin.key });
    expect(revoke.status).toBe(403);
    expect(revoke.json.error.message).toContain('`key.delete`');
  });

  it("a key of an unknown role, or another merchant's, answers 404", async () => {
    const theirs = await role(t.merchantB.keys.test.secret, 'Theirs', ['invoice.read']);
    for (const id of [theirs, 2147483647]) {
      const res = await t.call('POST', `/v1/role/${id}/keys`, { apiKey: m.keys.test.secret });
      expect(res.status, res.text).toBe(404);
      expect(res.json.error.code).toBe('resource_not_found');
    }
  });
});

describe('revocation', () => {
  it('a key revoked through the API stops at once; revoking again, or from the other mode, answers 404', async () => {
    const roleId = await role(m.keys.test.secret, 'Short lived', ['account.read']);
    const key = await restrictedKey(m.keys.test.secret, roleId);
    expect((await t.call('GET', '/v1/account', { apiKey: key.key })).status).toBe(200);
    expect((await t.call('DELETE', `/v1/role/${roleId}/keys/${key.id}`, { apiKey: m.keys.live.secret })).status).toBe(404);
    expect((await t.call('DELETE', `/v1/role/${roleId}/keys/${key.id}`, { apiKey: m.keys.test.secret })).status).toBe(204);
    const after = await t.call('GET', '/v1/account', { apiKey: key.key });
    expect(after.status).toBe(401);
    expect(after.json.error.code).toBe('invalid_api_key');
    expect((await t.call('GET', '/v1/invoices', { key: key.key })).status).toBe(401);
    expect((await t.call('DELETE', `/v1/role/${roleId}/keys/${key.id}`, { apiKey: m.keys.test.secret })).status).toBe(404);
  });

  it('a key revoked elsewhere (another process, the database) is remembered for at most 30 seconds', async () => {
    const roleId = await role(m.keys.test.secret, 'Cached', ['account.read']);
    const key = await restrictedKey(m.keys.test.secret, roleId);
    expect((await t.call('GET', '/v1/account', { apiKey: key.key })).status).toBe(200);
    await t.database.db.updateTable('api_keys').set({ revoked_at: new Date() }).where('id', '=', key.id).execute();
    // Remembered: no database round trip for the key or its role within the window.
    expect((await t.call('GET', '/v1/account', { apiKey: key.key })).status).toBe(200);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 30_001 });
    try {
      expect((await t.call('GET', '/v1/account', { apiKey: key.key })).status).toBe(401);
    } finally {
      vi.useRealTimers();
    }
  });
});
