// The merchant, its locations, the user behind the key, roles and scopes (Commerce interface).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { randomToken } from '../../server/shared/crypto.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();

const slug = (label: string) => `${label}-${randomToken(8).toLowerCase()}`;
const harbor = (overrides: Record<string, unknown> = {}) => ({
  name: 'Harbor Coffee Roasters',
  email: 'hello@harborcoffee.example.com',
  country: 'US',
  website: 'https://harborcoffee.example.com',
  ...overrides,
});

/** Every scope the contracts' operations name, with the interfaces naming it. */
function contractScopes(): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  for (const api of ['checkout', 'commerce']) {
    const doc = JSON.parse(readFileSync(new URL(`../../generated/${api}.openapi.json`, import.meta.url), 'utf8'));
    for (const item of Object.values<any>(doc.paths)) {
      for (const op of Object.values<any>(item)) for (const scope of op?.['x-scopes'] ?? []) found.set(scope, (found.get(scope) ?? new Set()).add(api));
    }
  }
  return found;
}

describe('GET /v1/merchant', () => {
  it("answers the key's merchant, the same in both modes", async () => {
    const m = await t.newMerchant('Profile');
    const res = await t.call('GET', '/v1/merchant', { apiKey: m.keys.test.secret });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      id: m.merchantId,
      email: null,
      logoUrl: null,
      media: [],
      website: null,
      country: 'US',
      defaultCurrency: 'USD',
      ratePlan: 'standard',
      settings: { messageCheckoutCustomers: false, sendCheckoutReceipts: true },
    });
    expect(res.json.name).toMatch(/^Profile /);
    expect(res.json.slug).toMatch(/^profile-/);
    expect((await t.call('GET', '/v1/merchant', { apiKey: m.keys.live.secret })).json).toEqual(res.json);
  });
});

describe('POST /v1/merchant', () => {
  it("creates a merchant with its profile, primary location, owner and keys of the caller's mode", async () => {
    const wanted = slug('harbor');
    const body = harbor({
      slug: wanted,
      defaultCurrency: 'EUR',
      logoUrl: 'https://cdn.example.com/h.png',
      settings: { messageCheckoutCustomers: true },
      location: {
        name: 'Pier 9',
        address: { addressLine1: '9 Pier Rd', city: 'Seattle', region: 'WA', postalCode: '98101', country: 'US' },
        phone: '+12065550100',
      },
    });
    const res = await t.call('POST', '/v1/merchant', { apiKey: t.merchantA.keys.test.secret, body });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({
      name: 'Harbor Coffee Roasters',
      slug: wanted,
      email: 'hello@harborcoffee.example.com',
      country: 'US',
      defaultCurrency: 'EUR',
      ratePlan: 'standard',
      logoUrl: 'https://cdn.example.com/h.png',
      media: [{ mediaUrl: 'https://cdn.example.com/h.png' }],
      settings: { messageCheckoutCustomers: true, sendCheckoutReceipts: true },
    });
    expect(res.json.keys.secret).toMatch(/^sk_test_/);
    expect(res.json.keys.publishable).toMatch(/^pk_test_/);
    const own = res.json.keys.secret;
    const { keys: _keys, ...profile } = res.json;
    expect((await t.call('GET', '/v1/merchant', { apiKey: own })).json).toEqual(profile);
    const locations = await t.call('GET', '/v1/merchantLocation', { apiKey: own });
    expect(locations.status, locations.text).toBe(200);
    expect(locations.json.value).toEqual([
      {
        id: expect.any(Number),
        name: 'Pier 9',
        address: { addressLine1: '9 Pier Rd', addressLine2: null, city: 'Seattle', region: 'WA', postalCode: '98101', country: 'US' },
        phone: '+12065550100',
        isPrimary: true,
      },
    ]);
    // Its owner is the caller's user: the same person.
    const caller = (await t.call('GET', '/v1/user', { apiKey: t.merchantA.keys.test.secret })).json;
    const owner = (await t.call('GET', '/v1/user', { apiKey: own })).json;
    expect(owner).toMatchObject({ email: caller.email, merchantId: res.json.id, roles: ['Owner'] });
    // The caller's own merchant is unchanged and has no location of the new one (only its own primary one).
    const callers = (await t.call('GET', '/v1/merchantLocation', { apiKey: t.merchantA.keys.test.secret })).json.value;
    expect(callers.map((l: any) => [l.name === 'Pier 9', l.isPrimary])).toEqual([[false, true]]);
  });

  it('a live key is answered live keys; without a slug one is made from the name, suffixed when taken', async () => {
    const name = `Tide Pool ${randomToken(6)}`;
    const first = await t.call('POST', '/v1/merchant', { apiKey: t.merchantA.keys.live.secret, body: harbor({ name }) });
    expect(first.status, first.text).toBe(201);
    expect(first.json.keys.secret).toMatch(/^sk_live_/);
    expect(first.json.slug).toBe(name.toLowerCase().replace(/ /g, '-'));
    const second = await t.call('POST', '/v1/merchant', { apiKey: t.merchantA.keys.live.secret, body: harbor({ name }) });
    expect(second.status, second.text).toBe(201);
    expect(second.json.slug).toMatch(new RegExp(`^${first.json.slug}-[a-z0-9]{6}$`));
  });

  it('a slug in use answers 400 parameter_invalid naming slug, and makes nothing', async () => {
    const taken = slug('taken');
    expect((await t.call('POST', '/v1/merchant', { apiKey: t.merchantA.keys.test.secret, body: harbor({ slug: taken }) })).status).toBe(201);
    const again = await t.call('POST', '/v1/merchant', { apiKey: t.merchantB.keys.test.secret, body: harbor({ slug: taken, name: 'Someone else' }) });
    expect(again.status, again.text).toBe(400);
    expect(again.json.error).toMatchObject({ code: 'parameter_invalid', param: 'slug', message: `The slug '${taken}' is already in use.` });
    const count = await t.database.db
      .selectFrom('merchants')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('name', '=', 'Someone else')
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });

  it('refuses what the contract refuses: missing fields, a bad slug, a logo that is not https', async () => {
    const key = t.merchantA.keys.test.secret;
    const missing = await t.call('POST', '/v1/merchant', { apiKey: key, body: { name: 'No email', country: 'US' } });
    expect(missing.status).toBe(400);
    expect((await t.call('POST', '/v1/merchant', { apiKey: key, body: harbor({ slug: 'Not A Slug' }) })).json.error).toMatchObject({
      code: 'parameter_invalid',
      param: 'slug',
    });
    expect((await t.call('POST', '/v1/merchant', { apiKey: key, body: harbor({ logoUrl: 'http://cdn.example.com/x.png' }) })).json.error).toMatchObject({
      code: 'parameter_invalid',
      param: 'logoUrl',
    });
  });

  it('a sandbox merchant cannot create merchants (403)', async () => {
    const sandbox = await t.call('POST', '/v1/test-helpers/merchants', { key: t.merchantA.keys.test.secret, body: {} });
    expect(sandbox.status, sandbox.text).toBe(201);
    const res = await t.call('POST', '/v1/merchant', { apiKey: sandbox.json.secretKey, body: harbor() });
    expect(res.status, res.text).toBe(403);
    expect(res.json.error).toMatchObject({ type: 'permission_denied', code: 'permission_denied' });
  });
});

