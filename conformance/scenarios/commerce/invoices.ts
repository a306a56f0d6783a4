// Commerce invoices (commerce-api.md › Endpoints › Invoices, › Resources and their fields): totals, fields,
// reading by id and by reference, payment methods, the QR code, and the invoice's hosted payment page.
// The list's OData conventions are in invoice-conventions.ts.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { call, describe, expectError, expectStatus } from '../fixtures/http.js';
import { apiKey, emailFor, tag } from '../fixtures/keys.js';
import { scenario } from '../fixtures/scenario.js';
import { byReference, getById, INVOICE, INVOICE_FIELDS, INVOICES, newInvoice, PAYMENT_OPTION, UUID } from '../fixtures/commerce-invoices.js';

export const commerceInvoiceScenarios: Scenario[] = [
  scenario(
    'commerce.invoices.create-totals',
    'Creating an invoice answers it with `id`, `identifier` and calculated totals (subTotal, taxAmount, discount, shippingCost, totalCost, totalDue) from its items',
    INVOICES,
    [INVOICE],
    async (ctx) => {
      const inv = await newInvoice(ctx, 'totals');
      assert.ok(Number.isInteger(inv.id) && inv.id > 0, 'an integer id');
      for (const [field, value] of Object.entries({
        subTotal: 770,
        taxAmount: 68.5,
        discount: 20,
        shippingCost: 12.5,
        totalCost: 831,
        totalDue: 831,
        totalPaid: 0,
      })) {
        assert.equal(inv[field], value, `${field}: ${JSON.stringify(inv)}`);
      }
      assert.equal(inv.status, 'Pending');
    },
  ),
  scenario(
    'commerce.invoices.identifier-uuid',
    'Each invoice gets a public `identifier`, a UUID, for payment links and QR codes',
    INVOICE_FIELDS,
    [INVOICE],
    async (ctx) => {
      const [a, b] = [await newInvoice(ctx, 'uuid-a'), await newInvoice(ctx, 'uuid-b')];
      assert.match(a.identifier, UUID);
      assert.notEqual(a.identifier, b.identifier);
      assert.ok(a.paymentUrl.endsWith(`/invoice/${a.identifier}`), `paymentUrl ${a.paymentUrl}`);
      assert.equal(a.qrCodeUrl, `/v1/invoice/qrcode/${a.identifier}`);
    },
  ),
  scenario(
    'commerce.invoices.item-fields',
    'Invoice items need name, unitCost and quantity, and carry taxRate (percent), taxAmount, subTotal and totalCost; item types are Product, Service, Subscription, Fee, Discount, Tax',
    INVOICE_FIELDS,
    [INVOICE, 'getCommerceInvoice'],
    async (ctx) => {
      const inv = await newInvoice(ctx, 'items');
      const got = await getById(ctx, inv.id);
      expectStatus(got, 200, 'get the invoice');
      assert.deepEqual(
        got.json.items.map((i: any) => [i.name, i.taxRate, i.subTotal, i.taxAmount, i.totalCost, i.invoiceItemTypeId]),
        [
          ['Consulting hours', 10, 600, 60, 660, 'Service'],
          ['USB-C dock', 5, 170, 8.5, 178.5, 'Product'],
        ],
      );
      const missing = await call(ctx, 'commerce', INVOICE, {
        method: 'POST',
        path: '/v1/invoice',
        apiKey: apiKey(ctx),
        body: { currencyCode: 'USD', items: [{ name: 'No price', quantity: 1 }] },
      });
      assert.equal(missing.status, 400, `an item without unitCost: ${describe(missing)}`);
      const discounted = await newInvoice(ctx, 'discount-item', {
        taxRate: 0,
        discount: 0,
        shippingCost: 0,
        items: [
          { name: 'Plan', unitCost: 100, quantity: 1, invoiceItemTypeId: 'Subscription' },
          { name: 'Promo', unitCost: 15, quantity: 1, invoiceItemTypeId: 'Discount' },
        ],
      });
      assert.equal(discounted.totalCost, 85, 'a Discount item counts negatively');
    },
  ),
  scenario(
    'commerce.invoices.counter-party',
    'Payer and payee info carry firstName, lastName and email; a billing address adds addressLine1, city and a two-letter country',
    INVOICE_FIELDS,
    [INVOICE, 'getCommerceInvoice'],
    async (ctx) => {
      const inv = (await getById(ctx, (await newInvoice(ctx, 'party')).id)).json;
      assert.deepEqual(
        [inv.sourceInfo.firstName, inv.sourceInfo.lastName, inv.sourceInfo.email, inv.sourceInfo.addressLine1, inv.sourceInfo.city, inv.sourceInfo.country],
        ['Conformance', 'party', emailFor(ctx, 'party'), '500 Congress Ave', 'Austin', 'US'],
      );
      for (const key of ['firstName', 'lastName', 'email']) assert.ok(key in inv.destinationInfo, `destinationInfo.${key}`);
    },
  ),
  scenario('commerce.invoices.get-by-id', '`GET /v1/invoice/{id}` answers the invoice with the key', INVOICES, [INVOICE, 'getCommerceInvoice'], async (ctx) => {
    const inv = await newInvoice(ctx, 'by-id');
    const got = await getById(ctx, inv.id);
    expectStatus(got, 200, 'get the invoice');
    assert.deepEqual(got.json, inv);
    expectError(await call(ctx, 'commerce', 'getCommerceInvoice', { method: 'GET', path: '/v1/invoice/2147483647', apiKey: apiKey(ctx) }), 404, 'not_found');
  }),
  scenario(
    'commerce.invoices.get-by-reference-public',
    "`getByReference(code='...')` answers the invoice without any key",
    INVOICES,
    [INVOICE, 'getInvoiceByReference'],
    async (ctx) => {
      const inv = await newInvoice(ctx, 'ref');
      const got = await byReference(ctx, inv.code);
      expectStatus(got, 200, 'get by reference without a key');
      assert.equal(got.json.id, inv.id);
      expectStatus(await byReference(ctx, `NO${tag(ctx).slice(-10)}X`), 404, 'an unknown reference');
    },
  ),
  scenario(
    'commerce.invoices.public-code-unguessable',
    "The public code `getByReference` takes is Till's (at least 128 random bits, URL-safe), not the merchant's `referenceNumber`; an unknown code answers 404 `invoice_not_found`",
    INVOICES,
    [INVOICE, 'getInvoiceByReference'],
    async (ctx) => {
      const reference = `CF${tag(ctx).slice(-12)}PUB`;
      const [a, b] = [await newInvoice(ctx, 'code-a', { referenceNumber: reference }), await newInvoice(ctx, 'code-b')];
      for (const inv of [a, b]) {
        assert.match(inv.code ?? '', /^[A-Za-z0-9_-]{22,}$/, `a URL-safe public code of at least 22 characters, got ${JSON.stringify(inv.code)}`);
        assert.ok(Buffer.from(inv.code, 'base64url').length >= 16, 'at least 128 bits');
      }
      assert.notEqual(a.code, b.code, 'each invoice has its own code');
      assert.equal(a.referenceNumber, reference, 'the merchant keeps its referenceNumber');
      assert.equal((await byReference(ctx, a.code)).json?.id, a.id, 'the public code finds the invoice');
      for (const guess of [reference, a.invoiceNumber]) expectError(await byReference(ctx, guess), 404, 'not_found', 'invoice_not_found');
    },
  ),
  scenario(
    'commerce.invoices.get-by-reference-default-expand',
    'Without `$expand`, getByReference answers the merchant with media, source info, destination info, items and merchant location with address',
    INVOICES,
    [INVOICE, 'getInvoiceByReference'],
    async (ctx) => {
      const inv = await newInvoice(ctx, 'expand');
      const got = (await byReference(ctx, inv.code)).json;
      assert.ok(Array.isArray(got.merchant?.media), 'merchant with media');
      assert.ok(got.sourceInfo && got.destinationInfo, 'source and destination info');
      assert.equal(got.items.length, 2, 'items');
      assert.ok('merchantLocation' in got, 'merchant location (null when the merchant has none)');
      if (got.merchantLocation !== null) assert.ok(got.merchantLocation.address, 'a location carries its address');
      expectError(await byReference(ctx, inv.code, { $expand: 'payments' }), 400, 'invalid_request', 'parameter_invalid', '$expand');
    },
  ),
  scenario(
    'commerce.invoices.payment-methods',
    '`GET /v1/invoice/{id}/PaymentMethods` answers `{value: [payment options]}` with id, code, name, paymentMethodId, paymentProviderTypeId, paymentChannel, isEnabled, isVerificationRequired and currencyCode',
    PAYMENT_OPTION,
    [INVOICE, 'listInvoicePaymentMethods'],
    async (ctx) => {
      const inv = await newInvoice(ctx, 'methods');
      const res = await call(ctx, 'commerce', 'listInvoicePaymentMethods', {
        method: 'GET',
        path: `/v1/invoice/${inv.id}/PaymentMethods`,
        apiKey: apiKey(ctx),
      });
      expectStatus(res, 200, 'the payment methods');
      assert.ok(res.json.value.length > 0, 'at least one option');
      for (const option of res.json.value) {
        for (const key of [
          'id',
          'code',
          'name',
          'paymentMethodId',
          'paymentProviderTypeId',
          'paymentChannel',
          'isEnabled',
          'isVerificationRequired',
          'currencyCode',
        ])
          assert.ok(key in option, `${key} in ${JSON.stringify(option)}`);
        assert.equal(option.currencyCode, 'USD');
      }
    },
  ),
  scenario(
    'commerce.invoices.qr-png',
    '`GET /v1/invoice/qrcode/{identifier}` answers a PNG image (`image/png`) without any key',
    INVOICES,
    [INVOICE, 'getInvoiceQrCode'],
    async (ctx) => {
      const inv = await newInvoice(ctx, 'qr');
      const res = await call(ctx, 'commerce', 'getInvoiceQrCode', { method: 'GET', path: `/v1/invoice/qrcode/${inv.identifier}`, apiKey: null, key: null });
      expectStatus(res, 200, 'the QR code');
      assert.equal(res.headers.get('content-type'), 'image/png');
      assert.equal(res.text.slice(1, 4), 'PNG', 'the PNG signature');
    },
  ),
];

export const invoicePaymentPage: Scenario[] = [
  scenario('commerce.invoices.payment-page', 'The public payment page of an invoice is at `/invoice/{identifier}`', INVOICES, [INVOICE], async (ctx) => {
    const inv = await newInvoice(ctx, 'page');
    const path = `/invoice/${inv.identifier}`;
    assert.equal(new URL(inv.paymentUrl).pathname, path, 'paymentUrl is the invoice page');
    // A page, not an API operation: fetched without any key, as a payer's browser does.
    const page = await fetch(new URL(path, ctx.options.baseUrl));
    assert.equal(page.status, 200, `GET ${path}`);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const body = await page.text();
    assert.ok(body.includes(`data-identifier="${inv.identifier}"`), 'the page is of this invoice');
    assert.ok(body.includes('$831.00'), 'the page shows the total, 831.00 USD');
    const unknown = await fetch(new URL('/invoice/00000000-0000-4000-8000-000000000000', ctx.options.baseUrl));
    assert.equal(unknown.status, 404, 'an unknown identifier has no page');
  }),
];
