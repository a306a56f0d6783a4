// The customer portal's subscription actions (issue #14, section 2): pause, resume, cancel and the
// plan switch posted from the portal's forms, bound to the session's customer and mode, sending the
// same subscription.* events as the API.
import { describe, expect, it } from 'vitest';
import { deliveredEvents } from '../support/event-contract.js';
import { formTokenOf, getPage, newCustomer, newPlan, newPortal, newSubscription, postForm } from '../support/portal.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer({ rateLimitScale: 100 });

describe('subscription actions', () => {
  /** A merchant of its own (its events alone), a customer with one paid subscription, and the customer's open portal. */
  async function subscribed(amount = 30) {
    const merchant = await t.newMerchant('Actions');
    const plan = await newPlan(t, merchant, { amount });
    const customer = await newCustomer(t, merchant);
    const subscription = await newSubscription(t, merchant, plan.id, customer.id);
    const portal = await newPortal(t, merchant, customer.id);
    const form = formTokenOf((await getPage(t, portal.path)).html);
    const post = (action: string, fields: Record<string, string> = {}, id = subscription.id) =>
      postForm(t, `${portal.path}/subscriptions/${id}/${action}`, { form, ...fields });
    const status = async () => await t.database.db.selectFrom('subscriptions').selectAll().where('id', '=', subscription.id).executeTakeFirstOrThrow();
    const events = async () =>
      (await deliveredEvents(t.database.db, merchant.merchantId, 'subscription.')).map((e) => [e.type, e.data.object.status, e.data.object.reason]);
    return { merchant, plan, customer, subscription, portal, post, status, events };
  }

  it('pause, resume and cancel at period end send the same subscription.* events as the API, with reason customer_portal', async () => {
    const s = await subscribed();
    const paused = await s.post('pause');
    expect(paused.status).toBe(303);
    expect(paused.location).toBe(`${s.portal.path}?done=paused`);
    expect((await s.status()).status).toBe('paused');
    const page = await getPage(t, paused.location!);
    expect(page.html).toContain('Your subscription is paused.');
    expect(page.html).toContain('data-action="resume"');
    expect((await s.post('resume')).location).toBe(`${s.portal.path}?done=resumed`);
    expect((await s.post('cancel', { when: 'period_end' })).location).toBe(`${s.portal.path}?done=cancel-scheduled`);
    const row = await s.status();
    expect(row).toMatchObject({ status: 'active', cancel_at_period_end: true });
    const after = await getPage(t, s.portal.path);
    expect(after.html).toContain('data-notice="cancel-at-period-end"');
    expect(after.html).not.toContain('data-field="next-charge"');
    expect((await s.events()).slice(-3)).toEqual([
      ['subscription.paused', 'Paused', 'customer_portal'],
      ['subscription.resumed', 'Active', 'resumed'],
      ['subscription.cancelled', 'Active', 'customer_portal'],
    ]);
  });

  it('cancel now ends the subscription at once and leaves it no actions', async () => {
    const s = await subscribed();
    expect((await s.post('cancel', { when: 'now' })).location).toBe(`${s.portal.path}?done=canceled`);
    expect((await s.status()).status).toBe('canceled');
    const page = await getPage(t, s.portal.path);
    expect(page.html).toContain('Canceled');
    expect(page.html).not.toContain(`/subscriptions/${s.subscription.id}/pause`);
    expect((await s.events()).at(-1)).toEqual(['subscription.cancelled', 'Canceled', 'customer_portal']);
  });

  it("a refused transition shows the function's own message on the page and sends no event", async () => {
    const s = await subscribed();
    const before = (await s.events()).length;
    const refused = await s.post('resume');
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('only a paused subscription can be resumed');
    expect((await s.events()).length).toBe(before);
    expect((await s.post('cancel', { when: 'sometime' })).status).toBe(404);
  });

  it("another customer's, another merchant's or another mode's subscription id answers the not-found page and changes nothing", async () => {
    const s = await subscribed();
    const neighbour = await newSubscription(t, s.merchant, s.plan.id, (await newCustomer(t, s.merchant)).id);
    const live = await newSubscription(t, s.merchant, s.plan.id, s.customer.id, { livemode: true });
    const foreignPlan = await newPlan(t, t.merchantB);
    const foreign = await newSubscription(t, t.merchantB, foreignPlan.id, (await newCustomer(t, t.merchantB)).id);
    for (const id of [neighbour.id, live.id, foreign.id]) {
      for (const [action, fields] of [
        ['pause', {}],
        ['cancel', { when: 'now' }],
        ['plan', {}],
        ['plan/preview', { planId: String(s.plan.id) }],
      ] as const) {
        const res = await s.post(action, fields, id);
        expect(res.status, `${action} ${id}`).toBe(404);
        expect(res.html).toContain('There is no such item in your account.');
      }
    }
    const rows = await t.database.db.selectFrom('subscriptions').select('status').where('id', 'in', [neighbour.id, live.id, foreign.id]).execute();
    expect(rows.map((r) => r.status)).toEqual(['active', 'active', 'active']);
    expect((await s.post('pause', {}, 0)).status).toBe(404);
  });

  it("switching plan offers the merchant's other active plans in the same currency and interval, previews the proration, then changes it with subscription.updated", async () => {
    const s = await subscribed(30);
    const bigger = await newPlan(t, s.merchant, { amount: 60, name: 'Bigger' });
    const euro = await newPlan(t, s.merchant, { amount: 60, currency: 'EUR', name: 'Euro plan' });
    const yearly = await newPlan(t, s.merchant, { amount: 300, interval: 'year', name: 'Yearly plan' });
    const choices = await s.post('plan');
    expect(choices.status).toBe(200);
    expect(choices.html).toContain(`data-plan="${bigger.id}"`);
    for (const other of [euro, yearly, s.plan]) expect(choices.html).not.toContain(`data-plan="${other.id}"`);
    const preview = await s.post('plan/preview', { planId: String(bigger.id) });
    expect(preview.status).toBe(200);
    const cell = (field: string) => new RegExp(`data-field="${field}">([^<]+)<`).exec(preview.html)?.[1];
    expect(cell('credit')).toMatch(/^−\$\d+\.\d\d$/);
    expect(cell('charge')).toMatch(/^\$\d+\.\d\d$/);
    expect(cell('net')).toMatch(/^\$\d+\.\d\d$/);
    expect((await s.status()).plan_id).toBe(s.plan.id);
    const refused = await s.post('plan/confirm', { planId: String(euro.id) });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain('Choose one of the plans offered');
    const confirmed = await s.post('plan/confirm', { planId: String(bigger.id) });
    expect(confirmed.location).toBe(`${s.portal.path}?done=plan-changed`);
    expect((await s.status()).plan_id).toBe(bigger.id);
    const updated = (await deliveredEvents(t.database.db, s.merchant.merchantId, 'subscription.updated')).at(-1);
    expect(updated.data.object).toMatchObject({ previousPlanId: s.plan.id });
    expect(updated.data.object.proratedAmount).toBeGreaterThan(0);
  });
});
