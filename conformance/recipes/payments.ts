// The recipes of payments and what follows them: refunds, holds and captures, disputes, payouts, events,
// and the sandbox's test helpers (the clock, a test merchant, settling, QR payments).
import { fixtureEvent, fixtureSession, publishable, type Recipe } from './fixtures.js';
import {
  COMMERCE_CARD,
  fixtureArrivedPayout,
  fixtureDispute,
  fixtureHold,
  fixtureInvoice,
  fixturePaid,
  fixtureQr,
  fixtureWaitingPayment,
} from './payment-fixtures.js';
import { fixtureTransfer } from './commerce-funds.js';

export const paymentRecipes: Record<string, Recipe> = {
  refundCheckoutSession: {
    success: async (ctx) => ({
      path: `/v1/checkout-sessions/${(await fixturePaid(ctx, 'automatic')).sessionId}/refund`,
      body: { amount: 10, reason: 'conformance' },
    }),
  },
  refundPayment: {
    success: async (ctx) => ({ path: `/v1/payments/${(await fixturePaid(ctx, 'automatic')).paymentId}/refund`, body: { reason: 'conformance' } }),
  },
  // Moves the conformance merchant's test clock by one second: every later check reads times relative to it.
  // On the run's sandbox merchant when the target offers one: the merchant given keeps its clock.
  advanceTestClock: {
    success: async (ctx) => {
      const sandbox = await ctx.sandboxMerchant();
      return { path: '/v1/test-helpers/clock/advance', body: { seconds: 1 }, ...('ctx' in sandbox ? { key: sandbox.ctx.options.secretKey } : {}) };
    },
  },
  createTestMerchant: { success: async (ctx) => ({ path: '/v1/test-helpers/merchants', body: { name: `conformance ${ctx.runId} contract` } }) },
  settleTestPayment: { success: async (ctx) => ({ path: `/v1/test-helpers/payments/${(await fixturePaid(ctx, 'automatic')).paymentId}/settle` }) },
  withdrawCheckoutSessionQr: {
    success: async (ctx) => {
      const s = await fixtureQr(ctx);
      return { path: `/v1/checkout-sessions/${s.id}/withdraw-qr`, key: publishable(ctx), clientSecret: s.clientSecret };
    },
  },
  simulateQrPaid: {
    success: async (ctx) => ({ path: `/v1/test-helpers/checkout-sessions/${(await fixtureQr(ctx)).id}/qr-paid` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/test-helpers/checkout-sessions/${(await fixtureSession(ctx, key)).id}/qr-paid` }),
  },
  openTestDispute: {
    success: async (ctx) => ({ path: `/v1/test-helpers/payments/${(await fixturePaid(ctx, 'automatic')).paymentId}/dispute`, body: { reason: 'fraudulent' } }),
  },
  updateTestDispute: { success: async (ctx) => ({ path: `/v1/test-helpers/disputes/${await fixtureDispute(ctx)}/update`, body: { status: 'UnderReview' } }) },
  closeTestDispute: { success: async (ctx) => ({ path: `/v1/test-helpers/disputes/${await fixtureDispute(ctx)}/close`, body: { outcome: 'Won' } }) },
  retrieveDispute: { success: async (ctx) => ({ path: `/v1/disputes/${await fixtureDispute(ctx)}` }) },
  listDisputes: { success: async () => ({ path: '/v1/disputes' }) },
  listEvents: { success: async () => ({ path: '/v1/events', query: { type: 'checkout.session.*' } }) },
  // Arms a failure on the merchant given, whose clock never moves: no scenario's payout is touched by it.
  failNextTestPayout: {
    success: async () => ({ path: '/v1/test-helpers/payouts/fail-next', body: { failureReason: 'Conformance: the bank account is closed.' } }),
  },
  // A payout that arrived, on the run's sandbox merchant (payouts need the clock): a paid payment
  // settled now, then two days (it leaves at the next 00:00 UTC and arrives 24 hours later).
  failTestPayout: { success: async (ctx) => ({ ...(await fixtureArrivedPayout(ctx)), body: {} }) },
  // A bank transfer made now: `Processing` until the next business day, so the helper can fail it.
  failTestTransfer: { success: async (ctx) => ({ path: `/v1/test-helpers/transfers/${await fixtureTransfer(ctx)}/fail`, body: {} }) },
  getPayoutsDashboard: { success: async () => ({ path: '/v1/FinancialDashboard/payouts', query: { timeUnit: 'Week' } }) },
  retrieveEvent: {
    success: async (ctx) => ({ path: `/v1/events/${await fixtureEvent(ctx)}` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/events/${await fixtureEvent(ctx, key)}` }),
  },
  streamEvents: { success: async () => ({ path: '/v1/events/stream' }) },
  capturePayment: { success: async (ctx) => ({ path: `/v1/payments/${await fixtureHold(ctx)}/capture`, body: { reason: 'conformance' } }) },
  payInvoice: {
    success: async (ctx) => ({ path: '/api/payment/payinvoice', body: { invoiceId: (await fixtureInvoice(ctx)).id, paymentOptionId: 1, card: COMMERCE_CARD } }),
  },
  createCommercePayment: {
    success: async () => ({
      path: '/v1/payment',
      body: { amount: 20, currency: 'USD', paymentMethod: 'CreditCard', description: 'Conformance payment', paymentOptionId: 1, card: COMMERCE_CARD },
    }),
  },
  getCommercePayment: { success: async (ctx) => ({ path: `/v1/payment/${(await fixturePaid(ctx, 'automatic')).paymentId}` }) },
  captureCommercePayment: { success: async (ctx) => ({ path: `/v1/payment/${await fixtureHold(ctx)}/capture`, body: { amount: 10 } }) },
  simulatePaymentReceived: { success: async (ctx) => ({ path: `/v1/test-helpers/payments/${await fixtureWaitingPayment(ctx)}/receive` }) },
  releasePayment: { success: async (ctx) => ({ path: `/v1/payments/${await fixtureHold(ctx)}/release` }) },
};
