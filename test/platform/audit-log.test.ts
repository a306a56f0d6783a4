// The audit log (issue 34): each change to roles, restricted keys, webhook configurations and
// merchant settings writes one entry in its own transaction (who, by key prefix; what; which
// fields before and after, never a secret or a whole key); a failed change writes nothing; the
// list is the tenant's only, filtered and paged newest first, on both interfaces.
import { beforeAll, describe, expect, it } from 'vitest';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();
let m: MerchantCredentials;
let sk: string;
const prefixOf = (key: string) => key.slice(0, key.indexOf('_', 3) + 5);

beforeAll(async () => {
  m = await t.newMerchant('Audited');
  sk = m.keys.test.secret;
});

async function entries(query = '', key = sk) {
  const res = await t.call('GET', `/v1/audit-entries${query}`, { key });
  expect(res.status, res.text).toBe(200);
  return res.json.data as any[];
}

async function newRole(name: string, key = sk): Promise<number> {
  const res = await t.call('POST', '/v1/role', { apiKey: key, body: { name, description: 'Reads invoices', scopes: ['invoice.read'] } });
  expect(res.status, res.text).toBe(201);
  return res.json.id;
}

describe('keys and roles (Commerce)', () => {
  it('records a role created and deleted, a key created and revoked, each with the caller key prefix and the changes', async () => {
    const roleId = await newRole('Support');
    const made = await t.call('POST', `/v1/role/${roleId}/keys`, { apiKey: sk, body: { description: 'helpdesk' } });
    expect(made.status, made.text).toBe(201);
    const revoke = await t.call('DELETE', `/v1/role/${roleId}/keys/${made.json.id}`, { apiKey: sk });
    expect(revoke.status, revoke.text).toBe(204);
    const del = await t.call('DELETE', `/v1/role/${roleId}`, { apiKey: sk });
    expect(del.status, del.text).toBe(204);

    const log = await entries('?action=role.*');
    const actor = { type: 'api_key', keyPrefix: prefixOf(sk), session: null };
    expect(log.slice(0, 2)).toEqual([
      expect.objectContaining({ action: 'role.deleted', actor, target: { type: 'role', id: String(roleId) }, livemode: false }),
      expect.objectContaining({
        action: 'role.created',
        actor,
        target: { type: 'role', id: String(roleId) },
        changes: {
          name: { before: null, after: 'Support' },
          description: { before: null, after: 'Reads invoices' },
          scopes: { before: null, after: ['invoice.read'] },
        },
        requestId: expect.stringMatching(/^req_/),
      }),
    ]);
    expect(log[0].changes.name).toEqual({ before: 'Support', after: null });
    const keys = await entries('?action=restricted_key.*');
    expect(keys.map((e) => e.action).slice(0, 2)).toEqual(['restricted_key.revoked', 'restricted_key.created']);
    expect(keys[1].changes.keyPrefix).toEqual({ before: null, after: made.json.keyPrefix });
    expect(keys[0].target).toEqual({ type: 'restricted_key', id: String(made.json.id) });
    // The key's text never appears: only its prefix.
    expect(JSON.stringify(await entries())).not.toContain(made.json.key);
    expect(JSON.stringify(await entries())).not.toContain(sk);
  });

  it('writes nothing for a change that failed: a validation error, a name taken, a 404', async () => {
    const own = await t.newMerchant('Audit failures');
    const key = own.keys.test.secret;
    await newRole('Taken', key);
    const before = (await entries('', key)).length;
    expect((await t.call('POST', '/v1/role', { apiKey: key, body: { name: 'Taken', scopes: ['invoice.read'] } })).status).toBe(409);
    expect((await t.call('POST', '/v1/role', { apiKey: key, body: { name: 'Bad', scopes: ['no.such'] } })).status).toBe(400);
    expect((await t.call('DELETE', '/v1/role/999999', { apiKey: key })).status).toBe(404);
    expect((await t.call('DELETE', '/v1/role/999999/keys/999999', { apiKey: key })).status).toBe(404);
    expect((await t.call('DELETE', '/v1/WebhookConfiguration/999999', { key })).status).toBe(404);
    expect((await entries('', key)).length).toBe(before);
  });
});

