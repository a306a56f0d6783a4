// A merchant's billing as its server drives it over HTTP: plans, customers, a subscription started
// through a paid (or free-trial) checkout session, its changes, and the sandbox clock; subscription
// sessions as the session tests make them; invoices and the checkout sessions that pay them.
import { expect } from 'vitest';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { delivered } from './events.js';
import type { TestServer } from './server.js';

/** Seconds in a day. */
export const DAY = 86_400;
/** The expiry year of every test card (always in the future). */
export const CARD_YEAR = new Date().getUTCFullYear() + 5;

/** Seconds from `from` to the ISO time `iso`. */
export const secondsAfter = (from: Date | string, iso: string) => (Date.parse(iso) - new Date(from).getTime()) / 1000;

/** Server (and job) settings of the sandbox clock tests: webhooks reach the tests' loopback receivers, an attempt times out after 1.5 s, no mail server. */
export const SANDBOX_CLOCK_CONFIG = { allowLoopbackWebhooks: true, webhookTimeoutMs: 1500, smtpUrl: undefined, smtpFrom: 'Till <no-reply@till.localhost>' };

/** The sandbox clock's helpers over HTTP: a merchant's test clock advanced, its sandbox webhook endpoint, the endpoint's deliveries. */
export function sandboxClock(t: TestServer) {
  return {
    /** POST /v1/test-helpers/clock/advance, unchecked (`seconds` as sent). */
    advance: (merchant: MerchantCredentials, seconds: unknown, key = merchant.keys.test.secret) =>
      t.call('POST', '/v1/test-helpers/clock/advance', { key, body: { seconds } }),
    configure: (merchant: MerchantCredentials, body: Record<string, unknown>) =>
      t.call('POST', '/v1/WebhookConfiguration', { key: merchant.keys.test.secret, body }),
    deliveries: async (merchant: MerchantCredentials, configId: number) =>
      (await t.call('GET', `/v1/WebhookConfiguration/${configId}/deliveries`, { key: merchant.keys.test.secret })).json.data as any[],
  };
}

/** Tokenizes a test card on a session and confirms the session with it, as the payer's browser does; answers the confirm, unchecked. */
export async function confirmWithCard(t: TestServer, publishableKey: string, session: { id: string; clientSecret: string }, cardNumber = '4242424242424242') {
  const pm = await t.call('POST', `/v1/checkout-sessions/${session.id}/tokenize`, {
    key: publishableKey,
    clientSecret: session.clientSecret,
    body: { cardNumber, expiryMonth: 12, expiryYear: CARD_YEAR, cvc: '123' },
  });
  expect(pm.status, pm.text).toBe(201);
  return t.call('POST', `/v1/checkout-sessions/${session.id}/confirm`, {
    key: publishableKey,
    clientSecret: session.clientSecret,
    body: { paymentMethodId: pm.json.id },
  });
}

