// Subscription sessions and free trials (creation rule 7, "Subscription", "Renewal and card on
// file", "Subscription status"), and reading subscriptions back. Named after the rules they prove.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { startTestServer, type TestServer, usingPostgres } from '../support/server.js';
import { delivered } from '../support/events.js';

const clock = new ManualClock(new Date());
let t: TestServer;
let sk: string;
let pk: string;
beforeAll(async () => {
  t = await startTestServer({ clock, rateLimitScale: 100 });
  sk = t.merchantA.keys.test.secret;
  pk = t.merchantA.keys.test.publishable;
});
afterAll(async () => {
  await t?.close();
});

const CARD_YEAR = new Date().getUTCFullYear() + 5;
const DAY = 86_400_000;

interface PlanSpec {
  amount?: number;
  currency?: string;
  interval?: 'day' | 'week' | 'month' | 'year';
  intervalCount?: number;
}

/** A plan of the merchant (monthly, 29 USD unless told). */
async function newPlan(spec: PlanSpec = {}, merchant: MerchantCredentials = t.merchantA): Promise<any> {
  const key = merchant.keys.test.secret;
  const product = await t.call('POST', '/v1/products', { key, body: { name: 'Pro' } });
  const plan = await t.call('POST', '/v1/plans', {
    key,
    body: { productId: product.json.id, name: 'Pro monthly', amount: 29, currency: 'USD', interval: 'month', ...spec },
  });
  expect(plan.status).toBe(201);
  return plan.json.data;
}

let customerSeq = 0;
async function newCustomer(merchant: MerchantCredentials = t.merchantA): Promise<any> {
  const res = await t.call('POST', '/v1/customers', {
    key: merchant.keys.test.secret,
    body: { email: `subscriber${++customerSeq}-${Date.now()}@example.com` },
  });
  return res.json.data;
}

const createSession = (body: Record<string, unknown>, key = sk) =>
  t.call('POST', '/v1/checkout-sessions', { key, body: { mode: 'embedded', paymentType: 'subscription', ...body } });

async function subscriptionSession(body: Record<string, unknown> = {}): Promise<{ plan: any; customer: any; session: any }> {
  const plan = body.subscriptionPlanId === undefined ? await newPlan() : { id: body.subscriptionPlanId };
  const customer = body.clientId === undefined ? await newCustomer() : { id: body.clientId };
  const res = await createSession({ subscriptionPlanId: plan.id, clientId: customer.id, ...body });
  expect(res.status, res.text).toBe(201);
  return { plan, customer, session: res.json };
}

async function payByCard(session: { id: string; clientSecret: string }, cardNumber = '4242424242424242', key = pk) {
  const pm = await t.call('POST', `/v1/checkout-sessions/${session.id}/tokenize`, {
    key,
    clientSecret: session.clientSecret,
    body: { cardNumber, expiryMonth: 12, expiryYear: CARD_YEAR, cvc: '123' },
  });
  expect(pm.status, pm.text).toBe(201);
  return t.call('POST', `/v1/checkout-sessions/${session.id}/confirm`, { key, clientSecret: session.clientSecret, body: { paymentMethodId: pm.json.id } });
}

const events = async (sessionId: string) =>
  (await t.database.db.selectFrom('events').select(['type', 'data']).where('session_id', '=', sessionId).orderBy('seq').execute()).map(delivered);
const retrieve = (id: string, key = sk) => t.call('GET', `/v1/checkout-sessions/${id}`, { key });
const getSubscription = (id: number, key = sk) => t.call('GET', `/v1/subscriptions/${id}`, { key });

