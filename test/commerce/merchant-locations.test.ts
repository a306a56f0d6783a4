// Merchant locations and the default currency (issue 35 §16): every merchant has a primary
// location, more are created with POST /v1/merchantLocation, an invoice answers its issuing
// location (the primary one unless `merchantLocationId` names another of the merchant's); the
// merchant's default currency is the one accounts and dashboards use when a request names none.
import { beforeAll, describe, expect, it } from 'vitest';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { fundsKit } from '../support/funds.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();

const shop = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  address: { addressLine1: '221 E Main St', city: 'Round Rock', region: 'TX', postalCode: '78664', country: 'US' },
  ...extra,
});
const addLocation = (m: MerchantCredentials, body: unknown) => t.call('POST', '/v1/merchantLocation', { apiKey: m.keys.test.secret, body });
const locations = async (m: MerchantCredentials) => (await t.call('GET', '/v1/merchantLocation', { apiKey: m.keys.test.secret })).json.value;
const newInvoice = (m: MerchantCredentials, extra: Record<string, unknown> = {}) =>
  t.call('POST', '/v1/invoice', { apiKey: m.keys.test.secret, body: { currencyCode: 'USD', items: [{ name: 'Logo', unitCost: 450, quantity: 1 }], ...extra } });

/** A sandbox merchant of merchant A (`POST /v1/test-helpers/merchants`), as credentials. */
async function sandboxOf(parentKey: string, body: Record<string, unknown> = {}): Promise<MerchantCredentials> {
  const res = await t.call('POST', '/v1/test-helpers/merchants', { key: parentKey, body });
  expect(res.status, res.text).toBe(201);
  const keys = { secret: res.json.secretKey, publishable: res.json.publishableKey };
  return { merchantId: res.json.id, keys: { test: keys, live: keys } };
}

describe('merchant locations', () => {
  it('a merchant made without an address has a primary location named after it, in its country', async () => {
    const m = await t.newMerchant('Tide Pool');
    const merchant = (await t.call('GET', '/v1/merchant', { apiKey: m.keys.test.secret })).json;
    expect(await locations(m)).toEqual([
      {
        id: expect.any(Number),
        name: merchant.name,
        address: { addressLine1: null, addressLine2: null, city: null, region: null, postalCode: null, country: 'US' },
        phone: null,
        isPrimary: true,
      },
    ]);
  });

  it('creates locations; an invoice answers the primary one, or the one it names, on every read', async () => {
    const m = await t.newMerchant('Northwind');
    const [primary] = await locations(m);
    const made = await addLocation(m, shop('Round Rock', { phone: '+15125550199' }));
    expect(made.status, made.text).toBe(201);
    expect(made.json).toEqual({
      id: expect.any(Number),
      name: 'Round Rock',
      address: { addressLine1: '221 E Main St', addressLine2: null, city: 'Round Rock', region: 'TX', postalCode: '78664', country: 'US' },
      phone: '+15125550199',
      isPrimary: false,
    });
    expect((await locations(m)).map((l: any) => [l.id, l.isPrimary])).toEqual([
      [primary.id, true],
      [made.json.id, false],
    ]);

    const plain = await newInvoice(m);
    expect(plain.status, plain.text).toBe(201);
    expect(plain.json.merchantLocation).toEqual(primary);
    const named = await newInvoice(m, { merchantLocationId: made.json.id });
    expect(named.status, named.text).toBe(201);
    expect(named.json.merchantLocation).toEqual(made.json);
    const apiKey = m.keys.test.secret;
    expect((await t.call('GET', `/v1/invoice/${named.json.id}`, { apiKey })).json.merchantLocation).toEqual(made.json);
    const code = encodeURIComponent(named.json.code);
    expect((await t.call('GET', `/v1/invoice/getByReference(code='${code}')`)).json.merchantLocation).toEqual(made.json);
    const list = (await t.call('GET', '/v1/invoice?$orderby=id asc', { apiKey })).json.value;
    expect(list.map((i: any) => [i.id, i.merchantLocation?.id])).toEqual([
      [plain.json.id, primary.id],
      [named.json.id, made.json.id],
    ]);
  });

  it('isPrimary makes a new location the primary one; invoices already issued keep theirs', async () => {
    const m = await t.newMerchant('Harbor');
    const [first] = await locations(m);
    const before = (await newInvoice(m)).json;
    const main = await addLocation(m, shop('Pier 9', { isPrimary: true }));
    expect(main.status, main.text).toBe(201);
    expect(main.json.isPrimary).toBe(true);
    expect((await locations(m)).map((l: any) => [l.name, l.isPrimary])).toEqual([
      ['Pier 9', true],
      [first.name, false],
    ]);
    expect((await newInvoice(m)).json.merchantLocation.id).toBe(main.json.id);
    const again = await t.call('GET', `/v1/invoice/${before.id}`, { apiKey: m.keys.test.secret });
    expect(again.json.merchantLocation).toEqual({ ...first, isPrimary: false });
  });

  it("another merchant's location is neither listed nor usable; an unknown one is refused", async () => {
    const a = t.merchantA;
    const b = t.merchantB;
    const bShop = (await addLocation(b, shop(`B shop`))).json;
    expect((await locations(a)).map((l: any) => l.id)).not.toContain(bShop.id);
    for (const id of [bShop.id, 2147483647]) {
      const res = await newInvoice(a, { merchantLocationId: id });
      expect(res.status, res.text).toBe(400);
      expect(res.json.error).toMatchObject({ code: 'parameter_invalid', param: 'merchantLocationId' });
    }
  });

  it('refuses a location without its address, and a restricted key without the scope', async () => {
    const res = await addLocation(t.merchantA, { name: 'Nowhere' });
    expect(res.status).toBe(400);
    const role = await t.call('POST', '/v1/role', { apiKey: t.merchantA.keys.test.secret, body: { name: 'Reader', scopes: ['merchant.read'] } });
    const key = await t.call('POST', `/v1/role/${role.json.id}/keys`, { apiKey: t.merchantA.keys.test.secret, body: { description: 'reader' } });
    const denied = await t.call('POST', '/v1/merchantLocation', { apiKey: key.json.key, body: shop('Denied') });
    expect(denied.status, denied.text).toBe(403);
  });
});

