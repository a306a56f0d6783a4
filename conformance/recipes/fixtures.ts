// The objects the recipes create first, through the API of the run's merchant (or another's, for
// the 404 checks), with names carrying the run id; and the recipe type itself.
import type { ConformanceContext, RequestSpec } from '../types.js';
import type { OperationInfo } from '../validator.js';

export interface Recipe {
  /** The request that should succeed (path filled in, body and query). */
  success(ctx: ConformanceContext, info: OperationInfo): Promise<Omit<RequestSpec, 'method'> & { path: string }>;
  /** Statuses that count as the success path (default: the documented 2xx). */
  expect?: number[];
  /** The same request for an object another merchant owns (for the 404 check). */
  foreign?(ctx: ConformanceContext, info: OperationInfo, otherKey: string): Promise<Omit<RequestSpec, 'method'> & { path: string }>;
}

export async function created<T = any>(ctx: ConformanceContext, operationId: string, path: string, body: unknown, key: string): Promise<T> {
  const res = await ctx.request('checkout', operationId, { method: 'POST', path, body, key });
  if (res.status >= 300) throw new Error(`setup: ${operationId} answered ${res.status}: ${res.text.slice(0, 200)}`);
  return res.json;
}

/** A product of the merchant behind `key`. */
export async function fixtureProduct(ctx: ConformanceContext, key = ctx.options.secretKey): Promise<{ id: number }> {
  return created(ctx, 'createProduct', '/v1/products', { name: `Conformance product ${ctx.runId}`, description: 'Created by the conformance suite' }, key);
}

/** A plan (archived at the end of the run). */
export async function fixturePlan(ctx: ConformanceContext, key = ctx.options.secretKey): Promise<{ id: number }> {
  const product = await fixtureProduct(ctx, key);
  const plan = (
    await created<{ data: { id: number } }>(
      ctx,
      'createPlan',
      '/v1/plans',
      { productId: product.id, name: `Conformance ${ctx.runId}`, amount: 9.99, currency: 'USD', interval: 'month' },
      key,
    )
  ).data;
  ctx.onCleanup(() => ctx.request('checkout', 'archivePlan', { method: 'DELETE', path: `/v1/plans/${plan.id}`, key }));
  return plan;
}

/** A customer of the merchant behind `key`, unique to this run. */
export async function fixtureCustomer(ctx: ConformanceContext, key = ctx.options.secretKey): Promise<{ id: number }> {
  const tag = `${ctx.runId}-${Math.random().toString(36).slice(2, 8)}`;
  return (
    await created<{ data: { id: number } }>(
      ctx,
      'createCustomer',
      '/v1/customers',
      { email: `conformance+${tag}@example.com`, name: 'Conformance Customer', externalId: `conf-${tag}` },
      key,
    )
  ).data;
}

/** An embedded one-time checkout session of the merchant behind `key`. */
export async function fixtureSession(ctx: ConformanceContext, key = ctx.options.secretKey): Promise<{ id: string; clientSecret: string }> {
  return created(
    ctx,
    'createCheckoutSession',
    '/v1/checkout-sessions',
    { amount: 12.5, currency: 'USD', mode: 'embedded', paymentType: 'oneTime', metadata: { conformanceRun: ctx.runId } },
    key,
  );
}

/** An event of the merchant behind `key` (a session cancelled for it): its id. */
export async function fixtureEvent(ctx: ConformanceContext, key = ctx.options.secretKey): Promise<string> {
  const s = await fixtureSession(ctx, key);
  await ctx.request('checkout', 'cancelCheckoutSession', { method: 'POST', path: `/v1/checkout-sessions/${s.id}/cancel`, key });
  const events = await ctx.request('checkout', 'listEvents', { method: 'GET', path: '/v1/events', query: { limit: 1 }, key });
  const id = events.json?.data?.[0]?.id;
  if (typeof id !== 'string') throw new Error(`setup: listEvents answered ${events.status} without an event: ${events.text.slice(0, 200)}`);
  return id;
}