describe('creating a subscription session (rule 7)', () => {
  it('takes the amount and currency from the plan; the session is open and unpaid, and retrieval shows paymentType subscription and the clientId', async () => {
    const { plan, customer, session } = await subscriptionSession();
    expect(session).toMatchObject({
      object: 'checkout_session',
      status: 'open',
      paymentStatus: 'unpaid',
      amount: 29,
      currency: 'USD',
      paymentType: 'subscription',
    });
    const got = await retrieve(session.id);
    expect(got.status).toBe(200);
    expect(got.json).toMatchObject({
      status: 'created',
      paymentType: 'subscription',
      amount: 29,
      currency: 'USD',
      clientId: customer.id,
      subscriptionId: null,
      invoiceId: null,
    });
    const row = await t.database.db
      .selectFrom('checkout_sessions')
      .select(['subscription_plan_id', 'trial_days'])
      .where('id', '=', session.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ subscription_plan_id: plan.id, trial_days: 0 });
  });

  it("amount and currency sent with a subscription session must match the plan's, otherwise validation_error", async () => {
    const plan = await newPlan({ amount: 29 });
    const customer = await newCustomer();
    const base = { subscriptionPlanId: plan.id, clientId: customer.id };
    expect((await createSession({ ...base, amount: 29, currency: 'usd' })).status).toBe(201);
    const wrongAmount = await createSession({ ...base, amount: 30 });
    expect(wrongAmount.status).toBe(400);
    expect(wrongAmount.json.error).toMatchObject({ code: 'validation_error', param: 'amount' });
    const wrongCurrency = await createSession({ ...base, currency: 'EUR' });
    expect(wrongCurrency.json.error).toMatchObject({ code: 'validation_error', param: 'currency' });
  });

  it('a hosted subscription session still needs successUrl', async () => {
    const plan = await newPlan();
    const customer = await newCustomer();
    const res = await createSession({ mode: 'hosted', subscriptionPlanId: plan.id, clientId: customer.id });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_missing', param: 'successUrl' });
    const ok = await createSession({
      mode: 'hosted',
      subscriptionPlanId: plan.id,
      clientId: customer.id,
      successUrl: 'https://shop.example.com/welcome?s={CHECKOUT_SESSION_ID}',
    });
    expect(ok.status).toBe(201);
    expect(ok.json.successUrl).toBe(`https://shop.example.com/welcome?s=${ok.json.id}`);
  });

  it('a subscription session refuses captureMethod manual (holds are for oneTime sessions)', async () => {
    const plan = await newPlan();
    const customer = await newCustomer();
    const res = await createSession({ subscriptionPlanId: plan.id, clientId: customer.id, captureMethod: 'manual' });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'validation_error', param: 'captureMethod' });
  });

  it("another merchant's customer, or a draft or archived plan, is refused with validation_error", async () => {
    const plan = await newPlan();
    const theirs = await newCustomer(t.merchantB);
    expect((await createSession({ subscriptionPlanId: plan.id, clientId: theirs.id })).json.error).toMatchObject({
      code: 'validation_error',
      param: 'clientId',
    });
    const customer = await newCustomer();
    const draft = await newPlan();
    await t.call('PATCH', `/v1/plans/${draft.id}`, { key: sk, body: { active: false } });
    const archived = await newPlan();
    await t.call('DELETE', `/v1/plans/${archived.id}`, { key: sk });
    for (const id of [draft.id, archived.id]) {
      expect((await createSession({ subscriptionPlanId: id, clientId: customer.id })).json.error).toMatchObject({
        code: 'validation_error',
        param: 'subscriptionPlanId',
      });
    }
  });

  it('a plan below the 1.00 minimum cannot be charged at once (amount_too_small), but can start on a free trial', async () => {
    const cheap = await newPlan({ amount: 0.5 });
    const customer = await newCustomer();
    const res = await createSession({ subscriptionPlanId: cheap.id, clientId: customer.id });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'amount_too_small', param: 'amount' });
    expect((await createSession({ subscriptionPlanId: cheap.id, clientId: customer.id, trialDays: 7 })).status).toBe(201);
  });
});

