// The recipes of the Commerce interface: funds, the subscription catalog, identity, payment links.
import { created, fixturePaid, fixtureProduct, fixtureSubscription, type Recipe } from './fixtures.js';
import { pendingBecause } from '../scenarios/fixtures/scenario.js';
import type { ConformanceContext, RequestSpec } from '../types.js';

/** A commerce request of the run's merchant (or of `key`'s): its JSON, or a setup error. */
async function commerceJson(
  ctx: ConformanceContext,
  operationId: string,
  spec: Omit<RequestSpec, 'apiKey'>,
  key = ctx.options.apiKey ?? ctx.options.secretKey,
): Promise<any> {
  const res = await ctx.request('commerce', operationId, { ...spec, apiKey: key });
  if (res.status >= 300) throw new Error(`setup: ${operationId} answered ${res.status}: ${res.text.slice(0, 200)}`);
  return res.json;
}
/**
 * An operation on one object: the run merchant's own (success) and, for the 404 check, one of
 * the merchant behind `key` (foreign), the same request otherwise.
 */
function onOwnAndForeign<T>(
  fixture: (ctx: ConformanceContext, key?: string) => Promise<T>,
  path: (made: T) => string,
  body?: (ctx: ConformanceContext) => unknown,
): Recipe {
  const request = async (ctx: ConformanceContext, key?: string) => ({ path: path(await fixture(ctx, key)), ...(body ? { body: body(ctx) } : {}) });
  return { success: (ctx) => request(ctx), foreign: (ctx, _info, key) => request(ctx, key) };
}

/** The USD wallet account of the merchant behind `key`. */
const fixtureAccount = async (ctx: ConformanceContext, key?: string): Promise<{ id: number }> =>
  (await commerceJson(ctx, 'listAccounts', { method: 'GET', path: '/v1/account' }, key)).value.find((a: { currencyCode: string }) => a.currencyCode === 'USD');
/** A funding source of the merchant behind `key` (the 3-D Secure card: it waits for verification). */
const fixtureFundingSource = async (ctx: ConformanceContext, key?: string): Promise<number> =>
  (
    await commerceJson(
      ctx,
      'registerCard',
      {
        method: 'POST',
        path: '/v1/payment/RegisterCard',
        body: { card: { cardNumber: '4000000000003220', expiryDate: `12/${String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0')}`, cvv: '123' } },
      },
      key,
    )
  ).fundingSourceId;
const BANK_ACCOUNT = 'DE89370400440532013000';

/** The funds operations of the Commerce interface (issue 15 §4). */
const fundsRecipes: Record<string, Recipe> = {
  registerCard: {
    success: async () => ({
      path: '/v1/payment/RegisterCard',
      body: { card: { cardNumber: '4242424242424242', expiryDate: `12/${String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0')}`, cvv: '123' } },
    }),
  },
  listFundingSources: { success: async () => ({ path: '/v1/FundingSource' }) },
  verifyFundingSource: {
    success: async (ctx) => {
      const id = await fixtureFundingSource(ctx);
      const outbox = await ctx.request('checkout', 'listTestMessages', {
        method: 'GET',
        path: '/v1/test-helpers/messages',
        key: ctx.options.secretKey,
        query: { kind: 'otp', limit: 20 },
      });
      const body: string = outbox.json?.data?.find((m: { body: string }) => m.body.includes(`funding source ${id} `))?.body ?? '';
      return { path: `/v1/fundingSource/${id}/verify`, body: { VerificationCode: /is (\d{6})\./.exec(body)?.[1] ?? '000000' } };
    },
    foreign: async (ctx, _info, key) => ({ path: `/v1/fundingSource/${await fixtureFundingSource(ctx, key)}/verify`, body: { VerificationCode: '123456' } }),
  },
  listAccounts: { success: async () => ({ path: '/v1/account' }) },
  getAccountBalance: onOwnAndForeign(fixtureAccount, (a) => `/v1/account/${a.id}/balance`),
  createTransfer: {
    success: async (ctx) => {
      await created(
        ctx,
        'settleTestPayment',
        `/v1/test-helpers/payments/${(await fixturePaid(ctx, 'automatic')).paymentId}/settle`,
        undefined,
        ctx.options.secretKey,
      );
      return {
        path: '/v1/transfer',
        body: {
          sourceAccountId: (await fixtureAccount(ctx)).id,
          destinationAccountNumber: BANK_ACCOUNT,
          amount: 1,
          currencyCode: 'USD',
          transferAction: 'BankTransfer',
        },
      };
    },
    foreign: async (ctx, _info, key) => ({
      path: '/v1/transfer',
      body: {
        sourceAccountId: (await fixtureAccount(ctx, key)).id,
        destinationAccountNumber: BANK_ACCOUNT,
        amount: 1,
        currencyCode: 'USD',
        transferAction: 'BankTransfer',
      },
    }),
  },
  listGatewayTransfers: { success: async () => ({ path: '/v1/GatewayTransferDto', query: { $top: 5, $count: true } }) },
  listTransactions: { success: async () => ({ path: '/v1/transaction', query: { $top: 5 } }) },
  getTransfersDashboard: { success: async () => ({ path: '/v1/FinancialDashboard/transfers', query: { timeUnit: 'Week' } }) },
};

