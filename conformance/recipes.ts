// How to reach each operation's documented success path on a real deployment: what to create
// first (through the API, with names carrying the run id) and what to send. An implemented
// operation without a recipe fails its success case, so each capability adds its recipes here.
import { pendingBecause } from './scenarios/fixtures/scenario.js';
import type { ConformanceContext, RequestSpec } from './types.js';
import type { OperationInfo } from './validator.js';

export interface Recipe {
  /** The request that should succeed (path filled in, body and query). */
  success(ctx: ConformanceContext, info: OperationInfo): Promise<Omit<RequestSpec, 'method'> & { path: string }>;
  /** Statuses that count as the success path (default: the documented 2xx). */
  expect?: number[];
  /** The same request for an object another merchant owns (for the 404 check). */
  foreign?(ctx: ConformanceContext, info: OperationInfo, otherKey: string): Promise<Omit<RequestSpec, 'method'> & { path: string }>;
}

async function created<T = any>(ctx: ConformanceContext, operationId: string, path: string, body: unknown, key: string): Promise<T> {
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
  const plan = (await created<{ data: { id: number } }>(ctx, 'createPlan', '/v1/plans', { productId: product.id, name: `Conformance ${ctx.runId}`, amount: 9.99, currency: 'USD', interval: 'month' }, key)).data;
  ctx.onCleanup(() => ctx.request('checkout', 'archivePlan', { method: 'DELETE', path: `/v1/plans/${plan.id}`, key }));
  return plan;
}

/** A customer of the merchant behind `key`, unique to this run. */
export async function fixtureCustomer(ctx: ConformanceContext, key = ctx.options.secretKey): Promise<{ id: number }> {
  const tag = `${ctx.runId}-${Math.random().toString(36).slice(2, 8)}`;
  return (await created<{ data: { id: number } }>(ctx, 'createCustomer', '/v1/customers', { email: `conformance+${tag}@example.com`, name: 'Conformance Customer', externalId: `conf-${tag}` }, key)).data;
}

/** An embedded one-time checkout session of the merchant behind `key`. */
export async function fixtureSession(ctx: ConformanceContext, key = ctx.options.secretKey): Promise<{ id: string; clientSecret: string }> {
  return created(ctx, 'createCheckoutSession', '/v1/checkout-sessions', { amount: 12.5, currency: 'USD', mode: 'embedded', paymentType: 'oneTime', metadata: { conformanceRun: ctx.runId } }, key);
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
  const s = await created<{ id: string }>(ctx, 'createCheckoutSession', '/v1/checkout-sessions', { mode: 'embedded', paymentType: 'subscription', subscriptionPlanId: plan.id, clientId: customer.id, trialDays: 7, metadata: { conformanceRun: ctx.runId } }, key);
  const got = await ctx.request('checkout', 'retrieveCheckoutSession', { method: 'GET', path: `/v1/checkout-sessions/${s.id}`, key });
  if (typeof got.json?.subscriptionId === 'number') return { id: got.json.subscriptionId };
  // The mock answers its one-time example for any session; any id reaches its subscription examples.
  if (ctx.options.target === 'mock') return { id: 7001 };
  throw new Error(`setup: the free-trial session has no subscriptionId: ${got.text.slice(0, 200)}`);
}

/** A free-trial subscription of the merchant behind `key`, paused: its id. */
async function pausedSubscription(ctx: ConformanceContext, key = ctx.options.secretKey): Promise<{ id: number }> {
  const s = await fixtureSubscription(ctx, key);
  const res = await ctx.request('checkout', 'pauseSubscription', { method: 'POST', path: `/v1/subscriptions/${s.id}/pause`, key });
  if (res.status >= 300) throw new Error(`setup: pauseSubscription answered ${res.status}: ${res.text.slice(0, 200)}`);
  return s;
}

/** The publishable key, or a pending result when the run has none. */
function publishable(ctx: ConformanceContext): string {
  if (!ctx.options.publishableKey) throw new Error('PENDING: needs --publishable-key');
  return ctx.options.publishableKey;
}

const TEST_CARD = { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 3, cvc: '123' };

