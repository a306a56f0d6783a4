// The recipe type, and the objects the recipes create first, through the API of the run's merchant (or
// another's, for the 404 checks), with names carrying the run id: the catalogue, customers, sessions,
// events, subscriptions and webhook configurations. What payments leave behind is in payment-fixtures.ts.
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