describe('webhook configurations (Checkout)', () => {
  it('records create, update (disable, rotate) and delete; a signing secret never appears', async () => {
    const own = await t.newMerchant('Audit webhooks');
    const key = own.keys.test.secret;
    const made = await t.call('POST', '/v1/WebhookConfiguration', {
      key,
      body: { sandboxUrl: 'https://hooks.example.org/a', subscribedEvents: ['payment.*'] },
    });
    expect(made.status, made.text).toBe(201);
    const id = made.json.id;
    const off = await t.call('PATCH', `/v1/WebhookConfiguration/${id}`, { key, body: { enabled: false, rotateSandboxSecret: true } });
    expect(off.status, off.text).toBe(200);
    const bad = await t.call('PATCH', `/v1/WebhookConfiguration/${id}`, { key, body: { sandboxUrl: null, liveUrl: null } });
    expect(bad.status).toBe(400);
    expect((await t.call('DELETE', `/v1/WebhookConfiguration/${id}`, { key })).status).toBe(200);

    const log = await entries('?action=webhook_configuration.*', key);
    expect(log.map((e) => e.action)).toEqual(['webhook_configuration.deleted', 'webhook_configuration.updated', 'webhook_configuration.created']);
    expect(log.every((e) => e.target.type === 'webhook_configuration' && e.target.id === String(id))).toBe(true);
    expect(log[2].changes).toMatchObject({ sandboxUrl: { before: null, after: 'https://hooks.example.org/a' }, enabled: { before: null, after: true } });
    expect(log[1].changes).toEqual({ enabled: { before: true, after: false }, sandboxSecret: { before: '[redacted]', after: '[redacted]' } });
    const text = JSON.stringify(log);
    for (const secret of [made.json.sandboxSecret, made.json.liveSecret, off.json.sandboxSecret]) expect(text).not.toContain(secret);
  });
});

describe('merchant settings (Commerce)', () => {
  it('records a location created and a merchant created, never the new merchant keys', async () => {
    const own = await t.newMerchant('Audit settings');
    const key = own.keys.test.secret;
    const address = { addressLine1: '1 Main St', city: 'Springfield', country: 'US' };
    const loc = await t.call('POST', '/v1/merchantLocation', { apiKey: key, body: { name: 'Shop', address } });
    expect(loc.status, loc.text).toBe(201);
    const sub = await t.call('POST', '/v1/merchant', { apiKey: key, body: { name: 'Second brand', email: 'second@example.org', country: 'US' } });
    expect(sub.status, sub.text).toBe(201);
    const log = await entries('', key);
    expect(log.map((e) => e.action)).toEqual(['merchant.created', 'merchant_location.created']);
    expect(log[1]).toMatchObject({ target: { type: 'merchant_location', id: String(loc.json.id) }, changes: { name: { before: null, after: 'Shop' } } });
    expect(log[0]).toMatchObject({ target: { type: 'merchant', id: String(sub.json.id) }, changes: { name: { before: null, after: 'Second brand' } } });
    expect(JSON.stringify(log)).not.toContain(JSON.stringify(sub.json.keys).slice(2, 40));
  });
});