/** A confirmed session (a paid card payment, or a hold with captureMethod manual); needs the publishable key. */
async function fixturePaid(ctx: ConformanceContext, captureMethod: 'automatic' | 'manual'): Promise<{ sessionId: string; paymentId: number }> {
  const key = publishable(ctx);
  const s = await created<{ id: string; clientSecret: string }>(ctx, 'createCheckoutSession', '/v1/checkout-sessions', { amount: 30, currency: 'USD', mode: 'embedded', paymentType: 'oneTime', captureMethod, metadata: { conformanceRun: ctx.runId } }, ctx.options.secretKey);
  const pm = await ctx.request('checkout', 'tokenizeCard', { method: 'POST', path: `/v1/checkout-sessions/${s.id}/tokenize`, key, clientSecret: s.clientSecret, body: TEST_CARD });
  const confirmed = await ctx.request('checkout', 'confirmCheckoutSession', { method: 'POST', path: `/v1/checkout-sessions/${s.id}/confirm`, key, clientSecret: s.clientSecret, body: { paymentMethodId: pm.json?.id } });
  if (confirmed.status !== 200) throw new Error(`setup: confirm answered ${confirmed.status}: ${confirmed.text.slice(0, 200)}`);
  return { sessionId: s.id, paymentId: confirmed.json.paymentResult.id };
}
const fixtureHold = async (ctx: ConformanceContext) => (await fixturePaid(ctx, 'manual')).paymentId;
/** An open dispute on a paid card payment (the dispute test helper). */
const fixtureDispute = async (ctx: ConformanceContext): Promise<string> =>
  (await created<{ id: string }>(ctx, 'openTestDispute', `/v1/test-helpers/payments/${(await fixturePaid(ctx, 'automatic')).paymentId}/dispute`, {}, ctx.options.secretKey)).id;

/** The path of a payout that arrived, on the run's sandbox merchant, and that merchant's key. */
async function fixtureArrivedPayout(ctx: ConformanceContext): Promise<{ path: string; key: string }> {
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
export async function fixtureInvoice(ctx: ConformanceContext, key = ctx.options.secretKey): Promise<{ id: number; reference: string; identifier: string; amountDue: number; currency: string; status: string }> {
  return created(ctx, 'createInvoice', '/v1/invoices', { customer: { email: `conformance+${ctx.runId}@example.com`, firstName: 'Conformance' }, currency: 'USD', lineItems: [{ name: `Conformance ${ctx.runId}`, quantity: 2, unitAmount: 12.5 }], metadata: { conformanceRun: ctx.runId } }, key);
}

/** A card as the Commerce interface takes it (`MM/YY`, `cvv`). */
const COMMERCE_CARD = { cardNumber: '4242424242424242', expiryDate: `12/${String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0')}`, cvv: '123' };

/** A wallet payment of an invoice waiting for the payer (Commerce `payinvoice` with the wallet option, 3 by default). */
async function fixtureWaitingPayment(ctx: ConformanceContext): Promise<number> {
  const invoice = await fixtureInvoice(ctx);
  const res = await ctx.request('commerce', 'payInvoice', { method: 'POST', path: '/api/payment/payinvoice', apiKey: ctx.options.apiKey ?? ctx.options.secretKey, body: { invoiceId: invoice.id, paymentOptionId: 3 } });
  if (res.status !== 200) throw new Error(`setup: payinvoice answered ${res.status}: ${res.text.slice(0, 200)}`);
  return res.json.paymentId;
}

/** A session showing a wallet QR code (confirmed with `wallet:qr`); needs the publishable key. */
async function fixtureQr(ctx: ConformanceContext): Promise<{ id: string; clientSecret: string }> {
  const key = publishable(ctx);
  const s = await fixtureSession(ctx);
  const confirmed = await ctx.request('checkout', 'confirmCheckoutSession', { method: 'POST', path: `/v1/checkout-sessions/${s.id}/confirm`, key, clientSecret: s.clientSecret, body: { paymentMethodId: 'wallet:qr' } });
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
    { sandboxUrl: `https://conformance-${ctx.runId.toLowerCase()}.till.invalid/hooks`, subscribedEvents: ['webhook.test'], enabled: false, description: `Conformance ${ctx.runId}` },
    key,
  );
  ctx.onCleanup(() => ctx.request('checkout', 'deleteWebhookConfiguration', { method: 'DELETE', path: `/v1/WebhookConfiguration/${config.id}`, key }));
  return config;
}

/** A failed delivery (a test send to the unresolvable URL), for re-sends. */
async function fixtureFailedDelivery(ctx: ConformanceContext, key = ctx.options.secretKey): Promise<{ configurationId: number; deliveryId: string }> {
  const config = await fixtureWebhookConfiguration(ctx, key);
  const sent = await created<{ deliveryId: string }>(ctx, 'sendWebhookTestEvent', `/v1/WebhookConfiguration/${config.id}/SendTestEvent`, {}, key);
  return { configurationId: config.id, deliveryId: sent.deliveryId };
}