/** A Commerce catalog product of the merchant behind `key`. */
const fixtureCatalogProduct = async (ctx: ConformanceContext, key?: string): Promise<{ id: number }> =>
  commerceJson(
    ctx,
    'createSubscriptionProduct',
    { method: 'POST', path: '/v1/SubscriptionProduct', body: { name: `Conformance product ${ctx.runId}`, subscriptionProductType: 'Physical' } },
    key,
  );
/** A Commerce catalog plan (archived at the end of the run). */
async function fixtureCatalogPlan(ctx: ConformanceContext, key = ctx.options.apiKey ?? ctx.options.secretKey): Promise<{ id: number }> {
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
/** An inventory item of a new catalog product, with a serial number unique to the run. */
const fixtureInventoryItem = async (ctx: ConformanceContext, key?: string): Promise<{ id: number }> =>
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
const catalogRecipes: Record<string, Recipe> = {
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
};

/** A role of the merchant behind `key`, unique to this run, with two read scopes. */
async function fixtureRole(ctx: ConformanceContext, key?: string): Promise<{ id: number }> {
  const name = `Conformance ${ctx.runId} ${Math.random().toString(36).slice(2, 8)}`.replace(/[^A-Za-z0-9 _.-]/g, '').slice(0, 100);
  return commerceJson(ctx, 'createRole', { method: 'POST', path: '/v1/role', body: { name, scopes: ['user.read', 'invoice.read'] } }, key);
}
/** A restricted key of a new role of the merchant behind `key`: the path that revokes it. */
async function fixtureRestrictedKeyPath(ctx: ConformanceContext, key?: string): Promise<string> {
  const role = await fixtureRole(ctx, key);
  const made = await commerceJson(
    ctx,
    'createRestrictedKey',
    { method: 'POST', path: `/v1/role/${role.id}/keys`, body: { description: `conformance ${ctx.runId}`.slice(0, 200) } },
    key,
  );
  return `/v1/role/${role.id}/keys/${made.id}`;
}

/** The merchant, its locations, the user, roles, scopes and restricted keys (issue 16 §4). */
const identityRecipes: Record<string, Recipe> = {
  getMerchant: { success: async () => ({ path: '/v1/merchant' }) },
  createMerchant: {
    // Each run makes one merchant more (named for the run): Till has no way to delete one.
    success: async (ctx) => ({
      path: '/v1/merchant',
      body: {
        name: `Conformance ${ctx.runId}`.slice(0, 200),
        email: 'conformance@example.com',
        country: 'US',
        location: { address: { addressLine1: '1 Test St', city: 'Austin', country: 'US' } },
      },
    }),
  },
  listMerchantLocations: { success: async () => ({ path: '/v1/merchantLocation' }) },
  getCurrentUser: { success: async () => ({ path: '/v1/user' }) },
  listScopes: { success: async () => ({ path: '/v1/scope' }) },
  createRole: {
    success: async (ctx) => ({
      path: '/v1/role',
      body: {
        name: `Conformance ${ctx.runId} ${Math.random().toString(36).slice(2, 8)}`.replace(/[^A-Za-z0-9 _.-]/g, '').slice(0, 100),
        scopes: ['invoice.read'],
      },
    }),
  },
  getRole: onOwnAndForeign(fixtureRole, (role) => `/v1/role/${role.id}`),
  createRestrictedKey: onOwnAndForeign(
    fixtureRole,
    (role) => `/v1/role/${role.id}/keys`,
    () => ({ description: 'conformance' }),
  ),
  revokeRestrictedKey: onOwnAndForeign(fixtureRestrictedKeyPath, (path) => path),
};

/** A new payment link of the merchant behind `key` (each recipe its own: one is deleted, one deactivated). */
const fixtureLink = async (
  ctx: ConformanceContext,
  key?: string,
  extra: Record<string, unknown> = {},
): Promise<{ id: number; identifier: string; code: string }> =>
  commerceJson(
    ctx,
    'createPaymentLink',
    { method: 'POST', path: '/v1/PaymentLink', body: { name: `Conformance link ${ctx.runId}`, currencyCode: 'USD', unitPrice: '12.50', ...extra } },
    key,
  );
const payer = (ctx: ConformanceContext) => ({ email: `conformance+${ctx.runId}@example.com`, firstName: 'Conformance', lastName: 'Payer' });

/** Payment links (issue 16 §1). */
const linkRecipes: Record<string, Recipe> = {
  listPaymentLinks: { success: async () => ({ path: '/v1/PaymentLink', query: { $top: 5, $count: true } }) },
  createPaymentLink: {
    success: async (ctx) => ({
      path: '/v1/PaymentLink',
      body: { name: `Conformance link ${ctx.runId}`, currencyCode: 'USD', unitPrice: '12.50', taxRate: '5' },
    }),
  },
  updatePaymentLink: onOwnAndForeign(
    fixtureLink,
    (link) => `/v1/PaymentLink/${link.id}`,
    () => ({ unitPrice: '13.00' }),
  ),
  deletePaymentLink: onOwnAndForeign(fixtureLink, (link) => `/v1/PaymentLink/${link.id}`),
  activatePaymentLink: onOwnAndForeign(
    (ctx, key) => fixtureLink(ctx, key, { status: 'Draft' }),
    (link) => `/v1/PaymentLink/${link.id}/Activate`,
  ),
  deactivatePaymentLink: onOwnAndForeign(fixtureLink, (link) => `/v1/PaymentLink/${link.id}/Deactivate`),
  getPaymentLinkEmbedCode: onOwnAndForeign(fixtureLink, (link) => `/v1/PaymentLink/${link.id}/EmbedCode`),
  getPaymentLinkQrCode: { success: async (ctx) => ({ path: `/v1/PaymentLink/qr/${(await fixtureLink(ctx)).identifier}` }) },
  getPaymentLinkByIdentifier: { success: async (ctx) => ({ path: `/v1/PaymentLink/GetByIdentifier(identifier='${(await fixtureLink(ctx)).identifier}')` }) },
  getPaymentLinkByMerchantSlug: {
    success: async (ctx) => {
      const merchant = await ctx.request('commerce', 'getMerchant', {
        method: 'GET',
        path: '/v1/merchant',
        apiKey: ctx.options.apiKey ?? ctx.options.secretKey,
      });
      if (merchant.status === 501) pendingBecause("needs getMerchant (the merchant's slug)");
      const link = await fixtureLink(ctx);
      return { path: `/v1/PaymentLink/GetByMerchantSlug(merchantSlug='${merchant.json?.slug}',code='${link.code}')` };
    },
  },
  createPaymentLinkInvoice: {
    success: async (ctx) => ({ path: `/v1/PaymentLink/CreateInvoice(identifier='${(await fixtureLink(ctx)).identifier}')`, body: payer(ctx) }),
  },
  createPaymentLinkSubscription: {
    success: async (ctx) => {
      // The Checkout interface's catalog: the same products and plans as the Commerce one.
      const product = await fixtureProduct(ctx);
      const plan = await created<{ data: { id: number } }>(
        ctx,
        'createPlan',
        '/v1/plans',
        { productId: product.id, name: `Conformance link plan ${ctx.runId}`, amount: 19.99, currency: 'USD', interval: 'month' },
        ctx.options.secretKey,
      );
      ctx.onCleanup(() => ctx.request('checkout', 'archivePlan', { method: 'DELETE', path: `/v1/plans/${plan.data.id}`, key: ctx.options.secretKey }));
      const link = await fixtureLink(ctx, undefined, { unitPrice: undefined, isSubscriptionBased: true, subscriptionProductId: Number(product.id) });
      return { path: `/v1/PaymentLink/CreateSubscription(identifier='${link.identifier}')`, body: { ...payer(ctx), planId: plan.data.id } };
    },
  },
  sendPaymentLinkVerificationCode: {
    success: async (ctx) => ({
      path: `/v1/PaymentLink/SendVerificationCode(identifier='${(await fixtureLink(ctx, undefined, { isEmailVerificationRequired: true })).identifier}')`,
      body: { email: payer(ctx).email },
    }),
  },
};

/** Every Commerce recipe. */
export const commerceRecipes: Record<string, Recipe> = { ...fundsRecipes, ...catalogRecipes, ...identityRecipes, ...linkRecipes };
