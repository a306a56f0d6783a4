// The Commerce interface's platform rules (commerce-api.md › Authentication, › Versioning, › Events,
// › Endpoints): the `x-api-key` header, public operations without a key, case-insensitive paths,
// numeric ids, the `/v1` and `/api/payment` prefixes, sending an invoice, and the notification
// hub's `InvoiceUpdated` heard with the official SignalR client, as a merchant's server hears it.
import assert from 'node:assert/strict';
import { HttpTransportType, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import type { ConformanceContext, Scenario } from '../../types.js';
import { call, expectError, expectStatus, sleep } from '../fixtures/http.js';
import { apiKey, emailFor } from '../fixtures/keys.js';
import { COMMERCE_DOC, scenario, source } from '../fixtures/scenario.js';

const INVOICE = 'createCommerceInvoice';
const LINK = 'createPaymentLink';
const PAY = [INVOICE, 'listInvoicePaymentMethods', 'payInvoice'];
const AUTH = source(COMMERCE_DOC, 'Authentication');
const CATALOG = source(COMMERCE_DOC, 'Endpoints', 'Subscription catalog');
const VERSIONING = source(COMMERCE_DOC, 'Versioning');
const EVENTS = source(COMMERCE_DOC, 'Events');
const OTHER_OPS = source(COMMERCE_DOC, 'Endpoints', 'Other listed operations');

const plans = (ctx: ConformanceContext, path: string, keys: { apiKey?: string | null; key?: string | null }) =>
  call(ctx, 'commerce', 'listSubscriptionPlans', { method: 'GET', path, apiKey: keys.apiKey ?? null, key: keys.key ?? null, query: { $top: 1 } });

async function newInvoice(ctx: ConformanceContext, label: string): Promise<{ id: number; identifier: string; code: string }> {
  const body = {
    currencyCode: 'USD',
    sourceInfo: { firstName: 'Conformance', lastName: label, email: emailFor(ctx, label) },
    items: [{ name: 'Consulting hours', unitCost: 150, quantity: 2 }],
  };
  const res = await call(ctx, 'commerce', INVOICE, { method: 'POST', path: '/v1/invoice', apiKey: apiKey(ctx), body });
  expectStatus(res, 201, 'create an invoice');
  return res.json;
}

async function newLink(
  ctx: ConformanceContext,
  label: string,
  extra: Record<string, unknown> = {},
): Promise<{ id: number; identifier: string; notificationUrl?: string; notificationSecret?: string }> {
  const body = { name: `Conformance ${label} ${ctx.runId.slice(-8)}`, currencyCode: 'USD', unitPrice: '24.50', productName: 'Beans 1 kg', ...extra };
  const res = await call(ctx, 'commerce', LINK, { method: 'POST', path: '/v1/PaymentLink', apiKey: apiKey(ctx), body });
  expectStatus(res, 201, 'create a payment link');
  return res.json;
}

const card = () => ({
  name: 'Conformance Payer',
  cardNumber: '4242424242424242',
  expiryDate: `12/${String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0')}`,
  cvv: '123',
});
const payByCard = (ctx: ConformanceContext, invoiceId: number, path = '/api/payment/payinvoice') =>
  call(ctx, 'commerce', 'payInvoice', { method: 'POST', path, apiKey: apiKey(ctx), body: { invoiceId, paymentOptionId: 1, card: card() } });

/** The hub's `InvoiceUpdated` events of one merchant connection, with a wait for one of them. */
async function listen(ctx: ConformanceContext) {
  const connection = new HubConnectionBuilder()
    .withUrl(new URL('/hubs/notifications', ctx.options.commerceBaseUrl ?? ctx.options.baseUrl).toString(), {
      transport: HttpTransportType.WebSockets,
      accessTokenFactory: () => apiKey(ctx),
    })
    .configureLogging(LogLevel.None)
    .build();
  const heard: { invoiceId: number; status: string }[] = [];
  connection.on('InvoiceUpdated', (event: { invoiceId: number; status: string }) => heard.push(event));
  await connection.start();
  const waitFor = async (invoiceId: number, status: string) => {
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; await sleep(100)) {
      if (heard.some((e) => e.invoiceId === invoiceId && e.status === status)) return;
    }
    assert.fail(`the hub sent no InvoiceUpdated {invoiceId: ${invoiceId}, status: '${status}'} within 15 s; heard ${JSON.stringify(heard)}`);
  };
  return { heard, waitFor, stop: () => connection.stop() };
}