describe('free trial: nothing to pay now (rule 7, "Renewal and card on file")', () => {
  it('completes the session at creation: status completed, paymentStatus no_payment_required, amount 0, checkout.session.completed in the same transaction', async () => {
    const { customer, session } = await subscriptionSession({
      trialDays: 14,
      mode: 'hosted',
      successUrl: 'https://shop.example.com/welcome?session=%7BCHECKOUT_SESSION_ID%7D',
    });
    expect(session).toMatchObject({ status: 'completed', paymentStatus: 'no_payment_required', amount: 0, currency: 'USD', paymentType: 'subscription' });
    expect(session.successUrl).toBe(`https://shop.example.com/welcome?session=${session.id}`);
    const got = await retrieve(session.id);
    expect(got.json).toMatchObject({ status: 'completed', clientId: customer.id, refund: { refundable: false, reason: 'no_payment' } });
    expect(got.json.subscriptionId).toEqual(expect.any(Number));
    const rows = await events(session.id);
    expect(rows.map((e) => e.type)).toEqual(['subscription.created', 'checkout.session.completed']);
    expect(rows[1]!.data).toMatchObject({ object: 'checkout_session', status: 'Completed', paymentStatus: 'NoPaymentRequired', amount: 0, paymentId: null });
    expect(await t.database.db.selectFrom('payments').select('id').where('session_id', '=', session.id).execute()).toEqual([]);
  });

  it('creates the subscription trialing until trialEnd, with no card kept (the customer adds one in the portal)', async () => {
    const { plan, customer, session } = await subscriptionSession({ trialDays: 14 });
    const now = clock.now();
    const sub = await getSubscription((await retrieve(session.id)).json.subscriptionId);
    expect(sub.status).toBe(200);
    const trialEnd = new Date(now.getTime() + 14 * DAY).toISOString();
    expect(sub.json).toMatchObject({ success: true, errorCode: null, errorMessage: null });
    expect(sub.json.data).toMatchObject({
      object: 'subscription',
      status: 'trialing',
      clientId: customer.id,
      clientEmail: customer.email,
      planId: plan.id,
      planName: 'Pro monthly',
      amount: 29,
      currency: 'USD',
      interval: 'month',
      intervalCount: 1,
      startDate: now.toISOString(),
      currentPeriodStart: now.toISOString(),
      currentPeriodEnd: trialEnd,
      trialEnd,
      cancelAtPeriodEnd: false,
      cancelAt: null,
      canceledAt: null,
      pausedAt: null,
      hasPaymentMethod: false,
      livemode: false,
      items: [{ planId: plan.id, planName: 'Pro monthly', quantity: 1, amount: 29, currency: 'USD' }],
    });
    const created = (await events(session.id))[0]!.data as any;
    expect(created).toMatchObject({
      object: 'subscription',
      id: sub.json.data.id,
      status: 'Trialing',
      reason: null,
      isLive: false,
      items: [{ planId: plan.id, isMetered: false }],
    });
    expect((await t.call('GET', `/v1/customers/${customer.id}`, { key: sk })).json.data.hasPaymentMethod).toBe(false);
    expect((await t.call('GET', `/v1/subscriptions/${sub.json.data.id}/invoices`, { key: sk })).json.data).toMatchObject({
      object: 'list',
      data: [],
      hasMore: false,
    });
  });

  it('a completed free-trial session cannot be confirmed or cancelled', async () => {
    const { session } = await subscriptionSession({ trialDays: 3 });
    const pm = await t.call('POST', `/v1/checkout-sessions/${session.id}/tokenize`, {
      key: pk,
      clientSecret: session.clientSecret,
      body: { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: CARD_YEAR, cvc: '123' },
    });
    const confirm = await t.call('POST', `/v1/checkout-sessions/${session.id}/confirm`, {
      key: pk,
      clientSecret: session.clientSecret,
      body: { paymentMethodId: pm.json.id },
    });
    expect(confirm.status).toBe(409);
    expect((await t.call('POST', `/v1/checkout-sessions/${session.id}/cancel`, { key: sk })).status).toBe(409);
  });

  it('trials are set per session, not on the plan: two sessions on one plan have their own trial', async () => {
    const plan = await newPlan();
    const a = await subscriptionSession({ subscriptionPlanId: plan.id, trialDays: 7 });
    const b = await subscriptionSession({ subscriptionPlanId: plan.id, trialDays: 30 });
    const c = await subscriptionSession({ subscriptionPlanId: plan.id, trialDays: 0 });
    const trialOf = async (s: any) => (await getSubscription((await retrieve(s.session.id)).json.subscriptionId)).json.data.trialEnd;
    expect(new Date(await trialOf(a)).getTime() - clock.now().getTime()).toBe(7 * DAY);
    expect(new Date(await trialOf(b)).getTime() - clock.now().getTime()).toBe(30 * DAY);
    expect(c.session).toMatchObject({ status: 'open', paymentStatus: 'unpaid', amount: 29 });
  });
});