/** A card on file: a customer (with a phone, for the OTP) pays a session that allows saved cards. Then a new session of that customer. */
async function fixtureSavedCard(ctx: ConformanceContext): Promise<{ session: { id: string; clientSecret: string }; paymentMethodId: string; phone: string }> {
  const key = publishable(ctx);
  const tag = `${ctx.runId}-${Math.random().toString(36).slice(2, 8)}`;
  const phone = `+1 415 555 ${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`;
  const customer = (await created<{ data: { id: number } }>(ctx, 'createCustomer', '/v1/customers', { email: `conformance+${tag}@example.com`, name: 'Conformance Customer', phone, externalId: `conf-${tag}` }, ctx.options.secretKey)).data;
  const body = { amount: 12.5, currency: 'USD', mode: 'embedded', paymentType: 'oneTime', clientId: customer.id, allowSavedCards: true, metadata: { conformanceRun: ctx.runId } };
  const first = await created<{ id: string; clientSecret: string }>(ctx, 'createCheckoutSession', '/v1/checkout-sessions', body, ctx.options.secretKey);
  const pm = await ctx.request('checkout', 'tokenizeCard', { method: 'POST', path: `/v1/checkout-sessions/${first.id}/tokenize`, key, clientSecret: first.clientSecret, body: TEST_CARD });
  const paid = await ctx.request('checkout', 'confirmCheckoutSession', { method: 'POST', path: `/v1/checkout-sessions/${first.id}/confirm`, key, clientSecret: first.clientSecret, body: { paymentMethodId: pm.json?.id } });
  if (paid.status !== 200) throw new Error(`setup: confirm answered ${paid.status}: ${paid.text.slice(0, 200)}`);
  const session = await created<{ id: string; clientSecret: string }>(ctx, 'createCheckoutSession', '/v1/checkout-sessions', body, ctx.options.secretKey);
  return { session, paymentMethodId: pm.json.id, phone };
}

/** The newest one-time code sent to a phone, read from the test message outbox. */
export async function latestOtp(ctx: ConformanceContext, phone: string): Promise<string> {
  const res = await ctx.request('checkout', 'listTestMessages', { method: 'GET', path: '/v1/test-helpers/messages', key: ctx.options.secretKey, query: { to: phone, kind: 'otp', limit: 1 } });
  const code = /\b(\d{6})\b/.exec(res.json?.data?.[0]?.body ?? '')?.[1];
  if (!code) throw new Error(`setup: no one-time code for ${phone} in the test messages: ${res.status} ${res.text.slice(0, 200)}`);
  return code;
}

/** A session with click to pay enabled. */
const fixtureClickToPaySession = (ctx: ConformanceContext) =>
  created<{ id: string; clientSecret: string }>(ctx, 'createCheckoutSession', '/v1/checkout-sessions', { amount: 12.5, currency: 'USD', mode: 'embedded', paymentType: 'oneTime', enableClickToPay: true, metadata: { conformanceRun: ctx.runId } }, ctx.options.secretKey);

/** Till's sandbox click-to-pay directory: an enrolled email and the validation data it accepts. */
export const SANDBOX_SRC = { email: 'maria.lopez@example.com', validationData: '123456' };

/** A commerce request of the run's merchant (or of `key`'s): its JSON, or a setup error. */
async function commerceJson(ctx: ConformanceContext, operationId: string, spec: Omit<RequestSpec, 'apiKey'>, key = ctx.options.apiKey ?? ctx.options.secretKey): Promise<any> {
  const res = await ctx.request('commerce', operationId, { ...spec, apiKey: key });
  if (res.status >= 300) throw new Error(`setup: ${operationId} answered ${res.status}: ${res.text.slice(0, 200)}`);
  return res.json;
}
/** The USD wallet account of the merchant behind `key`. */
const fixtureAccount = async (ctx: ConformanceContext, key?: string): Promise<{ id: number }> =>
  (await commerceJson(ctx, 'listAccounts', { method: 'GET', path: '/v1/account' }, key)).value.find((a: { currencyCode: string }) => a.currencyCode === 'USD');
/** A funding source of the merchant behind `key` (the 3-D Secure card: it waits for verification). */
const fixtureFundingSource = async (ctx: ConformanceContext, key?: string): Promise<number> =>
  (await commerceJson(ctx, 'registerCard', { method: 'POST', path: '/v1/payment/RegisterCard', body: { card: { cardNumber: '4000000000003220', expiryDate: `12/${String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0')}`, cvv: '123' } } }, key)).fundingSourceId;
const BANK_ACCOUNT = 'DE89370400440532013000';