describe('the list', () => {
  it('is the tenant own: another merchant and the other mode see none of it', async () => {
    await newRole('Mine');
    expect(await entries('', t.merchantB.keys.test.secret)).not.toContainEqual(
      expect.objectContaining({ actor: expect.objectContaining({ keyPrefix: prefixOf(sk) }) }),
    );
    const live = await entries('', m.keys.live.secret);
    expect(live.some((e) => e.actor.keyPrefix === prefixOf(sk))).toBe(false);
    const mine = (await entries())[0].id;
    const theirs = await t.call('GET', `/v1/audit-entries?startingAfter=${mine}`, { key: t.merchantB.keys.test.secret });
    expect(theirs.status, theirs.text).toBe(404);
  });

  it('filters by action, actor and date, and pages newest first', async () => {
    const own = await t.newMerchant('Audit pages');
    const key = own.keys.test.secret;
    for (const name of ['One', 'Two', 'Three']) await newRole(name, key);
    const first = await t.call('GET', '/v1/audit-entries?limit=2', { key });
    expect(first.json.hasMore).toBe(true);
    expect(first.json.data.map((e: any) => e.changes.name.after)).toEqual(['Three', 'Two']);
    const next = await t.call('GET', `/v1/audit-entries?limit=2&startingAfter=${first.json.data[1].id}`, { key });
    expect(next.json).toMatchObject({
      hasMore: false,
      data: [expect.objectContaining({ changes: expect.objectContaining({ name: { before: null, after: 'One' } }) })],
    });
    expect(await entries('?action=role.deleted', key)).toEqual([]);
    expect((await entries(`?actor=${prefixOf(key)}`, key)).length).toBe(3);
    expect(await entries('?actor=sk_test_none', key)).toEqual([]);
    expect(await entries('?actorType=dashboard', key)).toEqual([]);
    const at = first.json.data[0].createdAt;
    expect(
      (await entries(`?createdFrom=${encodeURIComponent('2000-01-01T00:00:00Z')}&createdBefore=${encodeURIComponent('2999-01-01T00:00:00Z')}`, key)).length,
    ).toBe(3);
    expect(await entries(`?createdBefore=${encodeURIComponent('2000-01-01T00:00:00Z')}`, key)).toEqual([]);
    expect((await entries(`?createdFrom=${encodeURIComponent(at)}`, key)).length).toBeGreaterThanOrEqual(1);
    expect((await t.call('GET', '/v1/audit-entries?startingAfter=2147483647', { key })).status).toBe(404);
  });

  it('is the same log on the Commerce interface, as an OData page', async () => {
    const own = await t.newMerchant('Audit odata');
    const key = own.keys.test.secret;
    for (const name of ['A', 'B']) await newRole(name, key);
    const res = await t.call(
      'GET',
      `/v1/auditEntry?$top=1&$count=true&$filter=${encodeURIComponent(`actorKeyPrefix eq '${prefixOf(key)}' and action eq 'role.created'`)}`,
      { apiKey: key },
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      '@odata.count': 2,
      value: [expect.objectContaining({ action: 'role.created', actor: { type: 'api_key', keyPrefix: prefixOf(key), session: null } })],
    });
    expect(res.json['@odata.nextLink']).toBeDefined();
    const checkout = await entries('', key);
    expect(res.json.value[0].id).toBe(checkout[0].id);
  });

  it('refuses a restricted key without auditentry.read, and lets one with it read', async () => {
    const own = await t.newMerchant('Audit scopes');
    const key = own.keys.test.secret;
    const without = await t.call('POST', `/v1/role/${await newRole('No audit', key)}/keys`, { apiKey: key, body: {} });
    const withRole = await t.call('POST', '/v1/role', { apiKey: key, body: { name: 'Auditor', scopes: ['auditentry.read'] } });
    const reader = await t.call('POST', `/v1/role/${withRole.json.id}/keys`, { apiKey: key, body: {} });
    expect((await t.call('GET', '/v1/audit-entries', { key: without.json.key })).status).toBe(403);
    expect((await t.call('GET', '/v1/auditEntry', { apiKey: without.json.key })).status).toBe(403);
    expect((await t.call('GET', '/v1/audit-entries', { key: reader.json.key })).status).toBe(200);
    expect((await t.call('GET', '/v1/auditEntry', { apiKey: reader.json.key })).status).toBe(200);
  });
});