/** A subscription of the merchant behind `key`, started on a free trial (no card needed): its id. */
export async function fixtureSubscription(ctx: ConformanceContext, key = ctx.options.secretKey): Promise<{ id: number }> {
  const plan = await fixturePlan(ctx, key);
  const customer = await fixtureCustomer(ctx, key);
  const s = await created<{ id: string }>(
    ctx,
    'createCheckoutSession',
    '/v1/checkout-sessions',
    {
      mode: 'embedded',
      paymentType: 'subscription',
      subscriptionPlanId: plan.id,
      clientId: customer.id,
      trialDays: 7,
      metadata: { conformanceRun: ctx.runId },
    },
    key,
  );
  const got = await ctx.request('checkout', 'retrieveCheckoutSession', { method: 'GET', path: `/v1/checkout-sessions/${s.id}`, key });
  if (typeof got.json?.subscriptionId === 'number') return { id: got.json.subscriptionId };
  // The mock answers its one-time example for any session; any id reaches its subscription examples.
  if (ctx.options.target === 'mock') return { id: 7001 };
  throw new Error(`setup: the free-trial session has no subscriptionId: ${got.text.slice(0, 200)}`);
}

/** A free-trial subscription of the merchant behind `key`, paused: its id. */
export async function pausedSubscription(ctx: ConformanceContext, key = ctx.options.secretKey): Promise<{ id: number }> {
  const s = await fixtureSubscription(ctx, key);
  const res = await ctx.request('checkout', 'pauseSubscription', { method: 'POST', path: `/v1/subscriptions/${s.id}/pause`, key });
  if (res.status >= 300) throw new Error(`setup: pauseSubscription answered ${res.status}: ${res.text.slice(0, 200)}`);
  return s;
}

/** The publishable key, or a pending result when the run has none. */
export function publishable(ctx: ConformanceContext): string {
  if (!ctx.options.publishableKey) throw new Error('PENDING: needs --publishable-key');
  return ctx.options.publishableKey;
}

export const TEST_CARD = { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 3, cvc: '123' };

/** A confirmed session (a paid card payment, or a hold with captureMethod manual); needs the publishable key. */
export async function fixturePaid(ctx: ConformanceContext, captureMethod: 'automatic' | 'manual'): Promise<{ sessionId: string; paymentId: number }> {
  const key = publishable(ctx);
  const s = await created<{ id: string; clientSecret: string }>(
    ctx,
    'createCheckoutSession',
    '/v1/checkout-sessions',
    { amount: 30, currency: 'USD', mode: 'embedded', paymentType: 'oneTime', captureMethod, metadata: { conformanceRun: ctx.runId } },
    ctx.options.secretKey,
  );
  const pm = await ctx.request('checkout', 'tokenizeCard', {
    method: 'POST',
    path: `/v1/checkout-sessions/${s.id}/tokenize`,
    key,
    clientSecret: s.clientSecret,
    body: TEST_CARD,
  });
  const confirmed = await ctx.request('checkout', 'confirmCheckoutSession', {
    method: 'POST',
    path: `/v1/checkout-sessions/${s.id}/confirm`,
    key,
    clientSecret: s.clientSecret,
    body: { paymentMethodId: pm.json?.id },
  });
  if (confirmed.status !== 200) throw new Error(`setup: confirm answered ${confirmed.status}: ${confirmed.text.slice(0, 200)}`);
  return { sessionId: s.id, paymentId: confirmed.json.paymentResult.id };
}
export const fixtureHold = async (ctx: ConformanceContext) => (await fixturePaid(ctx, 'manual')).paymentId;
/** An open dispute on a paid card payment (the dispute test helper). */
export const fixtureDispute = async (ctx: ConformanceContext): Promise<string> =>
  (
    await created<{ id: string }>(
      ctx,
      'openTestDispute',
      `/v1/test-helpers/payments/${(await fixturePaid(ctx, 'automatic')).paymentId}/dispute`,
      {},
      ctx.options.secretKey,
    )
  ).id;

