// Invoices and customer-portal sessions (checkout-billing-api.md › Other scoped operations).
import assert from 'node:assert/strict';
import type { ConformanceContext, Scenario } from '../../types.js';
import { postCustomer } from '../fixtures/catalog.js';
import { call, describe, envelopeData, expectError, expectStatus, rawFetch } from '../fixtures/http.js';
import { emailFor, otherSecretKey, secretKey } from '../fixtures/keys.js';
import { MESSAGES, PAY_CARD, SESSION } from '../fixtures/operations.js';
import { OTHER_SCOPED } from '../fixtures/sections.js';
import { newSession, payByCard, postSession } from '../fixtures/sessions.js';
import { newInvoice as newInvoiceOf } from '../fixtures/invoices.js';

/** A new invoice of 42.50 USD for a payer of this run. */
async function newInvoice(ctx: ConformanceContext, label: string): Promise<any> {
  const body = {
    customer: { email: emailFor(ctx, label), firstName: 'Conformance' },
    currency: 'USD',
    lineItems: [{ name: 'Conformance check', quantity: 1, unitAmount: 42.5 }],
  };
  const res = await call(ctx, 'checkout', 'createInvoice', { method: 'POST', path: '/v1/invoices', key: secretKey(ctx), body });
  expectStatus(res, 201, 'create an invoice');
  return res.json;
}

const invoiceOp = (ctx: ConformanceContext, operationId: string, method: string, id: number, suffix: string, body?: unknown) =>
  call(ctx, 'checkout', operationId, { method, path: `/v1/invoices/${id}/${suffix}`, key: secretKey(ctx), ...(body === undefined ? {} : { body }) });

const createPortalSession = (ctx: ConformanceContext, body: unknown, key = secretKey(ctx)) =>
  call(ctx, 'checkout', 'createPortalSession', { method: 'POST', path: '/v1/portal-sessions', key, body });

async function customerOf(ctx: ConformanceContext, label: string, key = secretKey(ctx)): Promise<any> {
  const res = await postCustomer(ctx, { email: emailFor(ctx, label) }, key);
  return envelopeData(res, res.status === 201 ? 201 : 200, `create the ${label} customer`);
}

