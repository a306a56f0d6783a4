// The recipes of the Checkout catalogue and billing: products, plans, customers, portal sessions and subscriptions.
import { fixtureMeteredSubscription } from './commerce-catalog.js';
import { fixtureCustomer, fixturePlan, fixtureProduct, fixtureSubscription, pausedSubscription, type Recipe } from './fixtures.js';

export const catalogRecipes: Record<string, Recipe> = {
  createProduct: { success: async (ctx) => ({ path: '/v1/products', body: { name: `Conformance product ${ctx.runId}` } }) },
  listProducts: { success: async () => ({ path: '/v1/products', query: { limit: 5 } }) },
  retrieveProduct: {
    success: async (ctx) => ({ path: `/v1/products/${(await fixtureProduct(ctx)).id}` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/products/${(await fixtureProduct(ctx, key)).id}` }),
  },
  createPlan: {
    success: async (ctx) => ({
      path: '/v1/plans',
      body: {
        productId: (await fixtureProduct(ctx)).id,
        name: `Conformance ${ctx.runId}`,
        amount: 19.99,
        currency: 'USD',
        interval: 'month',
        intervalCount: 1,
      },
    }),
  },
  listPlans: { success: async () => ({ path: '/v1/plans', query: { limit: 5, includeArchived: true } }) },
  retrievePlan: {
    success: async (ctx) => ({ path: `/v1/plans/${(await fixturePlan(ctx)).id}` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/plans/${(await fixturePlan(ctx, key)).id}` }),
  },
  updatePlan: {
    success: async (ctx) => ({ path: `/v1/plans/${(await fixturePlan(ctx)).id}`, body: { name: `Conformance renamed ${ctx.runId}`, description: 'Renamed' } }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/plans/${(await fixturePlan(ctx, key)).id}`, body: { name: 'Not yours' } }),
  },
  archivePlan: {
    success: async (ctx) => ({ path: `/v1/plans/${(await fixturePlan(ctx)).id}` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/plans/${(await fixturePlan(ctx, key)).id}` }),
  },
  createCustomer: {
    success: async (ctx) => ({
      path: '/v1/customers',
      body: { email: `conformance+${ctx.runId}-${Math.random().toString(36).slice(2, 8)}@example.com`, name: 'Conformance' },
    }),
  },
  listCustomers: { success: async () => ({ path: '/v1/customers', query: { limit: 5 } }) },
  createPortalSession: {
    success: async (ctx) => ({
      path: '/v1/portal-sessions',
      body: { clientId: (await fixtureCustomer(ctx)).id, returnUrl: 'https://shop.example.com/account' },
    }),
  },
  retrieveCustomer: {
    success: async (ctx) => ({ path: `/v1/customers/${(await fixtureCustomer(ctx)).id}` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/customers/${(await fixtureCustomer(ctx, key)).id}` }),
  },
  retrieveSubscription: {
    success: async (ctx) => ({ path: `/v1/subscriptions/${(await fixtureSubscription(ctx)).id}` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/subscriptions/${(await fixtureSubscription(ctx, key)).id}` }),
  },
  listSubscriptions: { success: async () => ({ path: '/v1/subscriptions', query: { limit: 5 } }) },
  listSubscriptionInvoices: {
    success: async (ctx) => ({ path: `/v1/subscriptions/${(await fixtureSubscription(ctx)).id}/invoices` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/subscriptions/${(await fixtureSubscription(ctx, key)).id}/invoices` }),
  },
  // Subscription changes (issue 14): each on its own free-trial subscription.
  cancelSubscription: {
    success: async (ctx) => ({ path: `/v1/subscriptions/${(await fixtureSubscription(ctx)).id}/cancel`, body: { cancelAtPeriodEnd: true } }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/subscriptions/${(await fixtureSubscription(ctx, key)).id}/cancel`, body: { cancelAtPeriodEnd: true } }),
  },
  pauseSubscription: {
    success: async (ctx) => ({ path: `/v1/subscriptions/${(await fixtureSubscription(ctx)).id}/pause`, body: { reason: 'conformance' } }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/subscriptions/${(await fixtureSubscription(ctx, key)).id}/pause`, body: {} }),
  },
  resumeSubscription: {
    success: async (ctx) => ({ path: `/v1/subscriptions/${(await pausedSubscription(ctx)).id}/resume` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/subscriptions/${(await pausedSubscription(ctx, key)).id}/resume` }),
  },
  previewSubscriptionPlanChange: {
    success: async (ctx) => ({ path: `/v1/subscriptions/${(await fixtureSubscription(ctx)).id}/change-plan`, query: { planId: (await fixturePlan(ctx)).id } }),
    foreign: async (ctx, _info, key) => ({
      path: `/v1/subscriptions/${(await fixtureSubscription(ctx, key)).id}/change-plan`,
      query: { planId: (await fixturePlan(ctx, key)).id },
    }),
  },
  createUsageRecord: {
    success: async (ctx) => ({ path: `/v1/subscription-items/${(await fixtureMeteredSubscription(ctx)).itemId}/usage-records`, body: { quantity: 12 } }),
    foreign: async (ctx, _info, key) => ({
      path: `/v1/subscription-items/${(await fixtureMeteredSubscription(ctx, key)).itemId}/usage-records`,
      body: { quantity: 1 },
    }),
  },
  changeSubscriptionPlan: {
    success: async (ctx) => ({ path: `/v1/subscriptions/${(await fixtureSubscription(ctx)).id}/change-plan`, body: { planId: (await fixturePlan(ctx)).id } }),
    foreign: async (ctx, _info, key) => ({
      path: `/v1/subscriptions/${(await fixtureSubscription(ctx, key)).id}/change-plan`,
      body: { planId: (await fixturePlan(ctx, key)).id },
    }),
  },
};
