// Payment links (commerce-api.md › Endpoints › Payment links, › Resources and their fields ›
// Payment link, › States and transitions): the merchant's operations, the public ones of the
// hosted page, and an invoice made through a link and paid.
import assert from 'node:assert/strict';
import type { ConformanceContext, HttpResult, Scenario } from '../../types.js';
import { call, describe, expectError, expectStatus } from '../fixtures/http.js';
import { emailFor, tag } from '../fixtures/keys.js';
import { COMMERCE_DOC, scenario, source } from '../fixtures/scenario.js';
import { card, optionOf, payInvoice, VISA } from '../fixtures/commerce-payments.js';
import { apiKey } from '../fixtures/keys.js';

const LINK = 'createPaymentLink';
const CONVENTIONS = source(COMMERCE_DOC, 'Resources and their fields', 'Conventions');
const LINK_FIELDS = source(COMMERCE_DOC, 'Resources and their fields', 'Payment link');
const OTHER_STATES = source(COMMERCE_DOC, 'States and transitions', 'Other status values');
const LINKS = source(COMMERCE_DOC, 'Endpoints', 'Payment links');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DECIMAL = /^-?[0-9]+(\.[0-9]+)?$/;

/** A fixed-price link of this run: 24.50 USD at 8.25 % tax (26.52 a payment). */
async function newLink(ctx: ConformanceContext, label: string, extra: Record<string, unknown> = {}): Promise<any> {
  const body = {
    name: `Conformance ${label} ${tag(ctx).slice(-8)}`,
    currencyCode: 'USD',
    unitPrice: '24.50',
    taxRate: '8.25',
    productName: 'Beans 1 kg',
    ...extra,
  };
  const res = await call(ctx, 'commerce', LINK, { method: 'POST', path: '/v1/PaymentLink', apiKey: apiKey(ctx), body });
  expectStatus(res, 201, 'create a payment link');
  return res.json;
}

const pub = (ctx: ConformanceContext, operationId: string, method: string, path: string, body?: unknown): Promise<HttpResult> =>
  call(ctx, 'commerce', operationId, { method, path, apiKey: null, key: null, ...(body === undefined ? {} : { body }) });
const byIdentifier = (ctx: ConformanceContext, identifier: string) =>
  pub(ctx, 'getPaymentLinkByIdentifier', 'GET', `/v1/PaymentLink/GetByIdentifier(identifier='${identifier}')`);
const invoiceFrom = (ctx: ConformanceContext, identifier: string, label: string, extra: Record<string, unknown> = {}) =>
  pub(ctx, 'createPaymentLinkInvoice', 'POST', `/v1/PaymentLink/CreateInvoice(identifier='${identifier}')`, {
    email: emailFor(ctx, label),
    firstName: 'Conformance',
    lastName: label,
    ...extra,
  });
const keyed = (ctx: ConformanceContext, operationId: string, method: string, path: string, body?: unknown) =>
  call(ctx, 'commerce', operationId, { method, path, apiKey: apiKey(ctx), ...(body === undefined ? {} : { body }) });
const activate = (ctx: ConformanceContext, id: number) => keyed(ctx, 'activatePaymentLink', 'POST', `/v1/PaymentLink/${id}/Activate`);
const deactivate = (ctx: ConformanceContext, id: number) => keyed(ctx, 'deactivatePaymentLink', 'POST', `/v1/PaymentLink/${id}/Deactivate`);
const listed = async (ctx: ConformanceContext, id: number) => {
  const res = await call(ctx, 'commerce', 'listPaymentLinks', {
    method: 'GET',
    path: '/v1/PaymentLink',
    apiKey: apiKey(ctx),
    query: { $filter: `id eq ${id}` },
  });
  expectStatus(res, 200, 'list the link');
  assert.equal(res.json.value.length, 1, `the link ${id} in the list`);
  return res.json.value[0];
};
/** 409 `invalid_state`: the link takes no payments now. */
const refused = (res: HttpResult, what: string) => {
  assert.equal(res.status, 409, `${what}: ${describe(res)}`);
  assert.equal(res.json?.error?.code, 'invalid_state', `${what}: ${describe(res)}`);
};

