// The recipes of invoices, on the Checkout interface and on the Commerce one (the same fixture invoice).
import { type Recipe } from './fixtures.js';
import { commerceJson } from './commerce-request.js';
import type { ConformanceContext } from '../types.js';
import { fixtureInvoice, fixturePaid } from './payment-fixtures.js';

/** The fixture invoice's public code (the Commerce view shows it; the merchant's `reference` is no public key). */
async function publicCode(ctx: ConformanceContext): Promise<string> {
  const { id } = await fixtureInvoice(ctx);
  return (await commerceJson(ctx, 'getCommerceInvoice', { method: 'GET', path: `/v1/invoice/${id}` })).code;
}

export const invoiceRecipes: Record<string, Recipe> = {
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
  // The payer's rejection (a test helper), of a new invoice of its own: the rejected one is paid by nothing after it.
  rejectTestInvoice: {
    success: async (ctx) => ({ path: `/v1/test-helpers/invoices/${(await fixtureInvoice(ctx)).id}/reject` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/test-helpers/invoices/${(await fixtureInvoice(ctx, key)).id}/reject` }),
  },
};

/** Commerce invoices: the Checkout interface's fixture invoice is the same row. */
export const commerceInvoiceRecipes: Record<string, Recipe> = {
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
  getInvoiceByReference: { success: async (ctx) => ({ path: `/v1/invoice/getByReference(code='${await publicCode(ctx)}')` }) },
  listInvoicePaymentMethods: {
    success: async (ctx) => ({ path: `/v1/invoice/${(await fixtureInvoice(ctx)).id}/PaymentMethods` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/invoice/${(await fixtureInvoice(ctx, key)).id}/PaymentMethods` }),
  },
  sendCommerceInvoice: {
    success: async (ctx) => ({ path: `/v1/invoice/${(await fixtureInvoice(ctx)).id}/send` }),
    foreign: async (ctx, _info, key) => ({ path: `/v1/invoice/${(await fixtureInvoice(ctx, key)).id}/send` }),
  },
  getInvoiceQrCode: { success: async (ctx) => ({ path: `/v1/invoice/qrcode/${(await fixtureInvoice(ctx)).identifier}` }) },
};