/** The funds operations of the Commerce interface (issue 15 §4). */
const fundsRecipes: Record<string, Recipe> = {
  registerCard: { success: async () => ({ path: '/v1/payment/RegisterCard', body: { card: { cardNumber: '4242424242424242', expiryDate: `12/${String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0')}`, cvv: '123' } } }) },
  listFundingSources: { success: async () => ({ path: '/v1/FundingSource' }) },
  verifyFundingSource: {
    success: async (ctx) => {
      const id = await fixtureFundingSource(ctx);
      const outbox = await ctx.request('checkout', 'listTestMessages', { method: 'GET', path: '/v1/test-helpers/messages', key: ctx.options.secretKey, query: { kind: 'otp', limit: 20 } });
      const body: string = outbox.json?.data?.find((m: { body: string }) => m.body.includes(`funding source ${id} `))?.body ?? '';
      return { path: `/v1/fundingSource/${id}/verify`, body: { VerificationCode: /is (\d{6})\./.exec(body)?.[1] ?? '000000' } };
    },
    foreign: async (ctx, _info, key) => ({ path: `/v1/fundingSource/${await fixtureFundingSource(ctx, key)}/verify`, body: { VerificationCode: '123456' } }),
  },
  listAccounts: { success: async () => ({ path: '/v1/account' }) },
  getAccountBalance: {
    success: async (ctx) => ({ path: `/v1/account/${(await fixtureAccount(ctx)).id}/balance` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/account/${(await fixtureAccount(ctx, key)).id}/balance` }),
  },
  createTransfer: {
    success: async (ctx) => {
      await created(ctx, 'settleTestPayment', `/v1/test-helpers/payments/${(await fixturePaid(ctx, 'automatic')).paymentId}/settle`, undefined, ctx.options.secretKey);
      return { path: '/v1/transfer', body: { sourceAccountId: (await fixtureAccount(ctx)).id, destinationAccountNumber: BANK_ACCOUNT, amount: 1, currencyCode: 'USD', transferAction: 'BankTransfer' } };
    },
    foreign: async (ctx, _info, key) => ({ path: '/v1/transfer', body: { sourceAccountId: (await fixtureAccount(ctx, key)).id, destinationAccountNumber: BANK_ACCOUNT, amount: 1, currencyCode: 'USD', transferAction: 'BankTransfer' } }),
  },
  listGatewayTransfers: { success: async () => ({ path: '/v1/GatewayTransferDto', query: { $top: 5, $count: true } }) },
  listTransactions: { success: async () => ({ path: '/v1/transaction', query: { $top: 5 } }) },
  getTransfersDashboard: { success: async () => ({ path: '/v1/FinancialDashboard/transfers', query: { timeUnit: 'Week' } }) },
};

/** A Commerce catalog product of the merchant behind `key`. */
const fixtureCatalogProduct = async (ctx: ConformanceContext, key?: string): Promise<{ id: number }> =>
  commerceJson(ctx, 'createSubscriptionProduct', { method: 'POST', path: '/v1/SubscriptionProduct', body: { name: `Conformance product ${ctx.runId}`, subscriptionProductType: 'Physical' } }, key);
/** A Commerce catalog plan (archived at the end of the run). */
async function fixtureCatalogPlan(ctx: ConformanceContext, key = ctx.options.apiKey ?? ctx.options.secretKey): Promise<{ id: number }> {
  const product = await fixtureCatalogProduct(ctx, key);
  const plan = await commerceJson(ctx, 'createSubscriptionPlan', { method: 'POST', path: '/v1/SubscriptionPlan', body: { productId: product.id, name: `Conformance ${ctx.runId}`, amount: '9.99', currency: 'USD', timeUnit: 'Month' } }, key);
  ctx.onCleanup(() => ctx.request('commerce', 'deleteSubscriptionPlan', { method: 'DELETE', path: `/v1/SubscriptionPlan/${plan.id}`, apiKey: key }));
  return plan;
}
/** An inventory item of a new catalog product, with a serial number unique to the run. */
const fixtureInventoryItem = async (ctx: ConformanceContext, key?: string): Promise<{ id: number }> =>
  commerceJson(ctx, 'createSubscriptionInventoryItem', { method: 'POST', path: '/v1/SubscriptionInventoryItem', body: { productId: (await fixtureCatalogProduct(ctx, key)).id, serialNumber: `CF-${ctx.runId}-${Math.random().toString(36).slice(2, 8)}` } }, key);

/** The Commerce subscription catalog and subscriptions (issue 16 §2, §3). */
const catalogRecipes: Record<string, Recipe> = {
  createSubscriptionProduct: { success: async (ctx) => ({ path: '/v1/SubscriptionProduct', body: { name: `Conformance product ${ctx.runId}`, media: [{ mediaUrl: 'https://cdn.example.com/conformance.jpg' }] } }) },
  listSubscriptionProducts: { success: async () => ({ path: '/v1/SubscriptionProduct', query: { $top: 5, $count: true, $expand: 'Media' } }) },
  updateSubscriptionProduct: {
    success: async (ctx) => ({ path: `/v1/SubscriptionProduct/${(await fixtureCatalogProduct(ctx)).id}`, body: { description: 'Changed by the conformance suite' } }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/SubscriptionProduct/${(await fixtureCatalogProduct(ctx, key)).id}`, body: { name: 'Not yours' } }),
  },
  deleteSubscriptionProduct: {
    success: async (ctx) => ({ path: `/v1/SubscriptionProduct/${(await fixtureCatalogProduct(ctx)).id}` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/SubscriptionProduct/${(await fixtureCatalogProduct(ctx, key)).id}` }),
  },
  createSubscriptionPlan: {
    success: async (ctx) => ({ path: '/v1/SubscriptionPlan', body: { productId: (await fixtureCatalogProduct(ctx)).id, name: `Conformance ${ctx.runId}`, amount: '19.99', currency: 'USD', timeUnit: 'Month', timeInterval: 1 } }),
  },
  listSubscriptionPlans: { success: async () => ({ path: '/v1/SubscriptionPlan', query: { $top: 5, $count: true, $filter: "status eq 'Active'" } }) },
  updateSubscriptionPlan: {
    success: async (ctx) => ({ path: `/v1/SubscriptionPlan/${(await fixtureCatalogPlan(ctx)).id}`, body: { name: `Conformance renamed ${ctx.runId}` } }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/SubscriptionPlan/${(await fixtureCatalogPlan(ctx, key)).id}`, body: { name: 'Not yours' } }),
  },
  deleteSubscriptionPlan: {
    success: async (ctx) => ({ path: `/v1/SubscriptionPlan/${(await fixtureCatalogPlan(ctx)).id}` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/SubscriptionPlan/${(await fixtureCatalogPlan(ctx, key)).id}` }),
  },
  createSubscriptionInventoryItem: {
    success: async (ctx) => ({ path: '/v1/SubscriptionInventoryItem', body: { productId: (await fixtureCatalogProduct(ctx)).id, serialNumber: `CF-${ctx.runId}-new` } }),
  },
  listSubscriptionInventoryItems: { success: async () => ({ path: '/v1/SubscriptionInventoryItem', query: { $top: 5, $count: true, $filter: "status eq 'Available'" } }) },
  updateSubscriptionInventoryItem: {
    success: async (ctx) => ({ path: `/v1/SubscriptionInventoryItem/${(await fixtureInventoryItem(ctx)).id}`, body: { status: 'Reserved' } }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/SubscriptionInventoryItem/${(await fixtureInventoryItem(ctx, key)).id}`, body: { status: 'Discontinued' } }),
  },
  deleteSubscriptionInventoryItem: {
    success: async (ctx) => ({ path: `/v1/SubscriptionInventoryItem/${(await fixtureInventoryItem(ctx)).id}` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/SubscriptionInventoryItem/${(await fixtureInventoryItem(ctx, key)).id}` }),
  },
  listCommerceSubscriptions: { success: async () => ({ path: '/v1/subscription', query: { $top: 5, $count: true } }) },
  cancelCommerceSubscription: {
    success: async (ctx) => ({ path: `/v1/subscription/${(await fixtureSubscription(ctx)).id}/cancel`, body: { cancelAtPeriodEnd: true, reason: 'conformance' } }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/subscription/${(await fixtureSubscription(ctx, key)).id}/cancel`, body: { cancelAtPeriodEnd: false } }),
    },
};

