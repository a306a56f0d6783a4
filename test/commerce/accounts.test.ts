// Wallet accounts and balances of the Commerce interface, from the ledger.
import { describe, expect, it } from 'vitest';
import { fundsKit } from '../support/funds.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();
const kit = fundsKit(t);

describe('accounts', () => {
  it('opens one USD account on the first read, with a TL account number, and answers the same one after', async () => {
    const merchant = await t.newMerchant('Accounts');
    const first = await t.call('GET', '/v1/account', { apiKey: merchant.keys.test.secret });
    expect(first.status).toBe(200);
    expect(first.json.value).toHaveLength(1);
    expect(first.json.value[0]).toMatchObject({ name: 'USD wallet', description: null, currencyCode: 'USD', status: 'Active' });
    expect(first.json.value[0].accountNumber).toMatch(/^TL[0-9]{11}$/);
    expect((await t.call('GET', '/v1/account', { apiKey: merchant.keys.test.secret })).json).toEqual(first.json);
    const live = await t.call('GET', '/v1/account', { apiKey: merchant.keys.live.secret });
    expect(live.json.value[0].id).not.toBe(first.json.value[0].id);
  });

  it('the balance is the ledger: current counts pending money, available only the settled part', async () => {
    const merchant = await t.newMerchant('Balances');
    const key = merchant.keys.test.secret;
    const settled = await kit.paid(merchant, 100);
    await kit.settle(merchant, settled);
    await kit.paid(merchant, 50);
    const account = await kit.account(merchant);
    const balance = await t.call('GET', `/v1/account/${account.id}/balance`, { apiKey: key });
    expect(balance.status).toBe(200);
    // 100 - 3.20 fee settled; 50 - 1.75 fee pending.
    expect(balance.json).toEqual({ currentAmount: 145.05, availableAmount: 96.8, currencyCode: 'USD' });
  });

  it('opens an account in every currency the merchant has booked money in', async () => {
    const merchant = await t.newMerchant('Euros');
    await kit.paid(merchant, 20, 'EUR');
    const list = await t.call('GET', '/v1/account', { apiKey: merchant.keys.test.secret });
    expect(list.json.value.map((a: any) => a.currencyCode)).toEqual(['USD', 'EUR']);
  });

  it("another merchant's account, or the other mode's, answers 404", async () => {
    const merchant = await t.newMerchant('Own');
    const account = await kit.account(merchant);
    const other = await t.newMerchant('Other');
    const res = await t.call('GET', `/v1/account/${account.id}/balance`, { apiKey: other.keys.test.secret });
    expect(res.status).toBe(404);
    expect(res.json.error).toMatchObject({ code: 'resource_not_found' });
    expect((await t.call('GET', `/v1/account/${account.id}/balance`, { apiKey: merchant.keys.live.secret })).status).toBe(404);
  });
});
