// Free trials of subscription sessions (creation rule 7, "Renewal and card on file"): nothing to pay
// now, so the session completes at creation and the subscription starts trialing, with no card kept.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { useTestServer } from '../support/server.js';
import { CARD_YEAR, subscriptionSessions } from '../support/billing.js';

const clock = new ManualClock(new Date());
const t = useTestServer({ clock, rateLimitScale: 100 });
const kit = subscriptionSessions(t);
const sk = () => t.merchantA.keys.test.secret;
const pk = () => t.merchantA.keys.test.publishable;
const DAY = 86_400_000;

describe('free trial: nothing to pay now (rule 7, "Renewal and card on file")', () => {
  it('completes the session at creation: status completed, paymentStatus no_payment_required, amount 0, checkout.session.completed in the same transaction', async () => {
    const { customer, session } = await kit.subscriptionSession({
      trialDays: 14,
      mode: 'hosted',
      successUrl: 'https://shop.example.com/welcome?session=%7BCHECKOUT_SESSION_ID%7D',
    });
    expect(session).toMatchObject({ status: 'completed', paymentStatus: 'no_payment_required', amount: 0, currency: 'USD', paymentType: 'subscription' });
    expect(session.successUrl).toBe(`https://shop.example.com/welcome?session=${session.id}`);
    const got = await kit.retrieve(session.id);
    expect(got.json).toMatchObject({ status: 'completed', clientId: customer.id, refund: { refundable: false, reason: 'no_payment' } });
    expect(got.json.subscriptionId).toEqual(expect.any(Number));
    const rows = await kit.events(session.id);
    expect(rows.map((e) => e.type)).toEqual(['subscription.created', 'checkout.session.completed']);
    expect(rows[1]!.data).toMatchObject({ object: 'checkout_session', status: 'Completed', paymentStatus: 'NoPaymentRequired', amount: 0, paymentId: null });
    expect(await t.database.db.selectFrom('payments').select('id').where('session_id', '=', session.id).execute()).toEqual([]);
  });

  it('creates the subscription trialing until trialEnd, with no card kept (the customer adds one in the portal)', async () => {
    const { plan, customer, session } = await kit.subscriptionSession({ trialDays: 14 });
    const now = clock.now();
    const sub = await kit.getSubscription((await kit.retrieve(session.id)).json.subscriptionId);
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
    const created = (await kit.events(session.id))[0]!.data as any;
    expect(created).toMatchObject({
      object: 'subscription',
      id: sub.json.data.id,
      status: 'Trialing',
      reason: null,
      isLive: false,
      items: [{ planId: plan.id, isMetered: false }],
    });
    expect((await t.call('GET', `/v1/customers/${customer.id}`, { key: sk() })).json.data.hasPaymentMethod).toBe(false);
    expect((await t.call('GET', `/v1/subscriptions/${sub.json.data.id}/invoices`, { key: sk() })).json.data).toMatchObject({
      object: 'list',
      data: [],
      hasMore: false,
    });
  });

  it('a completed free-trial session cannot be confirmed or cancelled', async () => {
    const { session } = await kit.subscriptionSession({ trialDays: 3 });
    const pm = await t.call('POST', `/v1/checkout-sessions/${session.id}/tokenize`, {
      key: pk(),
      clientSecret: session.clientSecret,
      body: { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: CARD_YEAR, cvc: '123' },
    });
    const confirm = await t.call('POST', `/v1/checkout-sessions/${session.id}/confirm`, {
      key: pk(),
      clientSecret: session.clientSecret,
      body: { paymentMethodId: pm.json.id },
    });
    expect(confirm.status).toBe(409);
    expect((await t.call('POST', `/v1/checkout-sessions/${session.id}/cancel`, { key: sk() })).status).toBe(409);
  });

  it('trials are set per session, not on the plan: two sessions on one plan have their own trial', async () => {
    const plan = await kit.newPlan();
    const a = await kit.subscriptionSession({ subscriptionPlanId: plan.id, trialDays: 7 });
    const b = await kit.subscriptionSession({ subscriptionPlanId: plan.id, trialDays: 30 });
    const c = await kit.subscriptionSession({ subscriptionPlanId: plan.id, trialDays: 0 });
    const trialOf = async (s: any) => (await kit.getSubscription((await kit.retrieve(s.session.id)).json.subscriptionId)).json.data.trialEnd;
    expect(new Date(await trialOf(a)).getTime() - clock.now().getTime()).toBe(7 * DAY);
    expect(new Date(await trialOf(b)).getTime() - clock.now().getTime()).toBe(30 * DAY);
    expect(c.session).toMatchObject({ status: 'open', paymentStatus: 'unpaid', amount: 29 });
  });
});