describe('the default currency', () => {
  let eur: MerchantCredentials;
  beforeAll(async () => {
    eur = await sandboxOf(t.merchantA.keys.test.secret, { defaultCurrency: 'eur', name: 'euro' });
    const kit = fundsKit(t);
    await kit.settle(eur, await kit.paid(eur, 100, 'EUR'));
    const account = await kit.account(eur, 'EUR');
    const sent = await t.call('POST', '/v1/transfer', {
      apiKey: eur.keys.test.secret,
      body: {
        sourceAccountId: account.id,
        currencyCode: 'EUR',
        amount: 10,
        destinationAccountNumber: 'DE89370400440532013000',
        transferAction: 'BankTransfer',
      },
    });
    expect(sent.status, sent.text).toBe(201);
    // A day on its sandbox clock: the next 00:00 UTC pays out what is available, in EUR.
    const advanced = await t.call('POST', '/v1/test-helpers/clock/advance', { key: eur.keys.test.secret, body: { seconds: 86_400 } });
    expect(advanced.status, advanced.text).toBe(200);
  });

  it('a sandbox merchant takes the defaultCurrency sent, else its parent’s, and its parent’s country', async () => {
    expect((await t.call('GET', '/v1/merchant', { apiKey: eur.keys.test.secret })).json).toMatchObject({ defaultCurrency: 'EUR', country: 'US' });
    const parent = await t.call('POST', '/v1/merchant', {
      apiKey: t.merchantA.keys.test.secret,
      body: { name: 'Pound Shop', email: 'ops@pound.example.com', country: 'GB', defaultCurrency: 'GBP' },
    });
    expect(parent.status, parent.text).toBe(201);
    const child = await sandboxOf(parent.json.keys.secret);
    expect((await t.call('GET', '/v1/merchant', { apiKey: child.keys.test.secret })).json).toMatchObject({ defaultCurrency: 'GBP', country: 'GB' });
    expect((await locations(child))[0]).toMatchObject({ isPrimary: true, address: { country: 'GB', city: null } });
    const bad = await t.call('POST', '/v1/test-helpers/merchants', { key: t.merchantA.keys.test.secret, body: { defaultCurrency: 'XAU' } });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'parameter_invalid', param: 'defaultCurrency' });
  });

  it("accounts open in the merchant's default currency, not USD", async () => {
    const fresh = await sandboxOf(t.merchantA.keys.test.secret, { defaultCurrency: 'JPY' });
    const res = await t.call('GET', '/v1/account', { apiKey: fresh.keys.test.secret });
    expect(res.status, res.text).toBe(200);
    expect(res.json.value.map((a: any) => a.currencyCode)).toEqual(['JPY']);
  });

  it('the transfers and payouts dashboards count the default currency when currencyCode is left out', async () => {
    const apiKey = eur.keys.test.secret;
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    const period = `?startDate=${day(-30)}&endDate=${day(30)}`;
    const transfers = (qs: string) => t.call('GET', `/v1/FinancialDashboard/transfers${period}${qs}`, { apiKey });
    expect((await transfers('')).json.summary.totalTransfers).toBe(1);
    expect((await transfers('&currencyCode=EUR')).json).toEqual((await transfers('')).json);
    expect((await transfers('&currencyCode=USD')).json.summary.totalTransfers).toBe(0);
    const payouts = (qs: string) => t.call('GET', `/v1/FinancialDashboard/payouts${period}${qs}`, { apiKey });
    const byDefault = await payouts('');
    expect(byDefault.status, byDefault.text).toBe(200);
    expect(byDefault.json.summary.totalBatches).toBe(1);
    expect(byDefault.json).toEqual((await payouts('&currencyCode=EUR')).json);
    expect((await payouts('&currencyCode=USD')).json.summary.totalBatches).toBe(0);
  });
});