export const commercePlatformScenarios: Scenario[] = [
  scenario(
    'commerce.auth.x-api-key',
    'The Commerce interface authenticates with the `x-api-key` header (sandbox keys start `sk_test_`); without it a KEY operation is refused with 401',
    AUTH,
    ['listSubscriptionPlans'],
    async (ctx) => {
      assert.match(apiKey(ctx), /^sk_test_/, 'the suite runs with a sandbox key');
      expectStatus(await plans(ctx, '/v1/SubscriptionPlan', { apiKey: apiKey(ctx) }), 200, 'a KEY operation with x-api-key');
      expectError(await plans(ctx, '/v1/SubscriptionPlan', {}), 401, 'authentication', 'authentication_required');
      expectError(await plans(ctx, '/v1/SubscriptionPlan', { apiKey: 'sk_test_notakey000000000000000000' }), 401, 'authentication', 'invalid_api_key');
    },
  ),
  scenario(
    'commerce.auth.bearer-not-accepted',
    'A Bearer `Authorization` header alone does not authenticate a Commerce operation',
    AUTH,
    ['listSubscriptionPlans'],
    async (ctx) => {
      const res = await plans(ctx, '/v1/SubscriptionPlan', { key: apiKey(ctx) });
      expectError(res, 401, 'authentication');
    },
  ),
  scenario(
    'commerce.auth.public-operations',
    'PUBLIC operations (invoice by reference, invoice QR code, hosted payment-link operations) need no authentication',
    AUTH,
    [INVOICE, 'getInvoiceByReference', 'getInvoiceQrCode', LINK, 'getPaymentLinkByIdentifier', 'getPaymentLinkQrCode'],
    async (ctx) => {
      const inv = await newInvoice(ctx, 'public');
      const byReference = await call(ctx, 'commerce', 'getInvoiceByReference', {
        method: 'GET',
        path: `/v1/invoice/getByReference(code='${inv.code}')`,
        apiKey: null,
        key: null,
      });
      expectStatus(byReference, 200, 'the invoice by reference, without a key');
      assert.equal(byReference.json.id, inv.id);
      const qr = await call(ctx, 'commerce', 'getInvoiceQrCode', { method: 'GET', path: `/v1/invoice/qrcode/${inv.identifier}`, apiKey: null, key: null });
      expectStatus(qr, 200, 'the invoice QR code, without a key');
      assert.match(qr.headers.get('content-type') ?? '', /^image\/png/);
      const link = await newLink(ctx, 'public');
      const byIdentifier = await call(ctx, 'commerce', 'getPaymentLinkByIdentifier', {
        method: 'GET',
        path: `/v1/PaymentLink/GetByIdentifier(identifier='${link.identifier}')`,
        apiKey: null,
        key: null,
      });
      expectStatus(byIdentifier, 200, 'the payment link by identifier, without a key');
      const linkQr = await call(ctx, 'commerce', 'getPaymentLinkQrCode', {
        method: 'GET',
        path: `/v1/PaymentLink/qr/${link.identifier}`,
        apiKey: null,
        key: null,
      });
      expectStatus(linkQr, 200, 'the payment link QR code, without a key');
    },
  ),
  scenario('commerce.events.link-notification-url', 'Payment links carry `notificationUrl` for payment webhooks', EVENTS, [LINK], async (ctx) => {
    const url = `https://hooks.example.com/till/events-${ctx.runId.slice(-8).toLowerCase()}`;
    const link = await newLink(ctx, 'events', { notificationUrl: url });
    assert.equal(link.notificationUrl, url, 'the link keeps its notificationUrl');
    assert.equal(typeof link.notificationSecret, 'string', 'and answers the secret that signs what goes there, once');
  }),
  scenario(
    'commerce.paths.case-insensitive',
    'Commerce paths match case-insensitively (`/v1/subscriptionPlan` is `/v1/SubscriptionPlan`)',
    CATALOG,
    ['listSubscriptionPlans', 'createSubscriptionProduct'],
    async (ctx) => {
      const product = await call(ctx, 'commerce', 'createSubscriptionProduct', {
        method: 'POST',
        path: '/v1/subscriptionproduct',
        apiKey: apiKey(ctx),
        body: { name: `Conformance case ${ctx.runId}`, subscriptionProductType: 'Service' },
      });
      expectStatus(product, 201, 'POST /v1/subscriptionproduct (lower case)');
      for (const path of ['/v1/SubscriptionPlan', '/v1/subscriptionPlan', '/V1/SUBSCRIPTIONPLAN'])
        expectStatus(await plans(ctx, path, { apiKey: apiKey(ctx) }), 200, `GET ${path}`);
    },
  ),
  scenario(
    'commerce.paths.id-numbers',
    'Path `id` parameters are numbers; a non-number is refused with 400',
    CATALOG,
    ['updateSubscriptionPlan'],
    async (ctx) => {
      for (const id of ['abc', '1.5', '-1']) {
        const res = await call(ctx, 'commerce', 'updateSubscriptionPlan', {
          method: 'PATCH',
          path: `/v1/SubscriptionPlan/${id}`,
          apiKey: apiKey(ctx),
          body: { name: 'x' },
        });
        expectStatus(res, 400, `PATCH /v1/SubscriptionPlan/${id}`);
      }
    },
  ),
  scenario(
    'commerce.versioning.v1-and-api-payment',
    'Paths use the `/v1` prefix, except payment operations under `/api/payment`',
    VERSIONING,
    [...PAY],
    async (ctx) => {
      const inv = await newInvoice(ctx, 'prefix');
      const methods = await call(ctx, 'commerce', 'listInvoicePaymentMethods', {
        method: 'GET',
        path: `/v1/invoice/${inv.id}/PaymentMethods`,
        apiKey: apiKey(ctx),
      });
      expectStatus(methods, 200, 'a /v1 operation');
      const paid = await payByCard(ctx, inv.id);
      expectStatus(paid, 200, 'POST /api/payment/payinvoice');
      assert.equal(paid.json.isSuccess, true, 'the sandbox Visa card pays');
      const wrongPrefix = await call(ctx, 'commerce', 'payInvoice', {
        method: 'POST',
        path: '/v1/payment/payinvoice',
        apiKey: apiKey(ctx),
        body: { invoiceId: inv.id, paymentOptionId: 1, card: card() },
      });
      assert.equal(wrongPrefix.status, 404, `payinvoice is not under /v1: got ${wrongPrefix.status}`);
    },
  ),
  scenario(
    'commerce.events.invoice-updated-paid',
    'The notification hub `/hubs/notifications` emits `InvoiceUpdated` with invoiceId and status `Paid` when an invoice is paid',
    EVENTS,
    [...PAY],
    async (ctx) => {
      const hub = await listen(ctx);
      try {
        const inv = await newInvoice(ctx, 'hub');
        const paid = await payByCard(ctx, inv.id);
        assert.equal(paid.json.isSuccess, true, 'the sandbox Visa card pays');
        await hub.waitFor(inv.id, 'Paid');
      } finally {
        await hub.stop();
      }
    },
  ),
  scenario(
    'commerce.other.send-invoice',
    '`POST /v1/invoice/{id}/send` sends an invoice (status Sent)',
    OTHER_OPS,
    [INVOICE, 'sendCommerceInvoice', 'getCommerceInvoice'],
    async (ctx) => {
      const inv = await newInvoice(ctx, 'send');
      const sent = await call(ctx, 'commerce', 'sendCommerceInvoice', { method: 'POST', path: `/v1/invoice/${inv.id}/send`, apiKey: apiKey(ctx) });
      expectStatus(sent, 200, 'send the invoice');
      const read = await call(ctx, 'commerce', 'getCommerceInvoice', { method: 'GET', path: `/v1/invoice/${inv.id}`, apiKey: apiKey(ctx) });
      expectStatus(read, 200, 'read it back');
      assert.equal(read.json.status, 'Sent');
    },
  ),
];
