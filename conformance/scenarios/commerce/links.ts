// Payment links, the merchant's operations (commerce-api.md › Endpoints › Payment links, › Resources and
// their fields › Payment link, › States and transitions): fields, list, update, delete, and the states.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { call, expectError, expectStatus } from '../fixtures/http.js';
import { tag } from '../fixtures/keys.js';
import { card, optionOf, payInvoice, VISA } from '../fixtures/commerce-payments.js';
import { scenario } from '../fixtures/scenario.js';
import { apiKey } from '../fixtures/keys.js';
import {
  activate,
  byIdentifier,
  CONVENTIONS,
  deactivate,
  DECIMAL,
  invoiceFrom,
  keyed,
  LINK,
  LINK_FIELDS,
  LINKS,
  listed,
  newLink,
  OTHER_STATES,
  refused,
  UUID,
} from '../fixtures/payment-links.js';

export const linkOperations: Scenario[] = [
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
    'commerce.links.delete-paid-keeps-invoices',
    'Deleting a link that has been paid deletes it permanently too (204); its invoices stay readable and listed, and an unpaid one can still be paid',
    LINKS,
    [LINK, 'createPaymentLinkInvoice', 'payInvoice', 'deletePaymentLink', 'getCommerceInvoice'],
    async (ctx) => {
      const link = await newLink(ctx, 'delete-paid');
      const [paid, open] = [await invoiceFrom(ctx, link.identifier, 'del-paid-a'), await invoiceFrom(ctx, link.identifier, 'del-paid-b')];
      for (const inv of [paid, open]) expectStatus(inv, 201, 'an invoice from the link');
      const pay = async (id: number) => payInvoice(ctx, { invoiceId: id, paymentOptionId: await optionOf(ctx, id, 'CreditCard', 'Visa'), card: card(VISA) });
      assert.equal((await pay(paid.json.id)).json?.isSuccess, true, 'the first invoice is paid');
      expectStatus(await keyed(ctx, 'deletePaymentLink', 'DELETE', `/v1/PaymentLink/${link.id}`), 204, 'delete the paid link');
      expectError(await byIdentifier(ctx, link.identifier), 404, 'not_found');
      const read = async (id: number) => (await keyed(ctx, 'getCommerceInvoice', 'GET', `/v1/invoice/${id}`)).json;
      assert.equal((await read(paid.json.id))?.status, 'Paid', 'the paid invoice is still there');
      assert.equal((await read(open.json.id))?.description, paid.json.description, "the open invoice keeps the link's name");
      assert.equal((await pay(open.json.id)).json?.isSuccess, true, 'the open invoice can still be paid');
      assert.equal((await read(open.json.id))?.status, 'Paid');
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
];
