// A merchant's billing as its server drives it over HTTP: plans, customers, a subscription started
// through a paid (or free-trial) checkout session, its changes, and the sandbox clock.
import { expect } from 'vitest';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import type { TestServer } from './server.js';

/** Seconds in a day. */
export const DAY = 86_400;
const CARD_YEAR = new Date().getUTCFullYear() + 5;

/** `clock` is the server's base clock (a test's ManualClock). */
export function billingKit(t: TestServer, clock: { now(): Date }) {
  let seq = 0;
  const sk = (m: MerchantCredentials) => m.keys.test.secret;
  const pk = (m: MerchantCredentials) => m.keys.test.publishable;

  async function payWithCard(m: MerchantCredentials, session: { id: string; clientSecret: string }, cardNumber: string) {
    const pm = await t.call('POST', `/v1/checkout-sessions/${session.id}/tokenize`, {
      key: pk(m),
      clientSecret: session.clientSecret,
      body: { cardNumber, expiryMonth: 12, expiryYear: CARD_YEAR, cvc: '123' },
    });
    expect(pm.status, pm.text).toBe(201);
    const confirmed = await t.call('POST', `/v1/checkout-sessions/${session.id}/confirm`, {
      key: pk(m),
      clientSecret: session.clientSecret,
      body: { paymentMethodId: pm.json.id },
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    return confirmed.json;
  }

  const kit = {
    merchant: () => t.newMerchant('Billing merchant'),
    async plan(m: MerchantCredentials, spec: { amount?: number; currency?: string; interval?: string; intervalCount?: number; name?: string } = {}) {
      const product = await t.call('POST', '/v1/products', { key: sk(m), body: { name: 'Pro' } });
      const plan = await t.call('POST', '/v1/plans', {
        key: sk(m),
        body: { productId: product.json.id, name: spec.name ?? 'Pro monthly', amount: 29, currency: 'USD', interval: 'month', ...spec },
      });
      expect(plan.status, plan.text).toBe(201);
      return plan.json.data;
    },
    async customer(m: MerchantCredentials) {
      const res = await t.call('POST', '/v1/customers', { key: sk(m), body: { email: `billing${++seq}-${m.merchantId}@example.com`, name: 'Ana Lopez' } });
      return res.json.data;
    },
    /** A subscription started through checkout: paid with `card` (4242… by default), or on a free trial. */
    async subscribe(m: MerchantCredentials, planId: number, options: { card?: string; trialDays?: number } = {}) {
      const customer = await kit.customer(m);
      const body = {
        mode: 'embedded',
        paymentType: 'subscription',
        subscriptionPlanId: planId,
        clientId: customer.id,
        ...(options.trialDays ? { trialDays: options.trialDays } : {}),
      };
      const session = await t.call('POST', '/v1/checkout-sessions', { key: sk(m), body });
      expect(session.status, session.text).toBe(201);
      if (!options.trialDays) await payWithCard(m, session.json, options.card ?? '4242424242424242');
      const subscriptionId = (await t.call('GET', `/v1/checkout-sessions/${session.json.id}`, { key: sk(m) })).json.subscriptionId;
      return { customer, subscription: await kit.subscription(m, subscriptionId) };
    },
    async subscription(m: MerchantCredentials, id: number) {
      const res = await t.call('GET', `/v1/subscriptions/${id}`, { key: sk(m) });
      expect(res.status, res.text).toBe(200);
      return res.json.data;
    },
    /** A subscription's invoices, newest first. */
    async invoices(m: MerchantCredentials, id: number) {
      return (await t.call('GET', `/v1/subscriptions/${id}/invoices?limit=100`, { key: sk(m) })).json.data.data;
    },
    action: (m: MerchantCredentials, id: number, action: 'cancel' | 'pause' | 'resume', body?: Record<string, unknown>) =>
      t.call('POST', `/v1/subscriptions/${id}/${action}`, { key: sk(m), body }),
    changePlan: (m: MerchantCredentials, id: number, planId: number) => t.call('POST', `/v1/subscriptions/${id}/change-plan`, { key: sk(m), body: { planId } }),
    previewPlanChange: (m: MerchantCredentials, id: number, planId: number) =>
      t.call('GET', `/v1/subscriptions/${id}/change-plan?planId=${planId}`, { key: sk(m) }),
    /** Advances the merchant's test clock by whole seconds, running what falls due. */
    async advance(m: MerchantCredentials, seconds: number) {
      const res = await t.call('POST', '/v1/test-helpers/clock/advance', { key: sk(m), body: { seconds } });
      expect(res.status, res.text).toBe(200);
      return res;
    },
    /** The merchant's test-mode clock now. */
    async clockNow(m: MerchantCredentials): Promise<Date> {
      const row = await t.database.db.selectFrom('sandbox_clocks').select('offset_seconds').where('merchant_id', '=', m.merchantId).executeTakeFirst();
      return new Date(clock.now().getTime() + Number(row?.offset_seconds ?? 0) * 1000);
    },
    /** Advances the merchant's test clock to `at` (ms), or to the next second after its now. */
    async advanceTo(m: MerchantCredentials, at: number) {
      const now = (await kit.clockNow(m)).getTime();
      return kit.advance(m, Math.max(1, Math.ceil((at - now) / 1000)));
    },
    /** Pays an invoice through a checkout session with a good card. */
    async payInvoice(m: MerchantCredentials, invoiceId: number) {
      const session = await t.call('POST', '/v1/checkout-sessions', { key: sk(m), body: { mode: 'embedded', paymentType: 'oneTime', invoiceId } });
      expect(session.status, session.text).toBe(201);
      return payWithCard(m, session.json, '4242424242424242');
    },
    /** How many receipts the outbox holds for an address. */
    async receipts(to: string): Promise<number> {
      return (await t.database.db.selectFrom('messages').select('id').where('recipient', '=', to).where('kind', '=', 'receipt').execute()).length;
    },
  };
  return kit;
}

export type BillingKit = ReturnType<typeof billingKit>;
