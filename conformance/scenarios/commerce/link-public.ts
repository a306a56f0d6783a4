// Payment links, the public operations of the hosted page (no key): the QR code, the link by identifier
// or merchant slug, an invoice made through a link and paid, the verification code, and a subscription.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { call, describe, expectError, expectStatus } from '../fixtures/http.js';
import { emailFor, secretKey, tag } from '../fixtures/keys.js';
import { scenario } from '../fixtures/scenario.js';
import { card, optionOf, payInvoice, VISA } from '../fixtures/commerce-payments.js';
import { byIdentifier, invoiceFrom, keyed, LINK, LINK_FIELDS, LINKS, listed, newLink, pub } from '../fixtures/payment-links.js';

export const publicLinkScenarios: Scenario[] = [
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
    'commerce.links.total-net-of-refunds',
    "A link's `totalAmountCollected` is net of refunds: refunding part, then the rest, of a payment made through the link lowers it",
    LINK_FIELDS,
    [LINK, 'createPaymentLinkInvoice', 'listInvoicePaymentMethods', 'payInvoice', 'refundInvoice', 'listPaymentLinks'],
    async (ctx) => {
      const link = await newLink(ctx, 'refunds');
      const invoice = await invoiceFrom(ctx, link.identifier, 'refunds');
      expectStatus(invoice, 201, 'an invoice through the link');
      const id = invoice.json.id;
      const paid = await payInvoice(ctx, { invoiceId: id, paymentOptionId: await optionOf(ctx, id, 'CreditCard', 'Visa'), card: card(VISA) });
      assert.equal(paid.json.isSuccess, true, describe(paid));
      const refund = (body: Record<string, unknown>) =>
        call(ctx, 'checkout', 'refundInvoice', { method: 'POST', path: `/v1/invoices/${id}/refund`, key: secretKey(ctx), body });
      const collected = async () => {
        const now = await listed(ctx, link.id);
        return [now.completedPaymentCount, now.totalAmountCollected];
      };
      assert.deepEqual(await collected(), [1, '26.52']);
      expectStatus(await refund({ amount: 10 }), 200, 'refund 10.00 of the invoice');
      assert.deepEqual(await collected(), [1, '16.52'], 'less the part refunded');
      expectStatus(await refund({}), 200, 'refund the rest');
      assert.deepEqual(await collected(), [1, '0.00'], 'nothing collected once all is refunded');
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
