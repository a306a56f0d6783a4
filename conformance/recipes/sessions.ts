// The recipes of checkout sessions and cards: tokenizing and confirming, saved cards and their OTP, SRC
// (Click to Pay), and creating, reading, polling and cancelling a session.
import { fixtureSession, publishable, type Recipe } from './fixtures.js';
import { fixtureClickToPaySession, fixtureSavedCard, latestOtp, SANDBOX_SRC, TEST_CARD } from './payment-fixtures.js';

export const sessionRecipes: Record<string, Recipe> = {
  tokenizeCard: {
    success: async (ctx) => {
      const key = publishable(ctx);
      const s = await fixtureSession(ctx);
      return { path: `/v1/checkout-sessions/${s.id}/tokenize`, key, clientSecret: s.clientSecret, body: TEST_CARD };
    },
  },
  confirmCheckoutSession: {
    success: async (ctx) => {
      const key = publishable(ctx);
      const s = await fixtureSession(ctx);
      const pm = await ctx.request('checkout', 'tokenizeCard', {
        method: 'POST',
        path: `/v1/checkout-sessions/${s.id}/tokenize`,
        key,
        clientSecret: s.clientSecret,
        body: TEST_CARD,
      });
      if (pm.status !== 201) throw new Error(`setup: tokenizeCard answered ${pm.status}: ${pm.text.slice(0, 200)}`);
      return { path: `/v1/checkout-sessions/${s.id}/confirm`, key, clientSecret: s.clientSecret, body: { paymentMethodId: pm.json.id } };
    },
  },
  listSavedCards: {
    success: async (ctx) => {
      const key = publishable(ctx);
      const { session } = await fixtureSavedCard(ctx);
      return { path: `/v1/checkout-sessions/${session.id}/saved-cards`, key, clientSecret: session.clientSecret };
    },
  },
  verifySavedCard: {
    success: async (ctx) => {
      const key = publishable(ctx);
      const { session, paymentMethodId } = await fixtureSavedCard(ctx);
      return { path: `/v1/checkout-sessions/${session.id}/saved-cards/verify`, key, clientSecret: session.clientSecret, body: { paymentMethodId } };
    },
  },
  confirmSavedCardOtp: {
    success: async (ctx) => {
      const key = publishable(ctx);
      const { session, paymentMethodId, phone } = await fixtureSavedCard(ctx);
      const v = await ctx.request('checkout', 'verifySavedCard', {
        method: 'POST',
        path: `/v1/checkout-sessions/${session.id}/saved-cards/verify`,
        key,
        clientSecret: session.clientSecret,
        body: { paymentMethodId },
      });
      if (v.status !== 200) throw new Error(`setup: verifySavedCard answered ${v.status}: ${v.text.slice(0, 200)}`);
      return {
        path: `/v1/checkout-sessions/${session.id}/saved-cards/confirm-otp`,
        key,
        clientSecret: session.clientSecret,
        body: { verificationId: v.json.verificationId, otp: await latestOtp(ctx, phone) },
      };
    },
  },
  lookupSrcCards: {
    success: async (ctx) => {
      const key = publishable(ctx);
      const s = await fixtureClickToPaySession(ctx);
      return { path: `/v1/checkout-sessions/${s.id}/src/lookup`, key, clientSecret: s.clientSecret, body: { email: SANDBOX_SRC.email } };
    },
  },
  authenticateSrcCard: {
    success: async (ctx) => {
      const key = publishable(ctx);
      const s = await fixtureClickToPaySession(ctx);
      const found = await ctx.request('checkout', 'lookupSrcCards', {
        method: 'POST',
        path: `/v1/checkout-sessions/${s.id}/src/lookup`,
        key,
        clientSecret: s.clientSecret,
        body: { email: SANDBOX_SRC.email },
      });
      const srcCardId = found.json?.cards?.[0]?.srcCardId;
      if (typeof srcCardId !== 'string') throw new Error(`setup: lookupSrcCards answered ${found.status}: ${found.text.slice(0, 200)}`);
      return {
        path: `/v1/checkout-sessions/${s.id}/src/authenticate`,
        key,
        clientSecret: s.clientSecret,
        body: { srcCardId, validationData: SANDBOX_SRC.validationData },
      };
    },
  },
  listTestMessages: { success: async () => ({ path: '/v1/test-helpers/messages', query: { limit: 5 } }) },
  createCheckoutSession: {
    success: async (ctx) => ({
      path: '/v1/checkout-sessions',
      body: {
        amount: 19.99,
        currency: 'USD',
        mode: 'hosted',
        paymentType: 'oneTime',
        successUrl: 'https://shop.example.com/thanks?session={CHECKOUT_SESSION_ID}',
        metadata: { conformanceRun: ctx.runId },
      },
    }),
  },
  retrieveCheckoutSession: {
    success: async (ctx) => ({ path: `/v1/checkout-sessions/${(await fixtureSession(ctx)).id}` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/checkout-sessions/${(await fixtureSession(ctx, key)).id}` }),
  },
  getCheckoutSessionStatus: {
    success: async (ctx) => ({ path: `/v1/checkout-sessions/${(await fixtureSession(ctx)).id}/status` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/checkout-sessions/${(await fixtureSession(ctx, key)).id}/status` }),
  },
  cancelCheckoutSession: {
    success: async (ctx) => ({ path: `/v1/checkout-sessions/${(await fixtureSession(ctx)).id}/cancel` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/checkout-sessions/${(await fixtureSession(ctx, key)).id}/cancel` }),
  },
};
