// Subscription payment links (issue 16 §1): the public view offers the product's active plans;
// CreateSubscription starts the payer's subscription pending its first invoice, which pays through
// payinvoice, activates it and keeps the card for the renewals (charged on the sandbox clock).
import { describe, expect, it } from 'vitest';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { commerceCard } from '../support/commerce.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();
const VISA = commerceCard();
const payer = { email: 'sub@example.com', firstName: 'Ana', lastName: 'Lopez' };

/** A product with a monthly plan (19.99 USD), an archived plan, and a subscription link offering the product. */
async function subscriptionLink(m: MerchantCredentials, extra: Record<string, unknown> = {}) {
  const key = m.keys.test.secret;
  const product = await t.call('POST', '/v1/products', { key, body: { name: 'Cloud' } });
  expect(product.status, product.text).toBe(201);
  const plan = await t.call('POST', '/v1/plans', {
    key,
    body: { productId: product.json.id, name: 'Pro monthly', amount: 19.99, currency: 'USD', interval: 'month' },
  });
  expect(plan.status, plan.text).toBe(201);
  const gone = await t.call('POST', '/v1/plans', { key, body: { productId: product.json.id, name: 'Old', amount: 5, currency: 'USD', interval: 'month' } });
  expect((await t.call('DELETE', `/v1/plans/${gone.json.data.id}`, { key })).status).toBe(200);
  const link = await t.call('POST', '/v1/PaymentLink', {
    apiKey: key,
    body: { name: 'Cloud Pro', currencyCode: 'USD', isSubscriptionBased: true, subscriptionProductId: Number(product.json.id), ...extra },
  });
  expect(link.status, link.text).toBe(201);
  return { link: link.json, planId: plan.json.data.id as number, archivedPlanId: gone.json.data.id as number };
}
const subscribe = (identifier: string, body: Record<string, unknown>) =>
  t.call('POST', `/v1/PaymentLink/CreateSubscription(identifier='${identifier}')`, { body });