/** The path of a payout that arrived, on the run's sandbox merchant, and that merchant's key. */
export async function fixtureArrivedPayout(ctx: ConformanceContext): Promise<{ path: string; key: string }> {
  const sandbox = await ctx.sandboxMerchant();
  // Without a sandbox merchant (a mock), the contract's example id.
  if (!('ctx' in sandbox)) return { path: '/v1/test-helpers/payouts/po_5Hd8Kq2Wm7Zx3Nc9/fail', key: ctx.options.secretKey };
  const s = sandbox.ctx;
  const key = s.options.secretKey;
  await created(s, 'settleTestPayment', `/v1/test-helpers/payments/${(await fixturePaid(s, 'automatic')).paymentId}/settle`, undefined, key);
  await created(s, 'advanceTestClock', '/v1/test-helpers/clock/advance', { seconds: 2 * 86_400 + 60 }, key);
  const events = await s.request('checkout', 'listEvents', { method: 'GET', path: '/v1/events', query: { type: 'payout.completed', limit: 1 }, key });
  const id = events.json?.data?.[0]?.data?.object?.id;
  if (typeof id !== 'string') throw new Error(`setup: no payout arrived: ${events.status} ${events.text.slice(0, 200)}`);
  return { path: `/v1/test-helpers/payouts/${id}/fail`, key };
}

/** A payable invoice of the merchant behind `key`, addressed to payer details. */
export async function fixtureInvoice(
  ctx: ConformanceContext,
  key = ctx.options.secretKey,
): Promise<{ id: number; reference: string; identifier: string; amountDue: number; currency: string; status: string }> {
  return created(
    ctx,
    'createInvoice',
    '/v1/invoices',
    {
      customer: { email: `conformance+${ctx.runId}@example.com`, firstName: 'Conformance' },
      currency: 'USD',
      lineItems: [{ name: `Conformance ${ctx.runId}`, quantity: 2, unitAmount: 12.5 }],
      metadata: { conformanceRun: ctx.runId },
    },
    key,
  );
}

/** A card as the Commerce interface takes it (`MM/YY`, `cvv`). */
export const COMMERCE_CARD = {
  cardNumber: '4242424242424242',
  expiryDate: `12/${String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0')}`,
  cvv: '123',
};

/** A wallet payment of an invoice waiting for the payer (Commerce `payinvoice` with the wallet option, 3 by default). */
export async function fixtureWaitingPayment(ctx: ConformanceContext): Promise<number> {
  const invoice = await fixtureInvoice(ctx);
  const res = await ctx.request('commerce', 'payInvoice', {
    method: 'POST',
    path: '/api/payment/payinvoice',
    apiKey: ctx.options.apiKey ?? ctx.options.secretKey,
    body: { invoiceId: invoice.id, paymentOptionId: 3 },
  });
  if (res.status !== 200) throw new Error(`setup: payinvoice answered ${res.status}: ${res.text.slice(0, 200)}`);
  return res.json.paymentId;
}

/** A session showing a wallet QR code (confirmed with `wallet:qr`); needs the publishable key. */
export async function fixtureQr(ctx: ConformanceContext): Promise<{ id: string; clientSecret: string }> {
  const key = publishable(ctx);
  const s = await fixtureSession(ctx);
  const confirmed = await ctx.request('checkout', 'confirmCheckoutSession', {
    method: 'POST',
    path: `/v1/checkout-sessions/${s.id}/confirm`,
    key,
    clientSecret: s.clientSecret,
    body: { paymentMethodId: 'wallet:qr' },
  });
  if (confirmed.status !== 200) throw new Error(`setup: confirm with wallet:qr answered ${confirmed.status}: ${confirmed.text.slice(0, 200)}`);
  return s;
}

/**
 * A webhook configuration (deleted at the end of the run). Its URL is under `.invalid`, which
 * never resolves: the suite never makes the deployment send anything anywhere; it is disabled and
 * subscribed to test events only, so only the suite's own test sends are attempted (and fail).
 */
export async function fixtureWebhookConfiguration(ctx: ConformanceContext, key = ctx.options.secretKey): Promise<{ id: number }> {
  const config = await created<{ id: number }>(
    ctx,
    'createWebhookConfiguration',
    '/v1/WebhookConfiguration',
    {
      sandboxUrl: `https://conformance-${ctx.runId.toLowerCase()}.till.invalid/hooks`,
      subscribedEvents: ['webhook.test'],
      enabled: false,
      description: `Conformance ${ctx.runId}`,
    },
    key,
  );
  ctx.onCleanup(() => ctx.request('checkout', 'deleteWebhookConfiguration', { method: 'DELETE', path: `/v1/WebhookConfiguration/${config.id}`, key }));
  return config;
}