describe('confirming a subscription session with a card ("Renewal and card on file", "Subscription status")', () => {
  it('charges the first period and starts the subscription active, linked to the session and its first invoice', async () => {
    const { plan, customer, session } = await subscriptionSession();
    const now = clock.now();
    const confirmed = await payByCard(session);
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.json).toMatchObject({ status: 'complete', paymentStatus: 'paid', paymentResult: { status: 'succeeded', amount: 29, currency: 'USD' } });

    const got = (await retrieve(session.id)).json;
    expect(got).toMatchObject({ status: 'completed', paymentType: 'subscription', clientId: customer.id });
    const sub = (await getSubscription(got.subscriptionId)).json.data;
    const monthLater = new Date(now);
    monthLater.setUTCMonth(monthLater.getUTCMonth() + 1);
    expect(sub).toMatchObject({
      id: got.subscriptionId,
      status: 'active',
      planId: plan.id,
      amount: 29,
      trialEnd: null,
      hasPaymentMethod: true,
      startDate: now.toISOString(),
      currentPeriodStart: now.toISOString(),
    });
    if (now.getUTCDate() <= 28) expect(sub.currentPeriodEnd).toBe(monthLater.toISOString());

    const invoices = await t.call('GET', `/v1/subscriptions/${sub.id}/invoices`, { key: sk });
    expect(invoices.status).toBe(200);
    expect(invoices.json.data.data).toEqual([
      {
        id: got.invoiceId,
        object: 'invoice',
        invoiceNumber: expect.stringMatching(/^INV-/),
        status: 'paid',
        amount: 29,
        amountPaid: 29,
        currency: 'USD',
        periodStart: sub.currentPeriodStart,
        periodEnd: sub.currentPeriodEnd,
        dueDate: sub.currentPeriodStart,
      },
    ]);
    const invoice = await t.database.db
      .selectFrom('invoices')
      .select(['line_items', 'subscription_id', 'customer_id'])
      .where('id', '=', got.invoiceId)
      .executeTakeFirstOrThrow();
    expect(invoice).toMatchObject({ subscription_id: sub.id, customer_id: customer.id, line_items: [{ name: 'Pro monthly', quantity: 1 }] });
  });

  it('writes subscription.created then subscription.activated (first payment) with the whole subscription, PascalCase, in the payment transaction', async () => {
    const { session } = await subscriptionSession();
    await payByCard(session);
    const rows = await events(session.id);
    expect(rows.map((e) => e.type)).toEqual(['payment.succeeded', 'subscription.created', 'subscription.activated', 'checkout.session.completed']);
    const [created, activated] = [rows[1]!.data as any, rows[2]!.data as any];
    expect(created).toMatchObject({ object: 'subscription', status: 'Pending', reason: null, cancelAtPeriodEnd: false, cancelAt: null, canceledAt: null });
    expect(created.previousStatus).toBeUndefined();
    expect(activated).toMatchObject({
      object: 'subscription',
      id: created.id,
      status: 'Active',
      previousStatus: 'Pending',
      reason: 'first_payment',
      currentPeriodEnd: created.currentPeriodEnd,
    });
  });

  it('keeps the card for the subscription, and for the customer only when they had no card yet', async () => {
    const plan = await newPlan();
    const customer = await newCustomer();
    expect((await t.call('GET', `/v1/customers/${customer.id}`, { key: sk })).json.data.hasPaymentMethod).toBe(false);
    const first = (await subscriptionSession({ subscriptionPlanId: plan.id, clientId: customer.id })).session;
    await payByCard(first, '4242424242424242');
    expect((await t.call('GET', `/v1/customers/${customer.id}`, { key: sk })).json.data.hasPaymentMethod).toBe(true);
    const second = (await subscriptionSession({ subscriptionPlanId: plan.id, clientId: customer.id })).session;
    await payByCard(second, '5555555555554444');

    const subs = await t.database.db.selectFrom('subscriptions').select(['session_id', 'payment_method_id']).where('customer_id', '=', customer.id).execute();
    const cardOf = (sessionId: string) => subs.find((s) => s.session_id === sessionId)!.payment_method_id!;
    const cards = await t.database.db
      .selectFrom('payment_methods')
      .select(['id', 'last4', 'saved_at', 'is_default'])
      .where('id', 'in', [cardOf(first.id), cardOf(second.id)])
      .execute();
    const byLast4 = Object.fromEntries(cards.map((c) => [c.last4, c]));
    expect(byLast4['4242']).toMatchObject({ id: cardOf(first.id), is_default: true });
    expect(byLast4['4242']!.saved_at).not.toBeNull();
    // The second card pays that subscription's renewals but is not added to the customer's cards.
    expect(byLast4['4444']).toMatchObject({ id: cardOf(second.id), saved_at: null, is_default: false });
    for (const s of [first, second]) expect((await getSubscription((await retrieve(s.id)).json.subscriptionId)).json.data.hasPaymentMethod).toBe(true);
  });

  it('a declined card starts no subscription and the session stays payable', async () => {
    const { session } = await subscriptionSession();
    const declined = await payByCard(session, '4000000000009995');
    expect(declined.status).toBe(400);
    expect((await retrieve(session.id)).json).toMatchObject({ status: 'created', subscriptionId: null });
    expect(await t.database.db.selectFrom('subscriptions').select('id').where('session_id', '=', session.id).execute()).toEqual([]);
    expect((await payByCard(session)).status).toBe(200);
    expect((await retrieve(session.id)).json.subscriptionId).toEqual(expect.any(Number));
  });

  it('a subscription payment is refundable like any card payment, and the subscription stays as it is', async () => {
    const { session } = await subscriptionSession();
    await payByCard(session);
    const refund = await t.call('POST', `/v1/checkout-sessions/${session.id}/refund`, { key: sk, body: {} });
    expect(refund.status).toBe(200);
    expect((await getSubscription((await retrieve(session.id)).json.subscriptionId)).json.data.status).toBe('active');
  });

  it.skipIf(!usingPostgres)('two confirms racing on one subscription session start exactly one subscription', async () => {
    const { session } = await subscriptionSession();
    const tokenize = () =>
      t.call('POST', `/v1/checkout-sessions/${session.id}/tokenize`, {
        key: pk,
        clientSecret: session.clientSecret,
        body: { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: CARD_YEAR, cvc: '123' },
      });
    const [a, b] = [(await tokenize()).json.id, (await tokenize()).json.id];
    const results = await Promise.all(
      [a, b].map((paymentMethodId) =>
        t.call('POST', `/v1/checkout-sessions/${session.id}/confirm`, { key: pk, clientSecret: session.clientSecret, body: { paymentMethodId } }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(await t.database.db.selectFrom('subscriptions').select('id').where('session_id', '=', session.id).execute()).toHaveLength(1);
  });
});

describe('billing periods are exact calendar arithmetic', () => {
  it('a monthly plan paid on 31 January renews on the last day of February; 3 months from 31 January is 30 April; a yearly plan from 29 February ends on 28 February; weeks and days are exact', async () => {
    const saved = clock.now();
    try {
      const periodEnd = async (at: string, spec: PlanSpec) => {
        clock.set(at);
        const { session } = await subscriptionSession({ subscriptionPlanId: (await newPlan(spec)).id });
        expect((await payByCard(session)).status).toBe(200);
        return (await getSubscription((await retrieve(session.id)).json.subscriptionId)).json.data.currentPeriodEnd;
      };
      expect(await periodEnd('2027-01-31T10:15:00Z', { interval: 'month' })).toBe('2027-02-28T10:15:00.000Z');
      expect(await periodEnd('2028-01-31T10:15:00Z', { interval: 'month' })).toBe('2028-02-29T10:15:00.000Z');
      expect(await periodEnd('2027-01-31T10:15:00Z', { interval: 'month', intervalCount: 3 })).toBe('2027-04-30T10:15:00.000Z');
      expect(await periodEnd('2027-11-30T23:59:59Z', { interval: 'month', intervalCount: 3 })).toBe('2028-02-29T23:59:59.000Z');
      expect(await periodEnd('2028-02-29T08:00:00Z', { interval: 'year' })).toBe('2029-02-28T08:00:00.000Z');
      expect(await periodEnd('2027-03-01T08:00:00Z', { interval: 'week', intervalCount: 2 })).toBe('2027-03-15T08:00:00.000Z');
      expect(await periodEnd('2027-03-01T08:00:00Z', { interval: 'day', intervalCount: 45 })).toBe('2027-04-15T08:00:00.000Z');
    } finally {
      clock.set(saved);
    }
  });
});

describe('reading subscriptions: GET /v1/subscriptions/{id} and GET /v1/subscriptions', () => {
  it("another merchant's or the other mode's subscription answers 404 like a missing one, in the envelope", async () => {
    const { session } = await subscriptionSession({ trialDays: 5 });
    const id = (await retrieve(session.id)).json.subscriptionId;
    for (const key of [t.merchantB.keys.test.secret, t.merchantA.keys.live.secret]) {
      const res = await getSubscription(id, key);
      expect(res.status).toBe(404);
      expect(res.json).toMatchObject({ success: false, errorCode: 'resource_not_found', data: { type: 'not_found', param: 'id' } });
      expect((await t.call('GET', `/v1/subscriptions/${id}/invoices`, { key })).status).toBe(404);
    }
    expect((await getSubscription(2147483647)).json.errorCode).toBe('resource_not_found');
    const theirs = await t.call('GET', '/v1/subscriptions', { key: t.merchantB.keys.test.secret });
    expect(theirs.json.data.data.map((s: any) => s.id)).not.toContain(id);
  });

  it('lists newest first with limit and an integer startingAfter, and filters by clientId, status and planId', async () => {
    const merchant = await t.newMerchant('Lister');
    const key = merchant.keys.test.secret;
    const product = await t.call('POST', '/v1/products', { key, body: { name: 'P' } });
    const plans = await Promise.all(
      [1, 2].map(
        async () =>
          (await t.call('POST', '/v1/plans', { key, body: { productId: product.json.id, name: 'Basic', amount: 5, currency: 'USD', interval: 'week' } })).json
            .data,
      ),
    );
    const customer = (await t.call('POST', '/v1/customers', { key, body: { email: 'lister@example.com' } })).json.data;
    const other = (await t.call('POST', '/v1/customers', { key, body: { email: 'other@example.com' } })).json.data;
    const start = async (planId: number, clientId: number, trialDays: number) => {
      const s = await t.call('POST', '/v1/checkout-sessions', {
        key,
        body: { mode: 'embedded', paymentType: 'subscription', subscriptionPlanId: planId, clientId, trialDays },
      });
      if (trialDays === 0) await payByCard(s.json, '4242424242424242', merchant.keys.test.publishable);
      return (await t.call('GET', `/v1/checkout-sessions/${s.json.id}`, { key })).json.subscriptionId as number;
    };
    const ids = [await start(plans[0].id, customer.id, 0), await start(plans[1].id, customer.id, 10), await start(plans[0].id, other.id, 10)];
    const list = (query = '') => t.call('GET', `/v1/subscriptions${query}`, { key });

    const all = await list();
    expect(all.status).toBe(200);
    expect(all.json).toMatchObject({ success: true, data: { object: 'list', hasMore: false } });
    expect(all.json.data.data.map((s: any) => s.id)).toEqual([...ids].reverse());
    const first = (await list('?limit=2')).json.data;
    expect(first.data.map((s: any) => s.id)).toEqual([ids[2], ids[1]]);
    expect(first.hasMore).toBe(true);
    const next = (await list(`?limit=2&startingAfter=${ids[1]}`)).json.data;
    expect(next).toMatchObject({ hasMore: false });
    expect(next.data.map((s: any) => s.id)).toEqual([ids[0]]);

    expect((await list(`?clientId=${customer.id}`)).json.data.data.map((s: any) => s.id)).toEqual([ids[1], ids[0]]);
    expect((await list('?status=active')).json.data.data.map((s: any) => s.id)).toEqual([ids[0]]);
    expect((await list('?status=trialing')).json.data.data.map((s: any) => s.id)).toEqual([ids[2], ids[1]]);
    expect((await list(`?planId=${plans[0].id}`)).json.data.data.map((s: any) => s.id)).toEqual([ids[2], ids[0]]);
    expect((await list(`?planId=${plans[1].id}&clientId=${other.id}`)).json.data.data).toEqual([]);
    expect((await list('?status=sleeping')).status).toBe(400);
    // The live key sees only live-mode subscriptions.
    expect((await t.call('GET', '/v1/subscriptions', { key: merchant.keys.live.secret })).json.data.data).toEqual([]);
  });
});