/** A role of the merchant behind `key`, unique to this run, with two read scopes. */
async function fixtureRole(ctx: ConformanceContext, key?: string): Promise<{ id: number }> {
  const name = `Conformance ${ctx.runId} ${Math.random().toString(36).slice(2, 8)}`.replace(/[^A-Za-z0-9 _.-]/g, '').slice(0, 100);
  return commerceJson(ctx, 'createRole', { method: 'POST', path: '/v1/role', body: { name, scopes: ['user.read', 'invoice.read'] } }, key);
}
/** A restricted key of a new role of the merchant behind `key`: the path that revokes it. */
async function fixtureRestrictedKeyPath(ctx: ConformanceContext, key?: string): Promise<string> {
  const role = await fixtureRole(ctx, key);
  const made = await commerceJson(ctx, 'createRestrictedKey', { method: 'POST', path: `/v1/role/${role.id}/keys`, body: { description: `conformance ${ctx.runId}`.slice(0, 200) } }, key);
  return `/v1/role/${role.id}/keys/${made.id}`;
}

/** The merchant, its locations, the user, roles, scopes and restricted keys (issue 16 §4). */
const identityRecipes: Record<string, Recipe> = {
  getMerchant: { success: async () => ({ path: '/v1/merchant' }) },
  createMerchant: {
    // Each run makes one merchant more (named for the run): Till has no way to delete one.
    success: async (ctx) => ({ path: '/v1/merchant', body: { name: `Conformance ${ctx.runId}`.slice(0, 200), email: 'conformance@example.com', country: 'US', location: { address: { addressLine1: '1 Test St', city: 'Austin', country: 'US' } } } }),
  },
  listMerchantLocations: { success: async () => ({ path: '/v1/merchantLocation' }) },
  getCurrentUser: { success: async () => ({ path: '/v1/user' }) },
  listScopes: { success: async () => ({ path: '/v1/scope' }) },
  createRole: {
    success: async (ctx) => ({ path: '/v1/role', body: { name: `Conformance ${ctx.runId} ${Math.random().toString(36).slice(2, 8)}`.replace(/[^A-Za-z0-9 _.-]/g, '').slice(0, 100), scopes: ['invoice.read'] } }),
  },
  getRole: {
    success: async (ctx) => ({ path: `/v1/role/${(await fixtureRole(ctx)).id}` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/role/${(await fixtureRole(ctx, key)).id}` }),
  },
  createRestrictedKey: {
    success: async (ctx) => ({ path: `/v1/role/${(await fixtureRole(ctx)).id}/keys`, body: { description: 'conformance' } }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/role/${(await fixtureRole(ctx, key)).id}/keys`, body: {} }),
  },
  revokeRestrictedKey: {
    success: async (ctx) => ({ path: await fixtureRestrictedKeyPath(ctx) }),
    foreign: async (ctx, _info, key) => ({ path: await fixtureRestrictedKeyPath(ctx, key) }),
  },
};

