// The recipes of the Commerce payment links: the merchant's operations and the hosted page's public ones.
import { created, fixtureProduct, type Recipe } from './fixtures.js';
import { pendingBecause } from '../scenarios/fixtures/scenario.js';
import type { ConformanceContext } from '../types.js';
import { commerceJson, onOwnAndForeign } from './commerce-request.js';

/** A new payment link of the merchant behind `key` (each recipe its own: one is deleted, one deactivated). */
export const fixtureLink = async (
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
export const payer = (ctx: ConformanceContext) => ({ email: `conformance+${ctx.runId}@example.com`, firstName: 'Conformance', lastName: 'Payer' });

/** Payment links (issue 16 §1). */
export const linkRecipes: Record<string, Recipe> = {
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
