// The card on file in the customer portal (issue #14, section 2): a card added or replaced on the
// portal's page becomes the customer's card and their subscriptions' card; 3-D Secure, bad cards
// and forged forms keep nothing.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/server.js';
import { cardFields, formTokenOf, getPage, newCustomer, newPlan, newPortal, newSubscription, postForm } from '../support/portal.js';

const t = useTestServer({ rateLimitScale: 100 });

describe('the card on file', () => {
  it("a card saved in the portal becomes the customer's card and the card of their subscriptions that are not canceled; nothing of the number is stored", async () => {
    const plan = await newPlan(t, t.merchantA);
    const customer = await newCustomer(t, t.merchantA);
    const trial = await newSubscription(t, t.merchantA, plan.id, customer.id, { trialDays: 7 });
    expect(trial.paymentMethodId ?? null).toBeNull();
    const { path } = await newPortal(t, t.merchantA, customer.id);
    const page = await getPage(t, path);
    expect(page.html).toContain('No card on file.');
    const saved = await postForm(t, `${path}/card`, { form: formTokenOf(page.html), ...cardFields('4242 4242 4242 4242') });
    expect(saved.status).toBe(303);
    expect(saved.location).toBe(`${path}?done=card-saved`);
    const after = await getPage(t, saved.location!);
    expect(after.html).toContain('Your card is saved.');
    expect(after.html).toMatch(/Visa<\/strong> •••• 4242/);
    const card = await t.database.db.selectFrom('payment_methods').selectAll().where('customer_id', '=', customer.id).executeTakeFirstOrThrow();
    expect(card).toMatchObject({ last4: '4242', brand: 'visa', is_default: true, session_id: null });
    expect(JSON.stringify(card)).not.toContain('4242424242424242');
    const sub = await t.database.db.selectFrom('subscriptions').select('payment_method_id').where('id', '=', trial.id).executeTakeFirstOrThrow();
    expect(sub.payment_method_id).toBe(card.id);
    const got = await t.call('GET', `/v1/customers/${customer.id}`, { key: t.merchantA.keys.test.secret });
    expect(got.json.data.hasPaymentMethod).toBe(true);
  });

  it('a trialing subscription that got its card in the portal is charged to it when the trial ends', async () => {
    const merchant = await t.newMerchant('Trial');
    const plan = await newPlan(t, merchant, { amount: 15 });
    const customer = await newCustomer(t, merchant);
    const trial = await newSubscription(t, merchant, plan.id, customer.id, { trialDays: 3 });
    const { path } = await newPortal(t, merchant, customer.id);
    const page = await getPage(t, path);
    expect(page.html).toContain('data-notice="add-card"');
    expect((await postForm(t, `${path}/card`, { form: formTokenOf(page.html), ...cardFields('4242424242424242') })).status).toBe(303);
    const advanced = await t.call('POST', '/v1/test-helpers/clock/advance', { key: merchant.keys.test.secret, body: { seconds: 3 * 86_400 + 60 } });
    expect(advanced.status, advanced.text).toBe(200);
    const got = await t.call('GET', `/v1/subscriptions/${trial.id}`, { key: merchant.keys.test.secret });
    expect(got.json.data.status).toBe('active');
    const card = await t.database.db.selectFrom('payment_methods').select('id').where('customer_id', '=', customer.id).executeTakeFirstOrThrow();
    const payments = await t.database.db
      .selectFrom('payments')
      .select(['status', 'amount', 'payment_method_id'])
      .where('merchant_id', '=', merchant.merchantId)
      .execute();
    expect(payments).toEqual([{ status: 'succeeded', amount: expect.stringMatching(/^15(\.0+)?$/), payment_method_id: card.id }]);
  });

  it('replacing the card takes the previous one off file and points the subscriptions at the new one', async () => {
    const plan = await newPlan(t, t.merchantA);
    const customer = await newCustomer(t, t.merchantA);
    const sub = await newSubscription(t, t.merchantA, plan.id, customer.id);
    const { path } = await newPortal(t, t.merchantA, customer.id);
    const page = await getPage(t, path);
    const replaced = await postForm(t, `${path}/card`, { form: formTokenOf(page.html), ...cardFields('4242424242424242') });
    expect(replaced.status).toBe(303);
    const cards = await t.database.db
      .selectFrom('payment_methods')
      .select(['id', 'last4', 'is_default', 'saved_at'])
      .where('customer_id', '=', customer.id)
      .where('saved_at', 'is not', null)
      .execute();
    expect(cards.map((c) => [c.last4, c.is_default])).toEqual([['4242', true]]);
    const row = await t.database.db.selectFrom('subscriptions').select('payment_method_id').where('id', '=', sub.id).executeTakeFirstOrThrow();
    expect(row.payment_method_id).toBe(cards[0]!.id);
  });

  it("the 3-D Secure card is kept only after the customer completes the issuer's page; failing it keeps nothing", async () => {
    const customer = await newCustomer(t, t.merchantA);
    const { path } = await newPortal(t, t.merchantA, customer.id);
    const page = await getPage(t, path);
    const failing = await postForm(t, `${path}/card`, { form: formTokenOf(page.html), ...cardFields('4000000000003220') });
    expect(failing.status).toBe(303);
    expect(failing.location).toMatch(new RegExp(`^${path}/card/3ds/3ds_[A-Za-z0-9]{40}$`));
    const issuer = await getPage(t, failing.location!);
    expect(issuer.status).toBe(200);
    expect(issuer.html).toContain('Confirm your card');
    expect(issuer.html).toContain('3220');
    const issuerToken = /name="token" value="([^"]+)"/.exec(issuer.html)![1]!;
    expect(await t.database.db.selectFrom('payment_methods').select('id').where('customer_id', '=', customer.id).execute()).toEqual([]);
    const failed = await postForm(t, failing.location!, { token: issuerToken, answer: 'fail' });
    expect(failed.location).toBe(`${path}?done=card-not-authenticated`);
    expect(await t.database.db.selectFrom('payment_methods').select('id').where('customer_id', '=', customer.id).execute()).toEqual([]);
    expect((await postForm(t, failing.location!, { token: issuerToken, answer: 'complete' })).status).toBe(410);

    const second = await postForm(t, `${path}/card`, { form: formTokenOf(page.html), ...cardFields('4000000000003220') });
    const secondPage = await getPage(t, second.location!);
    const wrong = await postForm(t, second.location!, { token: 'not-the-token', answer: 'complete' });
    expect(wrong.status).toBe(400);
    const done = await postForm(t, second.location!, { token: /name="token" value="([^"]+)"/.exec(secondPage.html)![1]!, answer: 'complete' });
    expect(done.location).toBe(`${path}?done=card-saved`);
    const kept = await t.database.db
      .selectFrom('payment_methods')
      .select(['last4', 'is_default'])
      .where('customer_id', '=', customer.id)
      .where('saved_at', 'is not', null)
      .execute();
    expect(kept).toEqual([{ last4: '3220', is_default: true }]);
  });

  it('a bad, declined or failing card shows its message on the page and keeps nothing', async () => {
    const customer = await newCustomer(t, t.merchantA);
    const { path } = await newPortal(t, t.merchantA, customer.id);
    const page = await getPage(t, path);
    const bad = await postForm(t, `${path}/card`, { form: formTokenOf(page.html), ...cardFields('4242424242424241') });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain('The card number is not valid.');
    const expired = await postForm(t, `${path}/card`, { form: formTokenOf(page.html), ...cardFields('4242424242424242'), expiryYear: '2001' });
    expect(expired.status).toBe(400);
    expect(expired.html).toContain('The card has expired.');
    const declined = await postForm(t, `${path}/card`, { form: formTokenOf(page.html), ...cardFields('4000000000009995') });
    expect(declined.status).toBe(400);
    expect(declined.html).toContain('The card was declined (insufficient funds).');
    const processing = await postForm(t, `${path}/card`, { form: formTokenOf(page.html), ...cardFields('4000000000000119') });
    expect(processing.status).toBe(502);
    expect(processing.html).toContain('processing error');
    expect(await t.database.db.selectFrom('payment_methods').select('id').where('customer_id', '=', customer.id).execute()).toEqual([]);
  });

  it("a form without the page's form token, or posted from another site, is refused with 403 and changes nothing", async () => {
    const customer = await newCustomer(t, t.merchantA);
    const { path } = await newPortal(t, t.merchantA, customer.id);
    const page = await getPage(t, path);
    const noToken = await postForm(t, `${path}/card`, cardFields('4242424242424242'));
    expect(noToken.status).toBe(403);
    const crossSite = await postForm(
      t,
      `${path}/card`,
      { form: formTokenOf(page.html), ...cardFields('4242424242424242') },
      { headers: { 'sec-fetch-site': 'cross-site' } },
    );
    expect(crossSite.status).toBe(403);
    expect(await t.database.db.selectFrom('payment_methods').select('id').where('customer_id', '=', customer.id).execute()).toEqual([]);
  });
});