/** A new payment link of the merchant behind `key` (each recipe its own: one is deleted, one deactivated). */
const fixtureLink = async (ctx: ConformanceContext, key?: string, extra: Record<string, unknown> = {}): Promise<{ id: number; identifier: string; code: string }> =>
  commerceJson(ctx, 'createPaymentLink', { method: 'POST', path: '/v1/PaymentLink', body: { name: `Conformance link ${ctx.runId}`, currencyCode: 'USD', unitPrice: '12.50', ...extra } }, key);
const payer = (ctx: ConformanceContext) => ({ email: `conformance+${ctx.runId}@example.com`, firstName: 'Conformance', lastName: 'Payer' });

/** Payment links (issue 16 §1). */
const linkRecipes: Record<string, Recipe> = {
  listPaymentLinks: { success: async () => ({ path: '/v1/PaymentLink', query: { $top: 5, $count: true } }) },
  createPaymentLink: { success: async (ctx) => ({ path: '/v1/PaymentLink', body: { name: `Conformance link ${ctx.runId}`, currencyCode: 'USD', unitPrice: '12.50', taxRate: '5' } }) },
  updatePaymentLink: {
    success: async (ctx) => ({ path: `/v1/PaymentLink/${(await fixtureLink(ctx)).id}`, body: { unitPrice: '13.00' } }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/PaymentLink/${(await fixtureLink(ctx, key)).id}`, body: { unitPrice: '13.00' } }),
  },
  deletePaymentLink: {
    success: async (ctx) => ({ path: `/v1/PaymentLink/${(await fixtureLink(ctx)).id}` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/PaymentLink/${(await fixtureLink(ctx, key)).id}` }),
  },
  activatePaymentLink: {
    success: async (ctx) => ({ path: `/v1/PaymentLink/${(await fixtureLink(ctx, undefined, { status: 'Draft' })).id}/Activate` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/PaymentLink/${(await fixtureLink(ctx, key, { status: 'Draft' })).id}/Activate` }),
  },
  deactivatePaymentLink: {
    success: async (ctx) => ({ path: `/v1/PaymentLink/${(await fixtureLink(ctx)).id}/Deactivate` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/PaymentLink/${(await fixtureLink(ctx, key)).id}/Deactivate` }),
  },
  getPaymentLinkEmbedCode: {
    success: async (ctx) => ({ path: `/v1/PaymentLink/${(await fixtureLink(ctx)).id}/EmbedCode` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/PaymentLink/${(await fixtureLink(ctx, key)).id}/EmbedCode` }),
  },
  getPaymentLinkQrCode: { success: async (ctx) => ({ path: `/v1/PaymentLink/qr/${(await fixtureLink(ctx)).identifier}` }) },
  getPaymentLinkByIdentifier: { success: async (ctx) => ({ path: `/v1/PaymentLink/GetByIdentifier(identifier='${(await fixtureLink(ctx)).identifier}')` }) },
  getPaymentLinkByMerchantSlug: {
    success: async (ctx) => {
      const merchant = await ctx.request('commerce', 'getMerchant', { method: 'GET', path: '/v1/merchant', apiKey: ctx.options.apiKey ?? ctx.options.secretKey });
      if (merchant.status === 501) pendingBecause('needs getMerchant (the merchant\'s slug)');
      const link = await fixtureLink(ctx);
      return { path: `/v1/PaymentLink/GetByMerchantSlug(merchantSlug='${merchant.json?.slug}',code='${link.code}')` };
    },
  },
  createPaymentLinkInvoice: { success: async (ctx) => ({ path: `/v1/PaymentLink/CreateInvoice(identifier='${(await fixtureLink(ctx)).identifier}')`, body: payer(ctx) }) },
  createPaymentLinkSubscription: {
    success: async (ctx) => {
      // The Checkout interface's catalog: the same products and plans as the Commerce one.
      const product = await fixtureProduct(ctx);
      const plan = await created<{ data: { id: number } }>(ctx, 'createPlan', '/v1/plans', { productId: product.id, name: `Conformance link plan ${ctx.runId}`, amount: 19.99, currency: 'USD', interval: 'month' }, ctx.options.secretKey);
      ctx.onCleanup(() => ctx.request('checkout', 'archivePlan', { method: 'DELETE', path: `/v1/plans/${plan.data.id}`, key: ctx.options.secretKey }));
      const link = await fixtureLink(ctx, undefined, { unitPrice: undefined, isSubscriptionBased: true, subscriptionProductId: Number(product.id) });
      return { path: `/v1/PaymentLink/CreateSubscription(identifier='${link.identifier}')`, body: { ...payer(ctx), planId: plan.data.id } };
    },
  },
  sendPaymentLinkVerificationCode: {
    success: async (ctx) => ({ path: `/v1/PaymentLink/SendVerificationCode(identifier='${(await fixtureLink(ctx, undefined, { isEmailVerificationRequired: true })).identifier}')`, body: { email: payer(ctx).email } }),
  },
};

export const recipes: Record<string, Recipe> = {
  ...fundsRecipes,
  ...catalogRecipes,
  ...identityRecipes,
  ...linkRecipes,
  createWebhookConfiguration: {
    success: async (ctx) => {
      const url = `https://conformance-${ctx.runId.toLowerCase()}.till.invalid/hooks`;
      return { path: '/v1/WebhookConfiguration', body: { sandboxUrl: url, subscribedEvents: ['webhook.test'], enabled: false, description: `Conformance ${ctx.runId}` } };
    },
  },
  listWebhookConfigurations: { success: async () => ({ path: '/v1/WebhookConfiguration', query: { limit: 5 } }) },
  retrieveWebhookConfiguration: {
    success: async (ctx) => ({ path: `/v1/WebhookConfiguration/${(await fixtureWebhookConfiguration(ctx)).id}` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/WebhookConfiguration/${(await fixtureWebhookConfiguration(ctx, key)).id}` }),
  },
  updateWebhookConfiguration: {
    success: async (ctx) => ({ path: `/v1/WebhookConfiguration/${(await fixtureWebhookConfiguration(ctx)).id}`, body: { description: `Conformance renamed ${ctx.runId}`, rotateSandboxSecret: true } }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/WebhookConfiguration/${(await fixtureWebhookConfiguration(ctx, key)).id}`, body: { description: 'Not yours' } }),
  },
  deleteWebhookConfiguration: {
    success: async (ctx) => ({ path: `/v1/WebhookConfiguration/${(await fixtureWebhookConfiguration(ctx)).id}` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/WebhookConfiguration/${(await fixtureWebhookConfiguration(ctx, key)).id}` }),
  },
  sendWebhookTestEvent: {
    success: async (ctx) => ({ path: `/v1/WebhookConfiguration/${(await fixtureWebhookConfiguration(ctx)).id}/SendTestEvent`, body: { eventType: 'payment.succeeded' } }),
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
  refundCheckoutSession: { success: async (ctx) => ({ path: `/v1/checkout-sessions/${(await fixturePaid(ctx, 'automatic')).sessionId}/refund`, body: { amount: 10, reason: 'conformance' } }) },
  refundPayment: { success: async (ctx) => ({ path: `/v1/payments/${(await fixturePaid(ctx, 'automatic')).paymentId}/refund`, body: { reason: 'conformance' } }) },
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
  openTestDispute: { success: async (ctx) => ({ path: `/v1/test-helpers/payments/${(await fixturePaid(ctx, 'automatic')).paymentId}/dispute`, body: { reason: 'fraudulent' } }) },
  updateTestDispute: { success: async (ctx) => ({ path: `/v1/test-helpers/disputes/${await fixtureDispute(ctx)}/update`, body: { status: 'UnderReview' } }) },
  closeTestDispute: { success: async (ctx) => ({ path: `/v1/test-helpers/disputes/${await fixtureDispute(ctx)}/close`, body: { outcome: 'Won' } }) },
  retrieveDispute: { success: async (ctx) => ({ path: `/v1/disputes/${await fixtureDispute(ctx)}` }) },
  listDisputes: { success: async () => ({ path: '/v1/disputes' }) },
  listEvents: { success: async () => ({ path: '/v1/events', query: { type: 'checkout.session.*' } }) },
  // Arms a failure on the merchant given, whose clock never moves: no scenario's payout is touched by it.
  failNextTestPayout: { success: async () => ({ path: '/v1/test-helpers/payouts/fail-next', body: { failureReason: 'Conformance: the bank account is closed.' } }) },
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
  payInvoice: { success: async (ctx) => ({ path: '/api/payment/payinvoice', body: { invoiceId: (await fixtureInvoice(ctx)).id, paymentOptionId: 1, card: COMMERCE_CARD } }) },
  createCommercePayment: { success: async () => ({ path: '/v1/payment', body: { amount: 20, currency: 'USD', paymentMethod: 'CreditCard', description: 'Conformance payment', paymentOptionId: 1, card: COMMERCE_CARD } }) },
  getCommercePayment: { success: async (ctx) => ({ path: `/v1/payment/${(await fixturePaid(ctx, 'automatic')).paymentId}` }) },
  captureCommercePayment: { success: async (ctx) => ({ path: `/v1/payment/${await fixtureHold(ctx)}/capture`, body: { amount: 10 } }) },
  simulatePaymentReceived: { success: async (ctx) => ({ path: `/v1/test-helpers/payments/${await fixtureWaitingPayment(ctx)}/receive` }) },
  releasePayment: { success: async (ctx) => ({ path: `/v1/payments/${await fixtureHold(ctx)}/release` }) },
  createInvoice: {
    success: async (ctx) => ({ path: '/v1/invoices', body: { customer: { email: `conformance+${ctx.runId}@example.com` }, currency: 'USD', lineItems: [{ name: 'Conformance', quantity: 1, unitAmount: 10 }], taxRate: 5 } }),
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
      const session = await ctx.request('checkout', 'retrieveCheckoutSession', { method: 'GET', path: `/v1/checkout-sessions/${sessionId}`, key: ctx.options.secretKey });
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
      const pm = await ctx.request('checkout', 'tokenizeCard', { method: 'POST', path: `/v1/checkout-sessions/${s.id}/tokenize`, key, clientSecret: s.clientSecret, body: TEST_CARD });
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
      const v = await ctx.request('checkout', 'verifySavedCard', { method: 'POST', path: `/v1/checkout-sessions/${session.id}/saved-cards/verify`, key, clientSecret: session.clientSecret, body: { paymentMethodId } });
      if (v.status !== 200) throw new Error(`setup: verifySavedCard answered ${v.status}: ${v.text.slice(0, 200)}`);
      return { path: `/v1/checkout-sessions/${session.id}/saved-cards/confirm-otp`, key, clientSecret: session.clientSecret, body: { verificationId: v.json.verificationId, otp: await latestOtp(ctx, phone) } };
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
      const found = await ctx.request('checkout', 'lookupSrcCards', { method: 'POST', path: `/v1/checkout-sessions/${s.id}/src/lookup`, key, clientSecret: s.clientSecret, body: { email: SANDBOX_SRC.email } });
      const srcCardId = found.json?.cards?.[0]?.srcCardId;
      if (typeof srcCardId !== 'string') throw new Error(`setup: lookupSrcCards answered ${found.status}: ${found.text.slice(0, 200)}`);
      return { path: `/v1/checkout-sessions/${s.id}/src/authenticate`, key, clientSecret: s.clientSecret, body: { srcCardId, validationData: SANDBOX_SRC.validationData } };
    },
  },
  listTestMessages: { success: async () => ({ path: '/v1/test-helpers/messages', query: { limit: 5 } }) },
  createCheckoutSession: {
    success: async (ctx) => ({
      path: '/v1/checkout-sessions',
      body: { amount: 19.99, currency: 'USD', mode: 'hosted', paymentType: 'oneTime', successUrl: 'https://shop.example.com/thanks?session={CHECKOUT_SESSION_ID}', metadata: { conformanceRun: ctx.runId } },
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
      body: { productId: (await fixtureProduct(ctx)).id, name: `Conformance ${ctx.runId}`, amount: 19.99, currency: 'USD', interval: 'month', intervalCount: 1 },
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
    success: async (ctx) => ({ path: '/v1/customers', body: { email: `conformance+${ctx.runId}-${Math.random().toString(36).slice(2, 8)}@example.com`, name: 'Conformance' } }),
  },
  listCustomers: { success: async () => ({ path: '/v1/customers', query: { limit: 5 } }) },
  createPortalSession: {
    success: async (ctx) => ({ path: '/v1/portal-sessions', body: { clientId: (await fixtureCustomer(ctx)).id, returnUrl: 'https://shop.example.com/account' } }),
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
    foreign: async (ctx, _info, key) => ({ path: `/v1/subscriptions/${(await fixtureSubscription(ctx, key)).id}/change-plan`, query: { planId: (await fixturePlan(ctx, key)).id } }),
  },
  changeSubscriptionPlan: {
    success: async (ctx) => ({ path: `/v1/subscriptions/${(await fixtureSubscription(ctx)).id}/change-plan`, body: { planId: (await fixturePlan(ctx)).id } }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/subscriptions/${(await fixtureSubscription(ctx, key)).id}/change-plan`, body: { planId: (await fixturePlan(ctx, key)).id } }),
  },
  // Commerce invoices: the Checkout interface's fixture invoice is the same row.
  createCommerceInvoice: {
    success: async (ctx) => ({ path: '/v1/invoice', body: { currencyCode: 'USD', taxRate: 5, sourceInfo: { email: `conformance+${ctx.runId}@example.com` }, items: [{ name: `Conformance ${ctx.runId}`, unitCost: 10, quantity: 2 }] } }),
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