describe('subscription links', () => {
  it('the public view offers the active plans of the product; the link is Subscription, Subscribe, without a price', async () => {
    const m = await t.newMerchant('Sub view');
    const { link, planId } = await subscriptionLink(m);
    expect(link).toMatchObject({ linkType: 'Subscription', isSubscriptionBased: true, callToActionText: 'Subscribe', unitPrice: null });
    const view = await t.call('GET', `/v1/PaymentLink/GetByIdentifier(identifier='${link.identifier}')`);
    expect(view.json.plans).toMatchObject([
      { id: planId, name: 'Pro monthly', amount: '19.99', currency: 'USD', timeUnit: 'Month', timeInterval: 1, status: 'Active', productName: 'Cloud' },
    ]);
  });

  it('CreateSubscription starts it pending with its first invoice; paying the invoice activates it, keeps the card and counts on the link', async () => {
    const m = await t.newMerchant('Sub pay');
    const key = m.keys.test.secret;
    const { link, planId } = await subscriptionLink(m);
    const res = await subscribe(link.identifier, { ...payer, planId });
    expect(res.status, res.text).toBe(201);
    expect(res.json.subscription).toMatchObject({
      status: 'Pending',
      planId,
      planName: 'Pro monthly',
      amount: 19.99,
      currency: 'USD',
      timeUnit: 'Month',
      clientEmail: 'sub@example.com',
    });
    expect(res.json.invoice).toMatchObject({ status: 'Pending', totalCost: 19.99, currencyCode: 'USD' });
    expect(res.json.billing).toMatchObject({
      planId,
      amount: '19.99',
      amountDueNow: '19.99',
      subscriptionBillingType: 'Recurring',
      invoicePageUrl: expect.stringMatching(new RegExp(`/invoice/${res.json.invoice.identifier}$`)),
    });
    const paid = await t.call('POST', '/api/payment/payinvoice', { apiKey: key, body: { invoiceId: res.json.invoice.id, paymentOptionId: 1, card: VISA } });
    expect(paid.json, paid.text).toMatchObject({ isSuccess: true });
    const sub = await t.call('GET', `/v1/subscriptions/${res.json.subscription.id}`, { key });
    expect(sub.json.data ?? sub.json).toMatchObject({ status: 'active' });
    const customer = await t.call('GET', `/v1/customers/${res.json.subscription.clientId}`, { key });
    expect(customer.json.data).toMatchObject({ email: 'sub@example.com', hasPaymentMethod: true });
    const listed = (await t.call('GET', `/v1/PaymentLink?$filter=id eq ${link.id}`, { apiKey: key })).json.value[0];
    expect(listed).toMatchObject({ invoiceCount: 1, completedPaymentCount: 1, totalAmountCollected: '19.99' });
    // The renewal a month later is charged to the kept card.
    expect((await t.call('POST', '/v1/test-helpers/clock/advance', { key, body: { seconds: 32 * 86_400 } })).status).toBe(200);
    const invoices = await t.call('GET', `/v1/subscriptions/${res.json.subscription.id}/invoices`, { key });
    expect((invoices.json.data.data ?? invoices.json.data).map((i: { status: string }) => i.status)).toEqual(['paid', 'paid']);
  });

  it('refuses a plan the link does not offer, a link that is not subscription-based, and an inactive link', async () => {
    const m = await t.newMerchant('Sub refuse');
    const { link, archivedPlanId } = await subscriptionLink(m);
    expect((await subscribe(link.identifier, { ...payer, planId: archivedPlanId })).json.error).toMatchObject({ code: 'validation_error', param: 'planId' });
    const other = await subscriptionLink(t.merchantB);
    expect((await subscribe(link.identifier, { ...payer, planId: other.planId })).json.error).toMatchObject({ param: 'planId' });
    const plain = await t.call('POST', '/v1/PaymentLink', { apiKey: m.keys.test.secret, body: { name: 'Plain', currencyCode: 'USD', unitPrice: '1' } });
    expect((await subscribe(plain.json.identifier, { ...payer, planId: other.planId })).json.error).toMatchObject({ code: 'validation_error' });
    await t.call('POST', `/v1/PaymentLink/${link.id}/Deactivate`, { apiKey: m.keys.test.secret });
    expect((await subscribe(link.identifier, { ...payer, planId: other.planId })).status).toBe(409);
  });

  it('a product a link offers cannot be deleted (409); the link keeps offering it', async () => {
    const m = await t.newMerchant('Sub product');
    const { link } = await subscriptionLink(m);
    const res = await t.call('DELETE', `/v1/SubscriptionProduct/${link.subscriptionProductId}`, { apiKey: m.keys.test.secret });
    expect([res.status, res.json.error?.code]).toEqual([409, 'invalid_state']);
    expect((await t.call('GET', `/v1/PaymentLink/GetByIdentifier(identifier='${link.identifier}')`)).json.plans).toHaveLength(1);
  });

  it("a Usage plan is not offered; a OneTime plan's subscription covers one period", async () => {
    const m = await t.newMerchant('Sub types');
    const key = m.keys.test.secret;
    const product = await t.call('POST', '/v1/SubscriptionProduct', { apiKey: key, body: { name: 'Metered' } });
    expect(product.status, product.text).toBe(201);
    const plan = (body: Record<string, unknown>) =>
      t.call('POST', '/v1/SubscriptionPlan', {
        apiKey: key,
        body: { productId: product.json.id, currency: 'USD', timeUnit: 'Month', timeInterval: 1, ...body },
      });
    const usage = await plan({ name: 'Per call', amount: '0.10', subscriptionBillingType: 'Usage' });
    const once = await plan({ name: 'Once', amount: '30.00', subscriptionBillingType: 'OneTime' });
    expect([usage.status, once.status], usage.text + once.text).toEqual([201, 201]);
    const link = await t.call('POST', '/v1/PaymentLink', {
      apiKey: key,
      body: { name: 'Metered', currencyCode: 'USD', isSubscriptionBased: true, subscriptionProductId: product.json.id },
    });
    const view = await t.call('GET', `/v1/PaymentLink/GetByIdentifier(identifier='${link.json.identifier}')`);
    expect(view.json.plans.map((p: { id: number }) => p.id)).toEqual([once.json.id]);
    expect((await subscribe(link.json.identifier, { ...payer, planId: usage.json.id })).json.error).toMatchObject({ param: 'planId' });
    const started = await subscribe(link.json.identifier, { ...payer, planId: once.json.id });
    expect(started.json.billing).toMatchObject({ subscriptionBillingType: 'OneTime', nextBillingDate: null, amountDueNow: '30.00' });
    await t.call('POST', '/api/payment/payinvoice', { apiKey: key, body: { invoiceId: started.json.invoice.id, paymentOptionId: 1, card: VISA } });
    const sub = (await t.call('GET', `/v1/subscription?$filter=id eq ${started.json.subscription.id}`, { apiKey: key })).json.value[0];
    expect(sub, JSON.stringify(sub)).toMatchObject({ status: 'Active', cancelAtPeriodEnd: true });
  });
});
