// The recipes of webhook configurations, their test events and their deliveries.
import { fixtureFailedDelivery, fixtureWebhookConfiguration, type Recipe } from './fixtures.js';

/** Webhook configurations: made disabled at a URL that never resolves, so nothing is ever sent. */
export const webhookRecipes: Record<string, Recipe> = {
  createWebhookConfiguration: {
    success: async (ctx) => {
      const url = `https://conformance-${ctx.runId.toLowerCase()}.till.invalid/hooks`;
      return {
        path: '/v1/WebhookConfiguration',
        body: { sandboxUrl: url, subscribedEvents: ['webhook.test'], enabled: false, description: `Conformance ${ctx.runId}` },
      };
    },
  },
  listWebhookConfigurations: { success: async () => ({ path: '/v1/WebhookConfiguration', query: { limit: 5 } }) },
  retrieveWebhookConfiguration: {
    success: async (ctx) => ({ path: `/v1/WebhookConfiguration/${(await fixtureWebhookConfiguration(ctx)).id}` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/WebhookConfiguration/${(await fixtureWebhookConfiguration(ctx, key)).id}` }),
  },
  updateWebhookConfiguration: {
    success: async (ctx) => ({
      path: `/v1/WebhookConfiguration/${(await fixtureWebhookConfiguration(ctx)).id}`,
      body: { description: `Conformance renamed ${ctx.runId}`, rotateSandboxSecret: true },
    }),
    foreign: async (ctx, _info, key) => ({
      path: `/v1/WebhookConfiguration/${(await fixtureWebhookConfiguration(ctx, key)).id}`,
      body: { description: 'Not yours' },
    }),
  },
  deleteWebhookConfiguration: {
    success: async (ctx) => ({ path: `/v1/WebhookConfiguration/${(await fixtureWebhookConfiguration(ctx)).id}` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/WebhookConfiguration/${(await fixtureWebhookConfiguration(ctx, key)).id}` }),
  },
  sendWebhookTestEvent: {
    success: async (ctx) => ({
      path: `/v1/WebhookConfiguration/${(await fixtureWebhookConfiguration(ctx)).id}/SendTestEvent`,
      body: { eventType: 'payment.succeeded' },
    }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/WebhookConfiguration/${(await fixtureWebhookConfiguration(ctx, key)).id}/SendTestEvent`, body: {} }),
  },
  listWebhookDeliveries: {
    success: async (ctx) => ({ path: `/v1/WebhookConfiguration/${(await fixtureFailedDelivery(ctx)).configurationId}/deliveries`, query: { limit: 5 } }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/WebhookConfiguration/${(await fixtureWebhookConfiguration(ctx, key)).id}/deliveries` }),
  },
  resendWebhookDelivery: {
    success: async (ctx) => {
      const d = await fixtureFailedDelivery(ctx);
      return { path: `/v1/WebhookConfiguration/${d.configurationId}/deliveries/${d.deliveryId}/resend` };
    },
    foreign: async (ctx, _info, key) => {
      const d = await fixtureFailedDelivery(ctx, key);
      return { path: `/v1/WebhookConfiguration/${d.configurationId}/deliveries/${d.deliveryId}/resend` };
    },
  },
};