export const linkScenarios: Scenario[] = [
  scenario(
    'commerce.links.create',
    'Creating a payment link answers it with `code`, `identifier` (UUID), `paymentUrl`, `qrCodeUrl`, `embedCode` and `status`',
    LINKS,
    [LINK],
    async (ctx) => {
      const [a, b] = [await newLink(ctx, 'create-a'), await newLink(ctx, 'create-b')];
      assert.match(a.code, /^[A-Za-z0-9_-]{1,50}$/);
      assert.notEqual(a.code, b.code, 'codes are unique');
      assert.match(a.identifier, UUID);
      assert.notEqual(a.identifier, b.identifier);
      for (const field of ['paymentUrl', 'qrCodeUrl', 'embedCode']) assert.equal(typeof a[field], 'string', field);
      assert.equal(a.status, 'Active');
    },
  ),
  scenario(
    'commerce.links.decimal-strings',
    'Payment link amounts (unitPrice, quantity, taxRate, taxAmount, totalAmountCollected) are decimal strings',
    CONVENTIONS,
    [LINK],
    async (ctx) => {
      const link = await newLink(ctx, 'decimals');
      for (const field of ['unitPrice', 'quantity', 'taxRate', 'taxAmount', 'totalAmountCollected'])
        assert.match(link[field], DECIMAL, `${field} is a decimal string: ${JSON.stringify(link[field])}`);
      assert.deepEqual([link.unitPrice, link.taxRate, link.taxAmount], ['24.50', '8.25', '2.02']);
    },
  ),
  scenario(
    'commerce.links.urls',
    '`paymentUrl` is the hosted page URL ending in the identifier and `qrCodeUrl` is `/v1/PaymentLink/qr/{identifier}`',
    LINK_FIELDS,
    [LINK],
    async (ctx) => {
      const link = await newLink(ctx, 'urls');
      assert.ok(link.paymentUrl.endsWith(`/${link.identifier}`), `paymentUrl ${link.paymentUrl}`);
      assert.doesNotThrow(() => new URL(link.paymentUrl), 'paymentUrl is absolute');
      assert.equal(link.qrCodeUrl, `/v1/PaymentLink/qr/${link.identifier}`);
    },
  ),
  scenario(
    'commerce.links.embed-code',
    '`embedCode` is an HTML snippet; `GET /v1/PaymentLink/{id}/EmbedCode` answers embedCode and paymentUrl',
    LINKS,
    [LINK, 'getPaymentLinkEmbedCode'],
    async (ctx) => {
      const link = await newLink(ctx, 'embed', { callToActionText: 'Buy beans' });
      assert.match(link.embedCode, /^<a\s[^>]*href="[^"]+"[^>]*>Buy beans<\/a>$/, `embedCode ${link.embedCode}`);
      assert.ok(link.embedCode.includes(link.paymentUrl), 'the snippet opens the hosted page');
      const res = await keyed(ctx, 'getPaymentLinkEmbedCode', 'GET', `/v1/PaymentLink/${link.id}/EmbedCode`);
      expectStatus(res, 200, 'get the embed code');
      assert.deepEqual(res.json, { embedCode: link.embedCode, paymentUrl: link.paymentUrl });
    },
  ),
  scenario(
    'commerce.links.analytics',
    'Each link carries clickCount, invoiceCount, completedPaymentCount and totalAmountCollected',
    LINK_FIELDS,
    [LINK, 'listPaymentLinks', 'getPaymentLinkByIdentifier', 'createPaymentLinkInvoice'],
    async (ctx) => {
      const link = await newLink(ctx, 'analytics');
      assert.deepEqual([link.clickCount, link.invoiceCount, link.completedPaymentCount, link.totalAmountCollected], [0, 0, 0, '0.00']);
      expectStatus(await byIdentifier(ctx, link.identifier), 200, 'open the link');
      expectStatus(await invoiceFrom(ctx, link.identifier, 'analytics'), 201, 'an invoice through the link');
      const after = await listed(ctx, link.id);
      assert.deepEqual([after.clickCount, after.invoiceCount, after.completedPaymentCount], [1, 1, 0]);
    },
  ),
  scenario(
    'commerce.links.max-uses-null-unlimited',
    '`maxUses` and `maxUsesPerCustomer` null mean unlimited',
    LINK_FIELDS,
    [LINK, 'createPaymentLinkInvoice'],
    async (ctx) => {
      const link = await newLink(ctx, 'unlimited');
      assert.deepEqual([link.maxUses, link.maxUsesPerCustomer], [null, null]);
      for (let i = 0; i < 3; i++) expectStatus(await invoiceFrom(ctx, link.identifier, 'unlimited'), 201, `invoice ${i + 1} for one payer`);
      const capped = await newLink(ctx, 'capped', { maxUses: 3, maxUsesPerCustomer: 1 });
      assert.deepEqual([capped.maxUses, capped.maxUsesPerCustomer], [3, 1]);
    },
  ),
  scenario(
    'commerce.links.notification-url',
    "A link's `notificationUrl` is a webhook URL kept on the link",
    LINK_FIELDS,
    [LINK, 'listPaymentLinks'],
    async (ctx) => {
      const url = `https://hooks.example.com/till/${tag(ctx).slice(-8)}`;
      const link = await newLink(ctx, 'notify', { notificationUrl: url });
      assert.equal(link.notificationUrl, url);
      assert.match(link.notificationSecret ?? '', /.{16,}/, 'a generated secret, answered once');
      const after = await listed(ctx, link.id);
      assert.equal(after.notificationUrl, url);
      assert.ok(!('notificationSecret' in after), 'the secret is answered only at creation');
      expectError(
        await call(ctx, 'commerce', LINK, {
          method: 'POST',
          path: '/v1/PaymentLink',
          apiKey: apiKey(ctx),
          body: { name: 'Private hook', currencyCode: 'USD', unitPrice: '1', notificationUrl: 'https://10.0.0.1/hook' },
        }),
        400,
        'invalid_request',
        'parameter_invalid',
        'notificationUrl',
      );
    },
  ),
  scenario(
    'commerce.links.list',
    '`GET /v1/PaymentLink` answers `value`, with `@odata.count` when `$count=true`, and takes $filter, $orderby, $top and $skip',
    LINKS,
    [LINK, 'listPaymentLinks'],
    async (ctx) => {
      const name = `List ${tag(ctx).slice(-10)}`;
      const ids: number[] = [];
      for (const n of [1, 2, 3]) ids.push((await newLink(ctx, 'list', { name: `${name} ${n}` })).id);
      const res = await call(ctx, 'commerce', 'listPaymentLinks', {
        method: 'GET',
        path: '/v1/PaymentLink',
        apiKey: apiKey(ctx),
        query: { $filter: `startswith(name, '${name}')`, $orderby: 'id asc', $top: 2, $skip: 1, $count: true },
      });
      expectStatus(res, 200, 'list the links');
      assert.equal(res.json['@odata.count'], 3);
      assert.deepEqual(
        res.json.value.map((l: { id: number }) => l.id),
        ids.slice(1),
      );
      const plain = await call(ctx, 'commerce', 'listPaymentLinks', { method: 'GET', path: '/v1/PaymentLink', apiKey: apiKey(ctx), query: { $top: 1 } });
      assert.ok(Array.isArray(plain.json.value) && !('@odata.count' in plain.json), 'no count unless asked');
    },
  ),
  scenario(
    'commerce.links.update-only-provided',
    'Updating a link changes only the fields sent; the others keep their values',
    LINKS,
    [LINK, 'updatePaymentLink', 'getPaymentLinkByIdentifier'],
    async (ctx) => {
      const link = await newLink(ctx, 'update', { description: 'Before' });
      const res = await keyed(ctx, 'updatePaymentLink', 'PATCH', `/v1/PaymentLink/${link.id}`, { unitPrice: '26.00' });
      expectStatus(res, 200, 'update the price');
      const got = (await byIdentifier(ctx, link.identifier)).json;
      assert.deepEqual(
        [got.unitPrice, got.description, got.name, got.taxRate, got.code, got.paymentUrl],
        ['26.00', 'Before', link.name, '8.25', link.code, link.paymentUrl],
      );
    },
  ),
  scenario(
    'commerce.links.delete-permanent',
    'Deleting a link is permanent: its public operations answer 404 afterwards',
    LINKS,
    [LINK, 'deletePaymentLink', 'getPaymentLinkByIdentifier'],
    async (ctx) => {
      const link = await newLink(ctx, 'delete');
      expectStatus(await keyed(ctx, 'deletePaymentLink', 'DELETE', `/v1/PaymentLink/${link.id}`), 204, 'delete the link');
      expectError(await byIdentifier(ctx, link.identifier), 404, 'not_found');
      expectError(await invoiceFrom(ctx, link.identifier, 'deleted'), 404, 'not_found');
      expectError(await keyed(ctx, 'deletePaymentLink', 'DELETE', `/v1/PaymentLink/${link.id}`), 404, 'not_found');
    },
  ),
  scenario(
    'commerce.links.activate-draft',
    'Activate makes a draft link accept payments',
    OTHER_STATES,
    [LINK, 'activatePaymentLink', 'createPaymentLinkInvoice'],
    async (ctx) => {
      const link = await newLink(ctx, 'draft-activate', { status: 'Draft' });
      const res = await activate(ctx, link.id);
      expectStatus(res, 200, 'activate the draft');
      assert.equal(res.json.status, 'Active');
      expectStatus(await invoiceFrom(ctx, link.identifier, 'draft-activate'), 201, 'an invoice once active');
    },
  ),
  scenario(
    'commerce.links.activate-inactive',
    'Activate makes an inactive (deactivated) link accept payments again',
    OTHER_STATES,
    [LINK, 'deactivatePaymentLink', 'activatePaymentLink', 'createPaymentLinkInvoice'],
    async (ctx) => {
      const link = await newLink(ctx, 'reactivate');
      expectStatus(await deactivate(ctx, link.id), 200, 'deactivate');
      refused(await invoiceFrom(ctx, link.identifier, 'reactivate'), 'an inactive link');
      assert.equal((await activate(ctx, link.id)).json.status, 'Active');
      expectStatus(await invoiceFrom(ctx, link.identifier, 'reactivate'), 201, 'an invoice once active again');
    },
  ),
  scenario(
    'commerce.links.deactivate',
    'Deactivate makes an active link unavailable to customers (CreateInvoice refused)',
    OTHER_STATES,
    [LINK, 'deactivatePaymentLink', 'createPaymentLinkInvoice'],
    async (ctx) => {
      const link = await newLink(ctx, 'deactivate');
      const res = await deactivate(ctx, link.id);
      expectStatus(res, 200, 'deactivate');
      assert.equal(res.json.status, 'Inactive');
      refused(await invoiceFrom(ctx, link.identifier, 'deactivate'), 'an inactive link');
    },
  ),
  scenario(
    'commerce.links.draft-not-payable',
    'A draft link does not accept payments until activated',
    OTHER_STATES,
    [LINK, 'createPaymentLinkInvoice'],
    async (ctx) => {
      const link = await newLink(ctx, 'draft', { status: 'Draft' });
      assert.equal(link.status, 'Draft');
      refused(await invoiceFrom(ctx, link.identifier, 'draft'), 'a draft link');
    },
  ),
  scenario(
    'commerce.links.qr-public',
    '`GET /v1/PaymentLink/qr/{identifier}` answers the QR image without any key',
    LINKS,
    [LINK, 'getPaymentLinkQrCode'],
    async (ctx) => {
      const link = await newLink(ctx, 'qr');
      const res = await pub(ctx, 'getPaymentLinkQrCode', 'GET', link.qrCodeUrl);
      expectStatus(res, 200, 'the QR code without a key');
      assert.equal(res.headers.get('content-type'), 'image/png');
      assert.ok(res.text.slice(0, 8).includes('PNG'), 'PNG bytes');
    },
  ),
  scenario(
    'commerce.links.get-by-identifier-public',
    "`GetByIdentifier(identifier='...')` answers the link without any key",
    LINKS,
    [LINK, 'getPaymentLinkByIdentifier'],
    async (ctx) => {
      const link = await newLink(ctx, 'public');
      const res = await byIdentifier(ctx, link.identifier);
      expectStatus(res, 200, 'the link without a key');
      assert.deepEqual([res.json.id, res.json.code, res.json.unitPrice], [link.id, link.code, '24.50']);
      expectError(await byIdentifier(ctx, '00000000-0000-4000-8000-000000000000'), 404, 'not_found');
    },
  ),
  scenario(
    'commerce.links.get-by-merchant-slug-public',
    "`GetByMerchantSlug(merchantSlug='...',code='...')` answers the link without any key (vanity URLs)",
    LINKS,
    [LINK, 'getMerchant', 'getPaymentLinkByMerchantSlug'],
    async (ctx) => {
      const link = await newLink(ctx, 'slug');
      const merchant = await keyed(ctx, 'getMerchant', 'GET', '/v1/merchant');
      expectStatus(merchant, 200, 'the merchant (its slug)');
      const res = await pub(
        ctx,
        'getPaymentLinkByMerchantSlug',
        'GET',
        `/v1/PaymentLink/GetByMerchantSlug(merchantSlug='${merchant.json.slug}',code='${link.code}')`,
      );
      expectStatus(res, 200, 'the link by slug and code without a key');
      assert.equal(res.json.identifier, link.identifier);
    },
  ),
  scenario(
    'commerce.links.create-invoice',
    "`CreateInvoice(identifier='...')` with email, firstName and lastName creates, without any key, an invoice payable through the payment endpoint",
    LINKS,
    [LINK, 'createPaymentLinkInvoice', 'listInvoicePaymentMethods', 'payInvoice', 'listPaymentLinks'],
    async (ctx) => {
      const link = await newLink(ctx, 'invoice');
      const res = await invoiceFrom(ctx, link.identifier, 'invoice');
      expectStatus(res, 201, 'an invoice through the link');
      assert.equal(res.json.status, 'Pending');
      assert.equal(res.json.totalCost, 26.52);
      assert.equal(res.json.sourceInfo.email, emailFor(ctx, 'invoice'));
      const paid = await payInvoice(ctx, { invoiceId: res.json.id, paymentOptionId: await optionOf(ctx, res.json.id, 'CreditCard', 'Visa'), card: card(VISA) });
      expectStatus(paid, 200, 'pay the invoice');
      assert.equal(paid.json.isSuccess, true, describe(paid));
      const after = await listed(ctx, link.id);
      assert.deepEqual([after.completedPaymentCount, after.totalAmountCollected], [1, '26.52']);
    },
  ),
  scenario(
    'commerce.links.send-verification-code',
    "`SendVerificationCode(identifier='...')` with email answers tokenId, message, expiresAt and email for a link that requires email verification",
    LINKS,
    [LINK, 'sendPaymentLinkVerificationCode', 'createPaymentLinkInvoice'],
    async (ctx) => {
      const link = await newLink(ctx, 'verify', { isEmailVerificationRequired: true });
      const email = emailFor(ctx, 'verify');
      const res = await pub(ctx, 'sendPaymentLinkVerificationCode', 'POST', `/v1/PaymentLink/SendVerificationCode(identifier='${link.identifier}')`, { email });
      expectStatus(res, 200, 'send a code');
      assert.equal(typeof res.json.tokenId, 'string');
      assert.equal(typeof res.json.message, 'string');
      assert.equal(res.json.email, email);
      assert.ok(Date.parse(res.json.expiresAt) > Date.now(), 'expiresAt is ahead');
      expectError(await invoiceFrom(ctx, link.identifier, 'verify'), 400, 'invalid_request', 'parameter_missing');
      // The code is random: this one is wrong but once in a million runs.
      expectError(
        await invoiceFrom(ctx, link.identifier, 'verify', { verificationTokenId: res.json.tokenId, verificationCode: '999999' }),
        400,
        'invalid_request',
        'verification_code_invalid',
      );
    },
  ),
  scenario(
    'commerce.links.create-subscription',
    "`CreateSubscription(identifier='...')` with email, firstName, lastName and planId creates a subscription with billing details for a subscription-type link",
    LINKS,
    ['createSubscriptionProduct', 'createSubscriptionPlan', LINK, 'createPaymentLinkSubscription'],
    async (ctx) => {
      const product = await keyed(ctx, 'createSubscriptionProduct', 'POST', '/v1/SubscriptionProduct', { name: `Conformance cloud ${tag(ctx).slice(-8)}` });
      expectStatus(product, 201, 'create a subscription product');
      const plan = await keyed(ctx, 'createSubscriptionPlan', 'POST', '/v1/SubscriptionPlan', {
        productId: product.json.id,
        name: 'Pro monthly',
        amount: '19.99',
        currency: 'USD',
        timeUnit: 'Month',
        timeInterval: 1,
      });
      expectStatus(plan, 201, 'create a plan of the product');
      const link = await newLink(ctx, 'subscription', {
        unitPrice: undefined,
        taxRate: undefined,
        isSubscriptionBased: true,
        subscriptionProductId: product.json.id,
      });
      assert.deepEqual([link.linkType, link.isSubscriptionBased], ['Subscription', true]);
      const res = await pub(ctx, 'createPaymentLinkSubscription', 'POST', `/v1/PaymentLink/CreateSubscription(identifier='${link.identifier}')`, {
        email: emailFor(ctx, 'subscription'),
        firstName: 'Conformance',
        lastName: 'Subscriber',
        planId: plan.json.id,
      });
      expectStatus(res, 201, 'start a subscription through the link');
      assert.equal(res.json.subscription.status, 'Pending', 'pending its first payment');
      assert.equal(res.json.subscription.planId, plan.json.id);
      assert.equal(res.json.invoice?.status, 'Pending', 'its first invoice, to pay');
      assert.deepEqual(
        [res.json.billing.planId, res.json.billing.amount, res.json.billing.amountDueNow, res.json.billing.currency],
        [plan.json.id, '19.99', '19.99', 'USD'],
      );
      const plain = await newLink(ctx, 'not-subscription');
      expectError(
        await pub(ctx, 'createPaymentLinkSubscription', 'POST', `/v1/PaymentLink/CreateSubscription(identifier='${plain.identifier}')`, {
          email: emailFor(ctx, 'subscription'),
          firstName: 'C',
          lastName: 'S',
          planId: plan.json.id,
        }),
        400,
        'invalid_request',
        'validation_error',
      );
    },
  ),
];
