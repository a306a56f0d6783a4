// Real objects for the fuzz cases to point at, made over HTTP as a merchant would: a customer, a
// product and a plan, checkout sessions (open, paid, a subscription), a payment, an invoice, a
// webhook configuration, a role and a restricted key, and a payment link. Cases use their ids
// some of the time, so requests reach the handlers and the domain, not only the validator.
import type { FuzzOperation } from './contract.js';
import type { FuzzContext, Session } from './request-parts.js';
import type { TestServer } from '../server.js';

const CARD_YEAR = new Date().getUTCFullYear() + 3;

export async function makeFixtures(t: TestServer): Promise<FuzzContext> {
  const sk = t.merchantA.keys.test.secret;
  const pk = t.merchantA.keys.test.publishable;
  const ok = async (method: string, path: string, options: Parameters<TestServer['call']>[2], status = [200, 201]) => {
    const res = await t.call(method, path, options);
    if (!status.includes(res.status)) throw new Error(`fixture ${method} ${path}: ${res.status} ${res.text}`);
    return res.json;
  };
  const session = async (body: Record<string, unknown>, key = sk): Promise<Session> => {
    const s = await ok('POST', '/v1/checkout-sessions', { key, body: { amount: 25, currency: 'USD', mode: 'embedded', paymentType: 'oneTime', ...body } });
    return { id: s.id, clientSecret: s.clientSecret };
  };
  const pay = async (s: Session) => {
    const client = { key: pk, clientSecret: s.clientSecret };
    const pm = await ok('POST', `/v1/checkout-sessions/${s.id}/tokenize`, {
      ...client,
      body: { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: CARD_YEAR, cvc: '123' },
    });
    return ok('POST', `/v1/checkout-sessions/${s.id}/confirm`, { ...client, body: { paymentMethodId: pm.id } });
  };

  const customer = (await ok('POST', '/v1/customers', { key: sk, body: { email: `fuzz-${Date.now()}@example.com`, name: 'Fuzz' } })).data;
  const product = await ok('POST', '/v1/products', { key: sk, body: { name: 'Fuzz product' } });
  const plan = (await ok('POST', '/v1/plans', { key: sk, body: { productId: product.id, name: 'Fuzz plan', amount: 29, currency: 'USD', interval: 'month' } }))
    .data;
  const open = [await session({}), await session({ allowSavedCards: true, clientId: customer.id }), await session({ captureMethod: 'manual' })];
  const paid = await session({});
  const paidResult = await pay(paid);
  const held = open[2]!;
  const heldResult = await pay(await session({ captureMethod: 'manual' })).catch(() => undefined);
  const subscription = await session({
    paymentType: 'subscription',
    subscriptionPlanId: plan.id,
    clientId: customer.id,
    amount: undefined,
    currency: undefined,
  });
  await pay(subscription);
  const subscriptionId = (await ok('GET', `/v1/checkout-sessions/${subscription.id}`, { key: sk })).subscriptionId;
  const invoice = await ok('POST', '/v1/invoices', {
    key: sk,
    body: { customer: { email: 'fuzz@example.com' }, currency: 'USD', lineItems: [{ name: 'Fuzz', quantity: 1, unitAmount: 10 }] },
  });
  const webhook = await ok('POST', '/v1/WebhookConfiguration', {
    key: sk,
    body: { sandboxUrl: 'https://fuzz.invalid/hook', subscribedEvents: ['checkout.session.*'] },
  });
  const otherSession = await session({}, t.merchantB.keys.test.secret);
  const role = await ok('POST', '/v1/role', { apiKey: sk, body: { name: `Fuzz ${Date.now()}`, scopes: ['user.read'] } });
  const restricted = await ok('POST', `/v1/role/${role.id}/keys`, { apiKey: sk, body: {} });
  const link = await ok('POST', '/v1/PaymentLink', { apiKey: sk, body: { name: 'Fuzz link', currencyCode: 'USD', unitPrice: '10.00' } });

  const payments = [paidResult?.paymentResult?.id, heldResult?.paymentResult?.id].filter(Boolean) as string[];
  const sessions = [...open, paid, subscription, held];
  const byResource: [RegExp, unknown[]][] = [
    [/^\/v1\/(test-helpers\/)?checkout-sessions\//, sessions.map((s) => s.id)],
    [/^\/v1\/customers\//, [customer.id]],
    [/^\/v1\/products\//, [product.id]],
    [/^\/v1\/plans\//, [plan.id]],
    [/^\/v1\/subscriptions\//, [subscriptionId].filter((v) => v != null)],
    [/^\/v1\/invoices\//, [invoice.id]],
    [/^\/v1\/WebhookConfiguration\//, [webhook.id]],
  ];
  const known = {
    productId: [product.id],
    customerId: [customer.id],
    clientId: [customer.id],
    subscriptionPlanId: [plan.id],
    planId: [plan.id],
    invoiceId: [invoice.id],
    paymentId: payments,
    cardNumber: ['4242424242424242', '4000000000003220', '4000000000000002'],
  };
  return {
    keys: {
      secret: sk,
      publishable: pk,
      liveSecret: t.merchantA.keys.live.secret,
      otherSecret: t.merchantB.keys.test.secret,
      otherPublishable: t.merchantB.keys.test.publishable,
    },
    sessions,
    otherSession,
    known,
    pathIds(op: FuzzOperation, param: string): string[] {
      // Commerce: a role and its restricted key.
      if (op.api === 'commerce' && op.template.startsWith('/v1/role/'))
        return param === 'id' ? [String(role.id)] : param === 'keyId' ? [String(restricted.id)] : [];
      if (op.api === 'commerce' && op.template.startsWith('/v1/PaymentLink'))
        return param === 'id' ? [String(link.id)] : param === 'identifier' ? [link.identifier] : [];
      if (op.api !== 'checkout') return [];
      if (param === 'paymentId') return payments.map(String);
      if (param !== 'id') return [];
      const found = byResource.find(([re]) => re.test(op.template));
      return (found?.[1] ?? []).map(String);
    },
  };
}
