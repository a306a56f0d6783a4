// Money for the funds tests: paid and settled checkout payments, and the merchant's wallet account.
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