describe('GET /v1/user', () => {
  it("answers the merchant's owner with the role Owner and every scope, the same user on every call", async () => {
    const m = await t.newMerchant('Who');
    const res = await t.call('GET', '/v1/user', { apiKey: m.keys.test.secret });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ merchantId: m.merchantId, firstName: null, lastName: null, roles: ['Owner'] });
    expect(res.json.scopes).toEqual([...contractScopes().keys()].sort());
    expect((await t.call('GET', '/v1/user', { apiKey: m.keys.live.secret })).json).toEqual(res.json);
  });
});

describe('GET /v1/scope', () => {
  it('lists every scope of both contracts, sorted, each with the interfaces that use it', async () => {
    const res = await t.call('GET', '/v1/scope', { apiKey: t.merchantA.keys.test.secret });
    expect(res.status, res.text).toBe(200);
    const expected = [...contractScopes()].map(([name, apis]) => ({ name, interfaces: [...apis].sort() })).sort((a, b) => (a.name < b.name ? -1 : 1));
    expect(res.json.value.map((s: any) => ({ name: s.name, interfaces: s.interfaces }))).toEqual(expected);
    for (const s of res.json.value) expect(s.description.length).toBeGreaterThan(5);
  });
});

describe('POST /v1/role', () => {
  it('creates a role of the merchant, its scopes sorted and once each', async () => {
    const m = await t.newMerchant('Roles');
    const res = await t.call('POST', '/v1/role', {
      apiKey: m.keys.test.secret,
      body: { name: 'Bookkeeper', description: 'Reads the books.', scopes: ['invoice.read', 'account.read', 'transfer.read'] },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ name: 'Bookkeeper', description: 'Reads the books.', scopes: ['account.read', 'invoice.read', 'transfer.read'] });
    expect(res.json.id).toBeGreaterThan(0);
    // The same role in both modes; another merchant's key does not find it.
    for (const key of [m.keys.test.secret, m.keys.live.secret])
      expect((await t.call('GET', `/v1/role/${res.json.id}`, { apiKey: key })).json).toEqual(res.json);
    expect((await t.call('GET', `/v1/role/${res.json.id}`, { apiKey: t.merchantB.keys.test.secret })).status).toBe(404);
  });

  it('an unknown scope answers 400 naming scopes and the scope', async () => {
    const res = await t.call('POST', '/v1/role', { apiKey: t.merchantA.keys.test.secret, body: { name: 'Typo', scopes: ['invoice.read', 'invoice.readd'] } });
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'scopes' });
    expect(res.json.error.message).toContain('invoice.readd');
  });

  it('a name in use (any case, in either mode, or Owner) answers 409 invalid_state; another merchant may use it', async () => {
    const m = await t.newMerchant('Names');
    const body = { name: 'Support', scopes: ['invoice.read'] };
    expect((await t.call('POST', '/v1/role', { apiKey: m.keys.test.secret, body })).status).toBe(201);
    for (const [key, name] of [
      [m.keys.test.secret, 'Support'],
      [m.keys.live.secret, 'SUPPORT'],
      [m.keys.test.secret, 'owner'],
    ] as const) {
      const res = await t.call('POST', '/v1/role', { apiKey: key, body: { ...body, name } });
      expect(res.status, res.text).toBe(409);
      expect(res.json.error).toMatchObject({ type: 'conflict', code: 'invalid_state', param: 'name' });
    }
    expect((await t.call('POST', '/v1/role', { apiKey: t.merchantB.keys.test.secret, body: { ...body, name: `Support ${randomToken(4)}` } })).status).toBe(201);
    const other = await t.newMerchant('Other names');
    expect((await t.call('POST', '/v1/role', { apiKey: other.keys.test.secret, body })).status).toBe(201);
  });
});
