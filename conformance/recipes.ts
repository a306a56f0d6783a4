// How to reach each operation's documented success path on a real deployment: what to create
// first (through the API, with names carrying the run id) and what to send. An implemented
// operation without a recipe fails its success case, so each capability adds its recipes here.
import {
  COMMERCE_CARD,
  fixtureArrivedPayout,
  fixtureClickToPaySession,
  fixtureCustomer,
  fixtureDispute,
  fixtureEvent,
  fixtureFailedDelivery,
  fixtureHold,
  fixtureInvoice,
  fixturePaid,
  fixturePlan,
  fixtureProduct,
  fixtureQr,
  fixtureSavedCard,
  fixtureSession,
  fixtureSubscription,
  fixtureWaitingPayment,
  fixtureWebhookConfiguration,
  latestOtp,
  pausedSubscription,
  publishable,
  type Recipe,
  SANDBOX_SRC,
  TEST_CARD,
} from './recipes/fixtures.js';
import { commerceRecipes } from './recipes/commerce.js';

export const recipes: Record<string, Recipe> = {
  ...commerceRecipes,
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
  createInvoice: {
    success: async (ctx) => ({
      path: '/v1/invoices',
      body: {
        customer: { email: `conformance+${ctx.runId}@example.com` },
        currency: 'USD',
        lineItems: [{ name: 'Conformance', quantity: 1, unitAmount: 10 }],
        taxRate: 5,
      },
    }),
  },
  listInvoices: { success: async () => ({ path: '/v1/invoices', query: { limit: 5 } }) },
  retrieveInvoice: {
    success: async (ctx) => ({ path: `/v1/invoices/${(await fixtureInvoice(ctx)).id}` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/invoices/${(await fixtureInvoice(ctx, key)).id}` }),
  },
  getInvoicePdf: {
    success: async (ctx) => ({ path: `/v1/invoices/${(await fixtureInvoice(ctx)).id}/pdf` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/invoices/${(await fixtureInvoice(ctx, key)).id}/pdf` }),
  },
  sendInvoice: {
    success: async (ctx) => ({ path: `/v1/invoices/${(await fixtureInvoice(ctx)).id}/send` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/invoices/${(await fixtureInvoice(ctx, key)).id}/send` }),
  },
  refundInvoice: {
    // The invoice a paid one-time session raised for its payer.
    success: async (ctx) => {
      const { sessionId } = await fixturePaid(ctx, 'automatic');
      const session = await ctx.request('checkout', 'retrieveCheckoutSession', {
        method: 'GET',
        path: `/v1/checkout-sessions/${sessionId}`,
        key: ctx.options.secretKey,
      });
      return { path: `/v1/invoices/${session.json?.invoiceId}/refund`, body: { amount: 10, reason: 'conformance' } };
    },
    foreign: async (ctx, _info, key) => ({ path: `/v1/invoices/${(await fixtureInvoice(ctx, key)).id}/refund`, body: {} }),
  },
  voidInvoice: {
    success: async (ctx) => ({ path: `/v1/invoices/${(await fixtureInvoice(ctx)).id}/void` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/invoices/${(await fixtureInvoice(ctx, key)).id}/void` }),
  },
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
  changeSubscriptionPlan: {
    success: async (ctx) => ({ path: `/v1/subscriptions/${(await fixtureSubscription(ctx)).id}/change-plan`, body: { planId: (await fixturePlan(ctx)).id } }),
    foreign: async (ctx, _info, key) => ({
      path: `/v1/subscriptions/${(await fixtureSubscription(ctx, key)).id}/change-plan`,
      body: { planId: (await fixturePlan(ctx, key)).id },
    }),
  },
  // Commerce invoices: the Checkout interface's fixture invoice is the same row.
  createCommerceInvoice: {
    success: async (ctx) => ({
      path: '/v1/invoice',
      body: {
        currencyCode: 'USD',
        taxRate: 5,
        sourceInfo: { email: `conformance+${ctx.runId}@example.com` },
        items: [{ name: `Conformance ${ctx.runId}`, unitCost: 10, quantity: 2 }],
      },
    }),
  },
  listCommerceInvoices: { success: async () => ({ path: '/v1/invoice', query: { $top: 5, $count: true } }) },
  getCommerceInvoice: {
    success: async (ctx) => ({ path: `/v1/invoice/${(await fixtureInvoice(ctx)).id}` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/invoice/${(await fixtureInvoice(ctx, key)).id}` }),
  },
  getInvoiceByReference: { success: async (ctx) => ({ path: `/v1/invoice/getByReference(code='${(await fixtureInvoice(ctx)).reference}')` }) },
  listInvoicePaymentMethods: {
    success: async (ctx) => ({ path: `/v1/invoice/${(await fixtureInvoice(ctx)).id}/PaymentMethods` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/invoice/${(await fixtureInvoice(ctx, key)).id}/PaymentMethods` }),
  },
  sendCommerceInvoice: {
    success: async (ctx) => ({ path: `/v1/invoice/${(await fixtureInvoice(ctx)).id}/send` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/invoice/${(await fixtureInvoice(ctx, key)).id}/send` }),
  },
  getInvoiceQrCode: { success: async (ctx) => ({ path: `/v1/invoice/qrcode/${(await fixtureInvoice(ctx)).identifier}` }) },
  // Its documented answer is 501, always.
  createClientToken: { success: async () => ({ path: '/v1/client-token' }), expect: [501] },
};
