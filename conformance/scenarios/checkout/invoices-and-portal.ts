// Invoices and customer-portal sessions (checkout-billing-api.md › Other scoped operations).
import assert from 'node:assert/strict';
import type { ConformanceContext, Scenario } from '../../types.js';
import { postCustomer } from '../fixtures/catalog.js';
import { call, envelopeData, expectError, expectStatus, rawFetch } from '../fixtures/http.js';
import { emailFor, otherSecretKey, secretKey } from '../fixtures/keys.js';
import { MESSAGES, PAY_CARD, SESSION } from '../fixtures/operations.js';
import { pending } from '../fixtures/scenario.js';
import { OTHER_SCOPED } from '../fixtures/sections.js';

const createPortalSession = (ctx: ConformanceContext, body: unknown, key = secretKey(ctx)) => call(ctx, 'checkout', 'createPortalSession', { method: 'POST', path: '/v1/portal-sessions', key, body });

async function customerOf(ctx: ConformanceContext, label: string, key = secretKey(ctx)): Promise<any> {
  const res = await postCustomer(ctx, { email: emailFor(ctx, label) }, key);
  return envelopeData(res, res.status === 201 ? 201 : 200, `create the ${label} customer`);
}

export const invoicesAndPortal: Scenario[] = [
  pending('checkout.invoices.create', '`POST /v1/invoices` creates an invoice (scope `invoice.create`)', OTHER_SCOPED, ['createCustomer', 'createInvoice']),
  pending('checkout.invoices.by-reference', '`GET /v1/invoices?reference=` finds the invoice of a pay-link reference', OTHER_SCOPED, ['createInvoice', 'listInvoices']),
  pending('checkout.invoices.retrieve', '`GET /v1/invoices/{id}` answers the invoice; another merchant\'s answers 404', OTHER_SCOPED, ['createInvoice', 'retrieveInvoice']),
  pending('checkout.invoices.pdf', '`GET /v1/invoices/{id}/pdf` answers the invoice as a PDF document', OTHER_SCOPED, ['createInvoice', 'getInvoicePdf']),
  pending('checkout.invoices.send', '`POST /v1/invoices/{id}/send` emails the invoice (scope `invoice.update`)', OTHER_SCOPED, ['createInvoice', 'sendInvoice', MESSAGES]),
  pending('checkout.invoices.void', '`POST /v1/invoices/{id}/void` voids an unpaid invoice; it can no longer be paid', OTHER_SCOPED, ['createInvoice', 'voidInvoice', SESSION]),
  pending('checkout.invoices.refund', '`POST /v1/invoices/{id}/refund` refunds the invoice\'s payment (scope `invoice.refund`)', OTHER_SCOPED, ['createInvoice', ...PAY_CARD, 'refundInvoice']),
  {
    id: 'checkout.portal.create',
    title: '`POST /v1/portal-sessions` creates a customer-portal session for a customer `clientId`: 201 with its URL, open one hour',
    source: OTHER_SCOPED,
    requires: ['createCustomer', 'createPortalSession'],
    serverOnly: true,
    async run(ctx) {
      const customer = await customerOf(ctx, 'portal');
      const res = await createPortalSession(ctx, { clientId: customer.id, returnUrl: 'https://shop.example.com/account' });
      expectStatus(res, 201, 'create a portal session');
      assert.equal(res.json.object, 'portal_session');
      assert.equal(res.json.clientId, customer.id, 'the session is for the customer asked for');
      assert.equal(res.json.returnUrl, 'https://shop.example.com/account');
      assert.equal(Date.parse(res.json.expiresAt) - Date.parse(res.json.createdAt), 3_600_000, 'open one hour after creation');
      const page = await rawFetch(ctx, 'GET', new URL(res.json.url).pathname);
      expectStatus(page, 200, 'the portal page opens');
      assert.match(page.headers.get('content-type') ?? '', /text\/html/);
      const forged = await rawFetch(ctx, 'GET', `/portal/pt_${'A'.repeat(43)}`);
      expectStatus(forged, 404, 'a made-up portal link opens nothing');
    },
  },
  {
    id: 'checkout.portal.needs-client',
    title: 'A portal session needs a customer `clientId` of the merchant; without one, or with another merchant\'s, it is refused',
    source: OTHER_SCOPED,
    requires: ['createCustomer', 'createPortalSession'],
    serverOnly: true,
    async run(ctx) {
      expectError(await createPortalSession(ctx, {}), 400, 'invalid_request', undefined, 'clientId');
      const foreign = await customerOf(ctx, 'portal-foreign', otherSecretKey(ctx));
      expectError(await createPortalSession(ctx, { clientId: foreign.id }), 400, 'invalid_request', 'validation_error', 'clientId');
    },
  },
];
