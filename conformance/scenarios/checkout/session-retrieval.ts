// Reading a checkout session: retrieval fields (the refund object included), status polling, and
// the confirm and tokenize answers.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { expectStatus } from '../fixtures/http.js';
import { emailFor, publishableKey } from '../fixtures/keys.js';
import { HOLD, PAY_CARD, PAY_QR, RETRIEVE, SESSION, STATUS, SUBSCRIBE } from '../fixtures/operations.js';
import { pending, pendingBecause } from '../fixtures/scenario.js';
import { CARD_OBJECTS, CONFIRM_RESULT, POLLING, RETRIEVAL } from '../fixtures/sections.js';
import { getSessionStatus, newHoldSession, newSession, refundSession, retrieveSession } from '../fixtures/sessions.js';
import { paidSubscription, postSubscriptionSession, subscriptionOf, subscriptionParts } from '../fixtures/subscriptions.js';
import { newQrPaidSession } from '../fixtures/wallet.js';

export const sessionRetrieval: Scenario[] = [
  {
    id: 'checkout.sessions.retrieve.fields',
    title:
      'Retrieval answers sessionId, status, amount, currency, payer fields, resolved notifyCustomer/sendReceipt, allowGuestSavedCards, paymentType `one_time`, mode, expiresAt, merchantName, merchantLogoUrl, allowedPaymentMethods, successUrl, cancelUrl, clientId, subscriptionId, invoiceId and refund',
    source: RETRIEVAL,
    requires: [SESSION, RETRIEVE],
    serverOnly: true,
    async run(ctx) {
      const payer = { customerEmail: emailFor(ctx, 'fields'), customerFirstName: 'Ana', customerLastName: 'Silva', customerPhone: '+15555550100' };
      const s = await newSession(ctx, {
        ...payer,
        amount: 42.5,
        currency: 'USD',
        mode: 'hosted',
        successUrl: 'https://shop.example.com/thanks',
        cancelUrl: 'https://shop.example.com/cart',
        notifyCustomer: true,
        sendReceipt: false,
      });
      const r = await retrieveSession(ctx, s.id);
      assert.equal(r.sessionId, s.id, 'sessionId is the session id');
      assert.equal(r.status, 'created', 'a new session reads created');
      assert.equal(r.amount, 42.5);
      assert.equal(r.currency, 'USD');
      for (const [field, value] of Object.entries(payer)) assert.equal(r[field], value, field);
      assert.equal(r.notifyCustomer, true, 'notifyCustomer as sent');
      assert.equal(r.sendReceipt, false, 'sendReceipt as sent');
      assert.equal(typeof r.allowGuestSavedCards, 'boolean', 'allowGuestSavedCards is a boolean');
      assert.equal(r.paymentType, 'one_time', 'retrieval spells paymentType one_time');
      assert.equal(r.mode, 'hosted');
      assert.equal(Date.parse(r.expiresAt), Date.parse(s.expiresAt), 'expiresAt as at creation');
      assert.equal(typeof r.merchantName, 'string', 'merchantName is a string');
      assert.ok(r.merchantLogoUrl === null || typeof r.merchantLogoUrl === 'string', 'merchantLogoUrl is a string or null');
      assert.ok(r.allowedPaymentMethods === null || Array.isArray(r.allowedPaymentMethods), 'allowedPaymentMethods is a list or null');
      assert.equal(r.successUrl, 'https://shop.example.com/thanks');
      assert.equal(r.cancelUrl, 'https://shop.example.com/cart');
      assert.equal(r.clientId, null, 'no customer on a one-time session without clientId');
      assert.equal(r.subscriptionId, null, 'no subscription on a one-time session');
      assert.equal(r.invoiceId ?? null, null, 'invoiceId is present (null until an invoice is made)');
      assert.ok('invoiceId' in r, 'invoiceId is present');
      assert.ok(r.refund && typeof r.refund === 'object', 'refund is an object');
      // Without the flags, the merchant settings apply; retrieval reports the resolved value.
      const defaults = await retrieveSession(ctx, (await newSession(ctx)).id);
      assert.equal(typeof defaults.notifyCustomer, 'boolean', 'notifyCustomer is resolved to a boolean');
      assert.equal(typeof defaults.sendReceipt, 'boolean', 'sendReceipt is resolved to a boolean');
    },
  },
  {
    id: 'checkout.sessions.retrieve.subscription-id-after-confirm',
    title: '`subscriptionId` is set once a subscription session is confirmed',
    source: RETRIEVAL,
    requires: [...SUBSCRIBE],
    serverOnly: true,
    async run(ctx) {
      publishableKey(ctx);
      const parts = await subscriptionParts(ctx, 'subscription id after confirm');
      const open = await postSubscriptionSession(ctx, { subscriptionPlanId: parts.plan.id, clientId: parts.customer.id });
      expectStatus(open, 201, 'create a subscription session');
      const before = await retrieveSession(ctx, open.json.id);
      assert.equal(before.subscriptionId, null, 'no subscriptionId before confirm');
      assert.equal(before.paymentType, 'subscription', 'retrieval reads paymentType subscription');
      assert.equal(before.clientId, parts.customer.id, 'retrieval shows the clientId');
      const { subscriptionId } = await paidSubscription(ctx, '', parts);
      assert.equal((await subscriptionOf(ctx, subscriptionId)).id, subscriptionId, 'the subscriptionId can be retrieved');
    },
  },
  {
    id: 'checkout.sessions.retrieve.refund-unpaid',
    title: 'For an unpaid session the `refund` object says not refundable (reason `no_payment` or `not_paid`), manualRefundRequired false',
    source: RETRIEVAL,
    requires: [SESSION, RETRIEVE],
    serverOnly: true,
    async run(ctx) {
      const { refund } = await retrieveSession(ctx, (await newSession(ctx)).id);
      assert.equal(refund.refundable, false, 'an unpaid session is not refundable');
      assert.ok(['no_payment', 'not_paid'].includes(refund.reason), `reason must be no_payment or not_paid, got ${JSON.stringify(refund.reason)}`);
      assert.equal(refund.manualRefundRequired, false, 'no manual refund is needed');
      assert.equal(typeof refund.message, 'string', 'message is text');
      assert.equal(refund.lastAttempt, null, 'no refund was attempted');
    },
  },
  pending(
    'checkout.sessions.retrieve.refund-refundable',
    'For a paid card session the `refund` object says refundable true, reason `refundable`, lastAttempt null',
    RETRIEVAL,
    [...PAY_CARD, RETRIEVE],
  ),
  pending(
    'checkout.sessions.retrieve.refund-already-refunded',
    'After a full refund the `refund` object reads reason `already_refunded` and refundable false, with lastAttempt {outcome, attemptedAt, attempts}',
    RETRIEVAL,
    [...PAY_CARD, RETRIEVE, 'refundCheckoutSession'],
  ),
  {
    id: 'checkout.sessions.retrieve.refund-pending',
    title: 'While a wallet refund is under way the `refund` object reads reason `refund_pending`',
    source: RETRIEVAL,
    requires: [...PAY_QR, RETRIEVE, 'refundCheckoutSession'],
    serverOnly: true,
    async run(ctx) {
      const s = await newQrPaidSession(ctx);
      const res = await refundSession(ctx, s);
      expectStatus(res, 200, 'refund the wallet payment');
      if (res.json.status !== 'pending_reversal') pendingBecause(`the wallet refund finished at once (${res.json.status})`);
      const refund = (await retrieveSession(ctx, s.id)).refund;
      assert.equal(refund.reason, 'refund_pending');
      assert.equal(refund.refundable, false);
    },
  },
  pending(
    'checkout.sessions.retrieve.refund-failed-still-refundable',
    'After a failed refund attempt the `refund` object reads reason `refund_failed`, still refundable (retry)',
    RETRIEVAL,
    [...PAY_CARD, RETRIEVE, 'refundCheckoutSession'],
  ),
  pending(
    'checkout.sessions.retrieve.refund-settled-manual',
    'Reason `settled` (already paid out to the balance) and `method_not_supported` mean manualRefundRequired true',
    RETRIEVAL,
    [...PAY_CARD, 'settleTestPayment', RETRIEVE],
  ),
  pending(
    'checkout.sessions.retrieve.refund-same-rule-as-endpoint',
    '`refund.refundable` agrees with the refund endpoint: refundable true exactly when a refund call would be accepted',
    RETRIEVAL,
    [...PAY_CARD, RETRIEVE, 'refundCheckoutSession'],
  ),
  pending(
    'checkout.sessions.status.polling',
    'Polling answers `status`; for a hold session also captureMethod, paymentId, holdStatus, authorizedAmount and authorizationExpiresAt once the card is authorized',
    POLLING,
    [...HOLD],
  ),
  {
    id: 'checkout.sessions.status.hold-fields-absent-before-authorization',
    title: 'The hold fields of a hold session appear only once the card is authorized',
    source: POLLING,
    requires: [SESSION, STATUS],
    serverOnly: true,
    async run(ctx) {
      const s = await newHoldSession(ctx);
      const polled = await getSessionStatus(ctx, s.id);
      expectStatus(polled, 200, 'poll a hold session');
      assert.equal(polled.json.status, 'created');
      for (const field of ['paymentId', 'holdStatus', 'authorizedAmount', 'authorizationExpiresAt']) {
        assert.equal(polled.json[field] ?? null, null, `${field} must not be shown before the card is authorized, got ${JSON.stringify(polled.json[field])}`);
      }
    },
  },
  pending(
    'checkout.sessions.confirm.result',
    'A successful confirm answers id, object `checkout_session`, status `complete`, paymentStatus `paid` and paymentResult {id, status `succeeded`, amount, currency}',
    CONFIRM_RESULT,
    [...PAY_CARD],
  ),
  pending(
    'checkout.sessions.tokenize.payment-method',
    'Tokenize answers a payment method: id `pm_...`, object `payment_method`, type `card`, card {brand, last4, expiryMonth, expiryYear (numbers)}, createdAt',
    CARD_OBJECTS,
    [SESSION, 'tokenizeCard'],
  ),
];
