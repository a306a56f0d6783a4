// The recipes of the Commerce subscription catalog (products, plans, inventory items) and the Commerce subscriptions.
import { created, fixtureCustomer, fixtureSubscription, type Recipe } from './fixtures.js';
import type { ConformanceContext } from '../types.js';
import { commerceJson, onOwnAndForeign } from './commerce-request.js';

/** A Commerce catalog product of the merchant behind `key`. */
export const fixtureCatalogProduct = async (ctx: ConformanceContext, key?: string): Promise<{ id: number }> =>
  commerceJson(
    ctx,
    'createSubscriptionProduct',
    { method: 'POST', path: '/v1/SubscriptionProduct', body: { name: `Conformance product ${ctx.runId}`, subscriptionProductType: 'Physical' } },
    key,
  );
/** A Commerce catalog plan (archived at the end of the run). */
export async function fixtureCatalogPlan(ctx: ConformanceContext, key = ctx.options.apiKey ?? ctx.options.secretKey): Promise<{ id: number }> {
  const product = await fixtureCatalogProduct(ctx, key);
  const plan = await commerceJson(
    ctx,
    'createSubscriptionPlan',
    {
      method: 'POST',
      path: '/v1/SubscriptionPlan',
      body: { productId: product.id, name: `Conformance ${ctx.runId}`, amount: '9.99', currency: 'USD', timeUnit: 'Month' },
    },
    key,
  );
  ctx.onCleanup(() => ctx.request('commerce', 'deleteSubscriptionPlan', { method: 'DELETE', path: `/v1/SubscriptionPlan/${plan.id}`, apiKey: key }));
  return plan;
}
/** A subscription on a new monthly Usage plan (it starts at the session's creation): its id and its metered item's id. */
export async function fixtureMeteredSubscription(
  ctx: ConformanceContext,
  key = ctx.options.apiKey ?? ctx.options.secretKey,
): Promise<{ id: number; itemId: number }> {
  // The mock answers its examples whatever the ids.
  if (ctx.options.target === 'mock') return { id: 7004, itemId: 9104 };
  const product = await fixtureCatalogProduct(ctx, key);
  const plan: { id: number } = await commerceJson(
    ctx,
    'createSubscriptionPlan',
    {
      method: 'POST',
      path: '/v1/SubscriptionPlan',
      body: {
        productId: product.id,
        name: `Conformance usage ${ctx.runId}`,
        amount: '0.05',
        currency: 'USD',
        timeUnit: 'Month',
        subscriptionBillingType: 'Usage',
      },
    },
    key,
  );
  ctx.onCleanup(() => ctx.request('commerce', 'deleteSubscriptionPlan', { method: 'DELETE', path: `/v1/SubscriptionPlan/${plan.id}`, apiKey: key }));
  const customer = await fixtureCustomer(ctx, key);
  const session = await created<{ id: string }>(
    ctx,
    'createCheckoutSession',
    '/v1/checkout-sessions',
    { mode: 'embedded', paymentType: 'subscription', subscriptionPlanId: plan.id, clientId: customer.id, metadata: { conformanceRun: ctx.runId } },
    key,
  );
  const got = await ctx.request('checkout', 'retrieveCheckoutSession', { method: 'GET', path: `/v1/checkout-sessions/${session.id}`, key });
  const sub = await ctx.request('checkout', 'retrieveSubscription', { method: 'GET', path: `/v1/subscriptions/${got.json?.subscriptionId}`, key });
  if (sub.status !== 200) throw new Error(`setup: the Usage plan's subscription: ${sub.text.slice(0, 200)}`);
  return { id: sub.json.data.id, itemId: sub.json.data.items[0].id };
}
/** An inventory item of a new catalog product, with a serial number unique to the run. */
export const fixtureInventoryItem = async (ctx: ConformanceContext, key?: string): Promise<{ id: number }> =>
  commerceJson(
    ctx,
    'createSubscriptionInventoryItem',
    {
      method: 'POST',
      path: '/v1/SubscriptionInventoryItem',
      body: { productId: (await fixtureCatalogProduct(ctx, key)).id, serialNumber: `CF-${ctx.runId}-${Math.random().toString(36).slice(2, 8)}` },
    },
    key,
  );

/** The Commerce subscription catalog and subscriptions (issue 16 §2, §3). */
export const catalogRecipes: Record<string, Recipe> = {
  createSubscriptionProduct: {
    success: async (ctx) => ({
      path: '/v1/SubscriptionProduct',
      body: { name: `Conformance product ${ctx.runId}`, media: [{ mediaUrl: 'https://cdn.example.com/conformance.jpg' }] },
    }),
  },
  listSubscriptionProducts: { success: async () => ({ path: '/v1/SubscriptionProduct', query: { $top: 5, $count: true, $expand: 'Media' } }) },
  updateSubscriptionProduct: onOwnAndForeign(
    fixtureCatalogProduct,
    (p) => `/v1/SubscriptionProduct/${p.id}`,
    () => ({ description: 'Changed by the conformance suite' }),
  ),
  deleteSubscriptionProduct: onOwnAndForeign(fixtureCatalogProduct, (p) => `/v1/SubscriptionProduct/${p.id}`),
  createSubscriptionPlan: {
    success: async (ctx) => ({
      path: '/v1/SubscriptionPlan',
      body: {
        productId: (await fixtureCatalogProduct(ctx)).id,
        name: `Conformance ${ctx.runId}`,
        amount: '19.99',
        currency: 'USD',
        timeUnit: 'Month',
        timeInterval: 1,
      },
    }),
  },
  listSubscriptionPlans: { success: async () => ({ path: '/v1/SubscriptionPlan', query: { $top: 5, $count: true, $filter: "status eq 'Active'" } }) },
  updateSubscriptionPlan: onOwnAndForeign(
    fixtureCatalogPlan,
    (p) => `/v1/SubscriptionPlan/${p.id}`,
    (ctx) => ({ name: `Conformance renamed ${ctx.runId}` }),
  ),
  deleteSubscriptionPlan: onOwnAndForeign(fixtureCatalogPlan, (p) => `/v1/SubscriptionPlan/${p.id}`),
  createSubscriptionInventoryItem: {
    success: async (ctx) => ({
      path: '/v1/SubscriptionInventoryItem',
      body: { productId: (await fixtureCatalogProduct(ctx)).id, serialNumber: `CF-${ctx.runId}-new` },
    }),
  },
  listSubscriptionInventoryItems: {
    success: async () => ({ path: '/v1/SubscriptionInventoryItem', query: { $top: 5, $count: true, $filter: "status eq 'Available'" } }),
  },
  updateSubscriptionInventoryItem: onOwnAndForeign(
    fixtureInventoryItem,
    (i) => `/v1/SubscriptionInventoryItem/${i.id}`,
    () => ({ status: 'Reserved' }),
  ),
  deleteSubscriptionInventoryItem: onOwnAndForeign(fixtureInventoryItem, (i) => `/v1/SubscriptionInventoryItem/${i.id}`),
  listCommerceSubscriptions: { success: async () => ({ path: '/v1/subscription', query: { $top: 5, $count: true } }) },
  cancelCommerceSubscription: onOwnAndForeign(
    fixtureSubscription,
    (sub) => `/v1/subscription/${sub.id}/cancel`,
    () => ({ cancelAtPeriodEnd: true, reason: 'conformance' }),
  ),
  recordCommerceSubscriptionUsage: onOwnAndForeign(
    fixtureMeteredSubscription,
    (sub) => `/v1/subscription/${sub.id}/usage`,
    () => ({ quantity: 12 }),
  ),
};