/** `clock` is the server's base clock (a test's ManualClock). */
export function billingKit(t: TestServer, clock: { now(): Date }) {
  let seq = 0;
  const sk = (m: MerchantCredentials) => m.keys.test.secret;

  async function payWithCard(m: MerchantCredentials, session: { id: string; clientSecret: string }, cardNumber: string) {
    const confirmed = await confirmWithCard(t, m.keys.test.publishable, session, cardNumber);
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

export interface PlanSpec {
  amount?: number;
  currency?: string;
  interval?: 'day' | 'week' | 'month' | 'year';
  intervalCount?: number;
}

/**
 * Subscription sessions of the server's merchant A in test mode, as the session tests make them:
 * plans (monthly, 29 USD unless told), customers, a session on them, and reading back.
 */
export function subscriptionSessions(t: TestServer) {
  let seq = 0;
  const sk = () => t.merchantA.keys.test.secret;
  const sessions = {
    /** A plan of the merchant (monthly, 29 USD unless told). */
    async newPlan(spec: PlanSpec = {}, merchant = t.merchantA): Promise<any> {
      const key = merchant.keys.test.secret;
      const product = await t.call('POST', '/v1/products', { key, body: { name: 'Pro' } });
      const plan = await t.call('POST', '/v1/plans', {
        key,
        body: { productId: product.json.id, name: 'Pro monthly', amount: 29, currency: 'USD', interval: 'month', ...spec },
      });
      expect(plan.status).toBe(201);
      return plan.json.data;
    },
    async newCustomer(merchant = t.merchantA): Promise<any> {
      const res = await t.call('POST', '/v1/customers', { key: merchant.keys.test.secret, body: { email: `subscriber${++seq}-${Date.now()}@example.com` } });
      return res.json.data;
    },
    /** POST /v1/checkout-sessions with paymentType subscription, unchecked. */
    create: (body: Record<string, unknown>, key = sk()) =>
      t.call('POST', '/v1/checkout-sessions', { key, body: { mode: 'embedded', paymentType: 'subscription', ...body } }),
    /** A subscription session (201), on a new plan and a new customer unless given. */
    async subscriptionSession(body: Record<string, unknown> = {}): Promise<{ plan: any; customer: any; session: any }> {
      const plan = body.subscriptionPlanId === undefined ? await sessions.newPlan() : { id: body.subscriptionPlanId };
      const customer = body.clientId === undefined ? await sessions.newCustomer() : { id: body.clientId };
      const res = await sessions.create({ subscriptionPlanId: plan.id, clientId: customer.id, ...body });
      expect(res.status, res.text).toBe(201);
      return { plan, customer, session: res.json };
    },
    /** Pays a session with a test card; answers the confirm, unchecked. */
    payByCard: (session: { id: string; clientSecret: string }, cardNumber = '4242424242424242', key = t.merchantA.keys.test.publishable) =>
      confirmWithCard(t, key, session, cardNumber),
    retrieve: (id: string, key = sk()) => t.call('GET', `/v1/checkout-sessions/${id}`, { key }),
    getSubscription: (id: number, key = sk()) => t.call('GET', `/v1/subscriptions/${id}`, { key }),
    /** The session's events in order, as webhooks carry them. */
    events: async (sessionId: string) =>
      (await t.database.db.selectFrom('events').select(['type', 'data']).where('session_id', '=', sessionId).orderBy('seq').execute()).map(delivered),
  };
  return sessions;
}

/** The lines of the invoice tests: 3 × 120.50 (taxed at the invoice's rate, if any) and 1 × 45.25 at 0%. */
export const INVOICE_LINES = [
  { name: 'Consulting', quantity: 3, unitAmount: 120.5 },
  { name: 'Travel', quantity: 1, unitAmount: 45.25, taxRate: 0 },
];

/** An invoice of the key's merchant and mode (201): for Ana Lopez in USD, 3 × 120.50 and 1 × 45.25 at 0% tax, unless the body says otherwise. */
export async function newInvoice(t: TestServer, key: string, body: Record<string, unknown> = {}): Promise<any> {
  const res = await t.call('POST', '/v1/invoices', {
    key,
    body: { customer: { email: 'ana@example.com', firstName: 'Ana', lastName: 'Lopez' }, currency: 'USD', lineItems: INVOICE_LINES, ...body },
  });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

/** The `invoice.*` events of one of merchant A's invoices, in order, as webhooks carry them. */
export const invoiceEvents = async (t: TestServer, id: number) =>
  (
    await t.database.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('merchant_id', '=', t.merchantA.merchantId)
      .where('type', 'like', 'invoice.%')
      .orderBy('seq')
      .execute()
  )
    .map(delivered)
    .filter((e) => (e.data as { id: number }).id === id);

/** POST /v1/checkout-sessions for a oneTime embedded session (one paying an invoice, with `invoiceId`), unchecked. */
export const oneTimeSession = (t: TestServer, key: string, body: Record<string, unknown>) =>
  t.call('POST', '/v1/checkout-sessions', { key, body: { mode: 'embedded', paymentType: 'oneTime', ...body } });

/**
 * Invoice refunds of merchant A in test mode: invoices of one line, paid through checkout sessions
 * (a captured hold with `capture`), and the payments' refund columns.
 */
export function invoiceRefunds(t: TestServer) {
  const sk = () => t.merchantA.keys.test.secret;
  const refunds = {
    async newInvoice(unitAmount: number): Promise<{ id: number; total: number }> {
      return newInvoice(t, sk(), { customer: { email: 'refund.me@example.com' }, lineItems: [{ name: 'Order', quantity: 1, unitAmount }] });
    },
    /** Pays what is due on the invoice through a checkout session; with `capture`, as a hold captured for that amount. Answers the payment id. */
    async payInvoice(invoiceId: number, capture?: number): Promise<number> {
      const s = await oneTimeSession(t, sk(), { invoiceId, ...(capture ? { captureMethod: 'manual' } : {}) });
      expect(s.status, s.text).toBe(201);
      const confirmed = await confirmWithCard(t, t.merchantA.keys.test.publishable, s.json);
      const paymentId = confirmed.json.paymentResult.id as number;
      if (capture) expect((await t.call('POST', `/v1/payments/${paymentId}/capture`, { key: sk(), body: { amount: capture } })).status).toBe(200);
      return paymentId;
    },
    /** An invoice of 100 paid in two payments: 60 (older, a captured hold), then 40. */
    async paidTwice() {
      const invoice = await refunds.newInvoice(100);
      const older = await refunds.payInvoice(invoice.id, 60);
      const newer = await refunds.payInvoice(invoice.id);
      expect((await t.call('GET', `/v1/invoices/${invoice.id}`, { key: sk() })).json).toMatchObject({ status: 'paid', amountPaid: 100 });
      return { invoice, older, newer };
    },
    payments: (ids: number[]) =>
      t.database.db.selectFrom('payments').select(['id', 'status', 'refunded_amount']).where('id', 'in', ids).orderBy('id').execute(),
  };
  return refunds;
}
