// Subscription sessions (creation rule 7, "Subscription", "Renewal and card on file", "Subscription
// status"): creating one, and confirming it with a card. Named after the rules they prove. Free
// trials are in subscription-trials.test.ts, reading subscriptions in subscriptions.test.ts, and
// two confirms racing (PostgreSQL) in subscription-sessions.pg.test.ts.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { useTestServer } from '../support/server.js';
import { subscriptionSessions } from '../support/billing.js';

const clock = new ManualClock(new Date());
const t = useTestServer({ clock, rateLimitScale: 100 });
const kit = subscriptionSessions(t);
const sk = () => t.merchantA.keys.test.secret;

describe('creating a subscription session (rule 7)', () => {
  it('takes the amount and currency from the plan; the session is open and unpaid, and retrieval shows paymentType subscription and the clientId', async () => {
    const { plan, customer, session } = await kit.subscriptionSession();
    expect(session).toMatchObject({
      object: 'checkout_session',
      status: 'open',
      paymentStatus: 'unpaid',
      amount: 29,
      currency: 'USD',
      paymentType: 'subscription',
    });
    const got = await kit.retrieve(session.id);
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
    const plan = await kit.newPlan({ amount: 29 });
    const customer = await kit.newCustomer();
    const base = { subscriptionPlanId: plan.id, clientId: customer.id };
    expect((await kit.create({ ...base, amount: 29, currency: 'usd' })).status).toBe(201);
    const wrongAmount = await kit.create({ ...base, amount: 30 });
    expect(wrongAmount.status).toBe(400);
    expect(wrongAmount.json.error).toMatchObject({ code: 'validation_error', param: 'amount' });
    const wrongCurrency = await kit.create({ ...base, currency: 'EUR' });
    expect(wrongCurrency.json.error).toMatchObject({ code: 'validation_error', param: 'currency' });
  });

  it('a hosted subscription session still needs successUrl', async () => {
    const plan = await kit.newPlan();
    const customer = await kit.newCustomer();
    const res = await kit.create({ mode: 'hosted', subscriptionPlanId: plan.id, clientId: customer.id });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'parameter_missing', param: 'successUrl' });
    const ok = await kit.create({
      mode: 'hosted',
      subscriptionPlanId: plan.id,
      clientId: customer.id,
      successUrl: 'https://shop.example.com/welcome?s={CHECKOUT_SESSION_ID}',
    });
    expect(ok.status).toBe(201);
    expect(ok.json.successUrl).toBe(`https://shop.example.com/welcome?s=${ok.json.id}`);
  });

  it('a subscription session refuses captureMethod manual (holds are for oneTime sessions)', async () => {
    const plan = await kit.newPlan();
    const customer = await kit.newCustomer();
    const res = await kit.create({ subscriptionPlanId: plan.id, clientId: customer.id, captureMethod: 'manual' });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'validation_error', param: 'captureMethod' });
  });

  it("another merchant's customer, or a draft or archived plan, is refused with validation_error", async () => {
    const plan = await kit.newPlan();
    const theirs = await kit.newCustomer(t.merchantB);
    expect((await kit.create({ subscriptionPlanId: plan.id, clientId: theirs.id })).json.error).toMatchObject({
      code: 'validation_error',
      param: 'clientId',
    });
    const customer = await kit.newCustomer();
    const draft = await kit.newPlan();
    await t.call('PATCH', `/v1/plans/${draft.id}`, { key: sk(), body: { active: false } });
    const archived = await kit.newPlan();
    await t.call('DELETE', `/v1/plans/${archived.id}`, { key: sk() });
    for (const id of [draft.id, archived.id]) {
      expect((await kit.create({ subscriptionPlanId: id, clientId: customer.id })).json.error).toMatchObject({
        code: 'validation_error',
        param: 'subscriptionPlanId',
      });
    }
  });

  it('a plan below the 1.00 minimum cannot be charged at once (amount_too_small), but can start on a free trial', async () => {
    const cheap = await kit.newPlan({ amount: 0.5 });
    const customer = await kit.newCustomer();
    const res = await kit.create({ subscriptionPlanId: cheap.id, clientId: customer.id });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'amount_too_small', param: 'amount' });
    expect((await kit.create({ subscriptionPlanId: cheap.id, clientId: customer.id, trialDays: 7 })).status).toBe(201);
  });
});

describe('confirming a subscription session with a card ("Renewal and card on file", "Subscription status")', () => {
  it('charges the first period and starts the subscription active, linked to the session and its first invoice', async () => {
    const { plan, customer, session } = await kit.subscriptionSession();
    const now = clock.now();
    const confirmed = await kit.payByCard(session);
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.json).toMatchObject({ status: 'complete', paymentStatus: 'paid', paymentResult: { status: 'succeeded', amount: 29, currency: 'USD' } });

    const got = (await kit.retrieve(session.id)).json;
    expect(got).toMatchObject({ status: 'completed', paymentType: 'subscription', clientId: customer.id });
    const sub = (await kit.getSubscription(got.subscriptionId)).json.data;
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

    const invoices = await t.call('GET', `/v1/subscriptions/${sub.id}/invoices`, { key: sk() });
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
    const { session } = await kit.subscriptionSession();
    await kit.payByCard(session);
    const rows = await kit.events(session.id);
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
    const plan = await kit.newPlan();
    const customer = await kit.newCustomer();
    expect(customer.hasPaymentMethod).toBe(false);
    expect((await t.call('GET', `/v1/customers/${customer.id}`, { key: sk() })).json.data.hasPaymentMethod).toBe(false);
    const first = (await kit.subscriptionSession({ subscriptionPlanId: plan.id, clientId: customer.id })).session;
    await kit.payByCard(first, '4242424242424242');
    expect((await t.call('GET', `/v1/customers/${customer.id}`, { key: sk() })).json.data.hasPaymentMethod).toBe(true);
    // Created again (the same email): the existing customer, with its card on file.
    const again = await t.call('POST', '/v1/customers', { key: sk(), body: { email: customer.email } });
    expect(again.status).toBe(200);
    expect(again.json.data).toMatchObject({ id: customer.id, hasPaymentMethod: true });
    const second = (await kit.subscriptionSession({ subscriptionPlanId: plan.id, clientId: customer.id })).session;
    await kit.payByCard(second, '5555555555554444');

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
    for (const s of [first, second]) expect((await kit.getSubscription((await kit.retrieve(s.id)).json.subscriptionId)).json.data.hasPaymentMethod).toBe(true);
  });

  it('a declined card starts no subscription and the session stays payable', async () => {
    const { session } = await kit.subscriptionSession();
    const declined = await kit.payByCard(session, '4000000000009995');
    expect(declined.status).toBe(400);
    expect((await kit.retrieve(session.id)).json).toMatchObject({ status: 'created', subscriptionId: null });
    expect(await t.database.db.selectFrom('subscriptions').select('id').where('session_id', '=', session.id).execute()).toEqual([]);
    expect((await kit.payByCard(session)).status).toBe(200);
    expect((await kit.retrieve(session.id)).json.subscriptionId).toEqual(expect.any(Number));
  });

  it('a subscription payment is refundable like any card payment, and the subscription stays as it is', async () => {
    const { session } = await kit.subscriptionSession();
    await kit.payByCard(session);
    const refund = await t.call('POST', `/v1/checkout-sessions/${session.id}/refund`, { key: sk(), body: {} });
    expect(refund.status).toBe(200);
    expect((await kit.getSubscription((await kit.retrieve(session.id)).json.subscriptionId)).json.data.status).toBe('active');
  });
});