/** A failed delivery (a test send to the unresolvable URL), for re-sends. */
export async function fixtureFailedDelivery(ctx: ConformanceContext, key = ctx.options.secretKey): Promise<{ configurationId: number; deliveryId: string }> {
  const config = await fixtureWebhookConfiguration(ctx, key);
  const sent = await created<{ deliveryId: string }>(ctx, 'sendWebhookTestEvent', `/v1/WebhookConfiguration/${config.id}/SendTestEvent`, {}, key);
  return { configurationId: config.id, deliveryId: sent.deliveryId };
}

/** A card on file: a customer (with a phone, for the OTP) pays a session that allows saved cards. Then a new session of that customer. */
export async function fixtureSavedCard(
  ctx: ConformanceContext,
): Promise<{ session: { id: string; clientSecret: string }; paymentMethodId: string; phone: string }> {
  const key = publishable(ctx);
  const tag = `${ctx.runId}-${Math.random().toString(36).slice(2, 8)}`;
  const phone = `+1 415 555 ${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`;
  const customer = (
    await created<{ data: { id: number } }>(
      ctx,
      'createCustomer',
      '/v1/customers',
      { email: `conformance+${tag}@example.com`, name: 'Conformance Customer', phone, externalId: `conf-${tag}` },
      ctx.options.secretKey,
    )
  ).data;
  const body = {
    amount: 12.5,
    currency: 'USD',
    mode: 'embedded',
    paymentType: 'oneTime',
    clientId: customer.id,
    allowSavedCards: true,
    metadata: { conformanceRun: ctx.runId },
  };
  const first = await created<{ id: string; clientSecret: string }>(ctx, 'createCheckoutSession', '/v1/checkout-sessions', body, ctx.options.secretKey);
  const pm = await ctx.request('checkout', 'tokenizeCard', {
    method: 'POST',
    path: `/v1/checkout-sessions/${first.id}/tokenize`,
    key,
    clientSecret: first.clientSecret,
    body: TEST_CARD,
  });
  const paid = await ctx.request('checkout', 'confirmCheckoutSession', {
    method: 'POST',
    path: `/v1/checkout-sessions/${first.id}/confirm`,
    key,
    clientSecret: first.clientSecret,
    body: { paymentMethodId: pm.json?.id },
  });
  if (paid.status !== 200) throw new Error(`setup: confirm answered ${paid.status}: ${paid.text.slice(0, 200)}`);
  const session = await created<{ id: string; clientSecret: string }>(ctx, 'createCheckoutSession', '/v1/checkout-sessions', body, ctx.options.secretKey);
  return { session, paymentMethodId: pm.json.id, phone };
}

/** The newest one-time code sent to a phone, read from the test message outbox. */
export async function latestOtp(ctx: ConformanceContext, phone: string): Promise<string> {
  const res = await ctx.request('checkout', 'listTestMessages', {
    method: 'GET',
    path: '/v1/test-helpers/messages',
    key: ctx.options.secretKey,
    query: { to: phone, kind: 'otp', limit: 1 },
  });
  const code = /\b(\d{6})\b/.exec(res.json?.data?.[0]?.body ?? '')?.[1];
  if (!code) throw new Error(`setup: no one-time code for ${phone} in the test messages: ${res.status} ${res.text.slice(0, 200)}`);
  return code;
}

/** A session with click to pay enabled. */
export const fixtureClickToPaySession = (ctx: ConformanceContext) =>
  created<{ id: string; clientSecret: string }>(
    ctx,
    'createCheckoutSession',
    '/v1/checkout-sessions',
    { amount: 12.5, currency: 'USD', mode: 'embedded', paymentType: 'oneTime', enableClickToPay: true, metadata: { conformanceRun: ctx.runId } },
    ctx.options.secretKey,
  );

/** Till's sandbox click-to-pay directory: an enrolled email and the validation data it accepts. */
export const SANDBOX_SRC = { email: 'maria.lopez@example.com', validationData: '123456' };
