// Money for the funds tests: paid and settled checkout payments, the merchant's wallet account,
// paying invoices from its balance and transfers out of it. Every kit is made per test file from
// its own server: it keeps no state between files.
import { expect } from 'vitest';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { createTestSession, type TestServer } from './server.js';

const card = { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 2, cvc: '123' };

export function fundsKit(t: TestServer) {
  return {
    /** A paid card payment of `amount` in test mode; answers its payment id. */
    async paid(merchant: MerchantCredentials, amount: number, currency = 'USD'): Promise<number> {
      const s = await createTestSession(t, merchant, false, { amount, currency });
      const pk = merchant.keys.test.publishable;
      const pm = await t.call('POST', `/v1/checkout-sessions/${s.id}/tokenize`, { key: pk, clientSecret: s.clientSecret, body: card });
      const res = await t.call('POST', `/v1/checkout-sessions/${s.id}/confirm`, {
        key: pk,
        clientSecret: s.clientSecret,
        body: { paymentMethodId: pm.json.id },
      });
      if (res.status !== 200) throw new Error(`payment failed: ${res.status} ${res.text}`);
      return res.json.paymentResult.id as number;
    },
    async settle(merchant: MerchantCredentials, paymentId: number): Promise<void> {
      const res = await t.call('POST', `/v1/test-helpers/payments/${paymentId}/settle`, { key: merchant.keys.test.secret });
      if (res.status !== 200) throw new Error(`settle failed: ${res.status} ${res.text}`);
    },
    /** Settled money: a paid and settled payment (its net is `amount` less the 2.9% + 0.30 fee). */
    async funded(merchant: MerchantCredentials, amount: number): Promise<void> {
      await this.settle(merchant, await this.paid(merchant, amount));
    },
    /** The merchant's test-mode account in a currency. */
    async account(merchant: MerchantCredentials, currency = 'USD'): Promise<{ id: number; accountNumber: string }> {
      const res = await t.call('GET', '/v1/account', { apiKey: merchant.keys.test.secret });
      const account = res.json.value.find((a: any) => a.currencyCode === currency);
      if (!account) throw new Error(`no ${currency} account: ${res.text}`);
      return account;
    },
  };
}

/** The `AccountBalance` payment option every merchant has (`paymentOptionId`). */
export const BALANCE_OPTION = 5;

/** Paying invoices from a wallet account's balance (`sourceAccountId`), over HTTP. */
export function balancePayments(t: TestServer) {
  const kit = fundsKit(t);
  return {
    /** A Checkout invoice of one line of `amount`. */
    async newInvoice(m: MerchantCredentials, amount: number, currency = 'USD'): Promise<{ id: number; identifier: string }> {
      const res = await t.call('POST', '/v1/invoices', {
        key: m.keys.test.secret,
        body: { customer: { email: 'ana@example.com', firstName: 'Ana' }, currency, lineItems: [{ name: 'Design', quantity: 1, unitAmount: amount }] },
      });
      expect(res.status, res.text).toBe(201);
      return res.json;
    },
    /** A merchant with settled money: a paid and settled card payment of `amount` (its net is `amount` less 2.9% + 0.30). */
    async fundedMerchant(name: string, amount: number): Promise<{ m: MerchantCredentials; account: { id: number } }> {
      const m = await t.newMerchant(name);
      await kit.funded(m, amount);
      return { m, account: await kit.account(m) };
    },
    /** `payinvoice` with the balance option. */
    pay: (m: MerchantCredentials, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      t.call('POST', '/api/payment/payinvoice', { apiKey: m.keys.test.secret, body: { paymentOptionId: BALANCE_OPTION, ...body }, headers }),
    balance: async (m: MerchantCredentials, accountId: number) =>
      (await t.call('GET', `/v1/account/${accountId}/balance`, { apiKey: m.keys.test.secret })).json,
    invoiceOf: async (m: MerchantCredentials, id: number) => (await t.call('GET', `/v1/invoice/${id}`, { apiKey: m.keys.test.secret })).json,
  };
}

/** Transfers out of a wallet account (`POST /v1/transfer`), over HTTP. */
export function transfersKit(t: TestServer) {
  const kit = fundsKit(t);
  const transfers = (m: MerchantCredentials, qs = '') => t.call('GET', `/v1/GatewayTransferDto${qs}`, { apiKey: m.keys.test.secret });
  return {
    transfer: (m: MerchantCredentials, body: Record<string, unknown>) =>
      t.call('POST', '/v1/transfer', { apiKey: m.keys.test.secret, body: { currencyCode: 'USD', ...body } }),
    balance: async (m: MerchantCredentials, accountId: number) =>
      (await t.call('GET', `/v1/account/${accountId}/balance`, { apiKey: m.keys.test.secret })).json,
    /** A merchant with 96.80 USD available (a settled payment of 100) and its account. */
    async funded() {
      const merchant = await t.newMerchant('Sender');
      await kit.funded(merchant, 100);
      return { merchant, account: await kit.account(merchant) };
    },
    transfers,
    transactions: (m: MerchantCredentials, qs = '') => t.call('GET', `/v1/transaction${qs}`, { apiKey: m.keys.test.secret }),
    /** Moves the merchant's sandbox clock on by `seconds`. */
    advance: (m: MerchantCredentials, seconds: number) => t.call('POST', '/v1/test-helpers/clock/advance', { key: m.keys.test.secret, body: { seconds } }),
    /** Fails a transfer still `Processing` (the test helper). */
    fail: (m: MerchantCredentials, id: number, body?: Record<string, unknown>) =>
      t.call('POST', `/v1/test-helpers/transfers/${id}/fail`, { key: m.keys.test.secret, body }),
    /** The ledger entries naming a transfer, oldest first: account, type and amount. */
    ledgerOf: (transferId: number) =>
      t.database.db.selectFrom('ledger_entries').select(['account', 'type', 'amount']).where('transfer_id', '=', transferId).orderBy('id').execute(),
    /** A transfer as the list shows it. */
    statusOf: async (m: MerchantCredentials, id: number) => (await transfers(m, `?$filter=id%20eq%20${id}`)).json.value[0],
    /** The merchant's test-mode `transfer.*` events, oldest first: [type, transfer id, status]. */
    async transferEvents(m: MerchantCredentials): Promise<[string, number, string][]> {
      const res = await t.call('GET', '/v1/events?type=transfer.*&limit=100', { key: m.keys.test.secret });
      expect(res.status, res.text).toBe(200);
      return res.json.data.map((e: any) => [e.type, e.data.object.id, e.data.object.status]).reverse();
    },
  };
}