export const invoicesAndPortal: Scenario[] = [
  {
    id: 'checkout.invoices.create',
    title: '`POST /v1/invoices` creates an invoice (scope `invoice.create`)',
    source: OTHER_SCOPED,
    requires: ['createCustomer', 'createInvoice'],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx, 'create');
      assert.equal(invoice.object, 'invoice');
      assert.equal(invoice.status, 'pending', 'a new invoice is payable (pending)');
      assert.equal(invoice.currency, 'USD');
      assert.equal(invoice.total, 42.5, 'the total is the lines');
      assert.equal(invoice.amountDue, 42.5, 'nothing paid yet');
      assert.equal(invoice.customer.email, emailFor(ctx, 'create'));
      assert.deepEqual(
        invoice.lineItems.map((l: any) => [l.name, l.quantity, l.unitAmount]),
        [['Conformance check', 1, 42.5]],
      );
      for (const field of ['invoiceNumber', 'reference', 'identifier']) assert.ok(typeof invoice[field] === 'string' && invoice[field] !== '', `${field}`);
      const customer = await customerOf(ctx, 'invoice-customer');
      const forCustomer = await call(ctx, 'checkout', 'createInvoice', {
        method: 'POST',
        path: '/v1/invoices',
        key: secretKey(ctx),
        body: { customerId: customer.id, currency: 'USD', lineItems: [{ name: 'Conformance check', quantity: 2, unitAmount: 5 }] },
      });
      expectStatus(forCustomer, 201, 'create an invoice for a customer');
      assert.equal(forCustomer.json.customerId, customer.id);
      assert.equal(forCustomer.json.total, 10);
      assert.notEqual(forCustomer.json.reference, invoice.reference, 'each invoice has its own reference');
      const both = await call(ctx, 'checkout', 'createInvoice', {
        method: 'POST',
        path: '/v1/invoices',
        key: secretKey(ctx),
        body: { customerId: customer.id, customer: { email: emailFor(ctx, 'both') }, currency: 'USD', lineItems: [{ name: 'x', quantity: 1, unitAmount: 5 }] },
      });
      expectError(both, 400, 'invalid_request', 'validation_error');
    },
  },
  {
    id: 'checkout.invoices.by-reference',
    title: '`GET /v1/invoices?reference=` finds the invoice of a pay-link reference',
    source: OTHER_SCOPED,
    requires: ['createInvoice', 'listInvoices'],
    serverOnly: true,
    async run(ctx) {
      const wanted = await newInvoice(ctx, 'by-reference');
      await newInvoice(ctx, 'by-reference-other');
      const byReference = (reference: string) =>
        call(ctx, 'checkout', 'listInvoices', { method: 'GET', path: '/v1/invoices', key: secretKey(ctx), query: { reference } });
      const found = await byReference(wanted.reference);
      expectStatus(found, 200, 'list by reference');
      assert.equal(found.json.object, 'list');
      assert.deepEqual(
        found.json.data.map((i: any) => i.id),
        [wanted.id],
        'exactly the invoice of that reference',
      );
      if (wanted.invoiceNumber !== wanted.reference) {
        const byNumber = await byReference(wanted.invoiceNumber);
        expectStatus(byNumber, 200, 'list by the display number');
        assert.deepEqual(byNumber.json.data, [], 'the display invoice number is not a reference');
      }
    },
  },
  {
    id: 'checkout.invoices.retrieve',
    title: "`GET /v1/invoices/{id}` answers the invoice; another merchant's answers 404",
    source: OTHER_SCOPED,
    requires: ['createInvoice', 'retrieveInvoice'],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx, 'retrieve');
      const get = (id: number) => call(ctx, 'checkout', 'retrieveInvoice', { method: 'GET', path: `/v1/invoices/${id}`, key: secretKey(ctx) });
      const read = await get(invoice.id);
      expectStatus(read, 200, 'retrieve the invoice');
      for (const field of ['id', 'reference', 'identifier', 'invoiceNumber', 'status', 'total', 'amountDue', 'currency'])
        assert.deepEqual(read.json[field], invoice[field], `${field} as created`);
      const theirs = await newInvoiceOf(ctx, 'USD', await otherSecretKey(ctx));
      const foreign = await get(theirs.id);
      expectError(foreign, 404, 'not_found');
      expectError(await get(2147483000), 404, 'not_found', foreign.json.error.code);
    },
  },
  {
    id: 'checkout.invoices.pdf',
    title: '`GET /v1/invoices/{id}/pdf` answers the invoice as a PDF document (`application/pdf`, `%PDF-`), as an attachment named after its number',
    source: OTHER_SCOPED,
    requires: ['createInvoice', 'getInvoicePdf'],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx, 'pdf');
      const res = await invoiceOp(ctx, 'getInvoicePdf', 'GET', invoice.id, 'pdf');
      expectStatus(res, 200, 'the PDF');
      assert.match(res.headers.get('content-type') ?? '', /^application\/pdf/, `content type: ${describe(res)}`);
      assert.ok(res.text.startsWith('%PDF-'), 'the body is a PDF file');
      assert.equal(res.headers.get('content-disposition'), `attachment; filename="${invoice.invoiceNumber}.pdf"`);
    },
  },
  {
    id: 'checkout.invoices.send',
    title:
      '`POST /v1/invoices/{id}/send` emails the invoice with its pay link: `sent`; a cancelled invoice answers 409 `invalid_state` (scope `invoice.update`)',
    source: OTHER_SCOPED,
    requires: ['createInvoice', 'sendInvoice', 'voidInvoice', MESSAGES],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx, 'send');
      const sent = await invoiceOp(ctx, 'sendInvoice', 'POST', invoice.id, 'send');
      expectStatus(sent, 200, 'send the invoice');
      assert.equal(sent.json.status, 'sent');
      const messages = await call(ctx, 'checkout', 'listTestMessages', {
        method: 'GET',
        path: '/v1/test-helpers/messages',
        key: secretKey(ctx),
        query: { to: emailFor(ctx, 'send') },
      });
      expectStatus(messages, 200, 'the test outbox');
      assert.ok(
        messages.json.data.some((m: { body: string }) => m.body.includes(invoice.hostedUrl)),
        'the email carries the link to pay the invoice',
      );
      const other = await newInvoice(ctx, 'send-void');
      expectStatus(await invoiceOp(ctx, 'voidInvoice', 'POST', other.id, 'void'), 200, 'void the invoice');
      expectError(await invoiceOp(ctx, 'sendInvoice', 'POST', other.id, 'send'), 409, 'conflict', 'invalid_state');
    },
  },
  {
    id: 'checkout.invoices.void',
    title: '`POST /v1/invoices/{id}/void` voids an unpaid invoice; it can no longer be paid',
    source: OTHER_SCOPED,
    requires: ['createInvoice', 'voidInvoice', 'retrieveInvoice', SESSION],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx, 'void');
      expectStatus(await postSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id }), 201, 'the unpaid invoice is payable first');
      const voided = await invoiceOp(ctx, 'voidInvoice', 'POST', invoice.id, 'void');
      expectStatus(voided, 200, 'void the invoice');
      assert.equal(voided.json.status, 'cancelled', 'a voided invoice reads cancelled');
      assert.ok(voided.json.voidedAt && Number.isFinite(Date.parse(voided.json.voidedAt)), 'voidedAt is set');
      const read = await call(ctx, 'checkout', 'retrieveInvoice', { method: 'GET', path: `/v1/invoices/${invoice.id}`, key: secretKey(ctx) });
      assert.equal(read.json.status, 'cancelled', 'the void is kept');
      expectError(await postSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id }), 409, 'conflict', 'invoice_not_payable');
      expectError(
        await postSession(ctx, { amount: undefined, currency: undefined, invoiceReference: invoice.reference }),
        409,
        'conflict',
        'invoice_not_payable',
      );
    },
  },
  {
    id: 'checkout.invoices.refund',
    title:
      "`POST /v1/invoices/{id}/refund` refunds the invoice's payment in part, then the rest; more than is left answers 400 `validation_error` (scope `invoice.refund`)",
    source: OTHER_SCOPED,
    requires: ['createInvoice', ...PAY_CARD, 'refundInvoice'],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx, 'refund');
      const nothing = await invoiceOp(ctx, 'refundInvoice', 'POST', invoice.id, 'refund', {});
      expectStatus(nothing, 409, 'refund an unpaid invoice');
      assert.equal(nothing.json?.errorCode, 'nothing_to_refund');
      await payByCard(ctx, await newSession(ctx, { invoiceId: invoice.id, amount: undefined, currency: undefined }));
      const part = await invoiceOp(ctx, 'refundInvoice', 'POST', invoice.id, 'refund', { amount: 10 });
      expectStatus(part, 200, 'refund 10');
      assert.equal(part.json.refundAmount, 10);
      assert.equal(part.json.amountRefundable, 32.5);
      const tooMuch = await invoiceOp(ctx, 'refundInvoice', 'POST', invoice.id, 'refund', { amount: 40 });
      expectStatus(tooMuch, 400, 'refund more than is left');
      assert.equal(tooMuch.json?.errorCode, 'validation_error');
      const rest = await invoiceOp(ctx, 'refundInvoice', 'POST', invoice.id, 'refund', {});
      expectStatus(rest, 200, 'refund the rest');
      assert.equal(rest.json.amountRefunded, 42.5);
      assert.equal(rest.json.refunds[0].status, 'refunded');
    },
  },
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
    title: "A portal session needs a customer `clientId` of the merchant; without one, or with another merchant's, it is refused",
    source: OTHER_SCOPED,
    requires: ['createCustomer', 'createPortalSession'],
    serverOnly: true,
    async run(ctx) {
      expectError(await createPortalSession(ctx, {}), 400, 'invalid_request', undefined, 'clientId');
      const foreign = await customerOf(ctx, 'portal-foreign', await otherSecretKey(ctx));
      expectError(await createPortalSession(ctx, { clientId: foreign.id }), 400, 'invalid_request', 'validation_error', 'clientId');
    },
  },
];
