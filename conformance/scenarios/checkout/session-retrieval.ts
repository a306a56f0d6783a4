// Reading a checkout session: retrieval fields, status polling, and the confirm and tokenize
// answers. The retrieval's `refund` object is in session-refund-state.ts.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { call, expectStatus } from '../fixtures/http.js';
import { emailFor, publishableKey } from '../fixtures/keys.js';
import { HOLD, PAY_CARD, RETRIEVE, SESSION, STATUS, SUBSCRIBE } from '../fixtures/operations.js';
import { scenario } from '../fixtures/scenario.js';
import { CARD_OBJECTS, CONFIRM_RESULT, POLLING, RETRIEVAL } from '../fixtures/sections.js';
import { getSessionStatus, newHoldSession, newSession, payByCard, retrieveSession, SANDBOX_CARD } from '../fixtures/sessions.js';
import { paidSubscription, postSubscriptionSession, subscriptionOf, subscriptionParts } from '../fixtures/subscriptions.js';

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
  scenario(
    'checkout.sessions.status.polling',
    'Polling answers `status`; for a hold session also captureMethod, paymentId, holdStatus, authorizedAmount and authorizationExpiresAt once the card is authorized',
    POLLING,
    [...HOLD],
    async (ctx) => {
      const once = await newSession(ctx);
      await payByCard(ctx, once);
      const paid = await getSessionStatus(ctx, once.id);
      expectStatus(paid, 200, 'poll a paid session');
      assert.equal(paid.json.status, 'completed', 'a paid session polls completed');
      const hold = await newHoldSession(ctx);
      const authorized = await payByCard(ctx, hold);
      const polled = await getSessionStatus(ctx, hold.id);
      expectStatus(polled, 200, 'poll the authorized hold session');
      const { status, captureMethod, paymentId, holdStatus, authorizedAmount, authorizationExpiresAt } = polled.json;
      assert.deepEqual(
        { status, captureMethod, paymentId, holdStatus, authorizedAmount },
        { status: 'completed', captureMethod: 'manual', paymentId: authorized.paymentResult.id, holdStatus: 'authorized', authorizedAmount: hold.amount },
      );
      const opensFor = Date.parse(authorizationExpiresAt) - Date.parse(hold.createdAt);
      assert.ok(opensFor > 86_400_000, `authorizationExpiresAt lies ahead while the hold is open, got ${JSON.stringify(authorizationExpiresAt)}`);
    },
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
  scenario(
    'checkout.sessions.confirm.result',
    'A successful confirm answers id, object `checkout_session`, status `complete`, paymentStatus `paid` and paymentResult {id, status `succeeded`, amount, currency}',
    CONFIRM_RESULT,
    [...PAY_CARD],
    async (ctx) => {
      const s = await newSession(ctx, { amount: 31.4, currency: 'USD' });
      const r = await payByCard(ctx, s);
      assert.deepEqual([r.id, r.object, r.status, r.paymentStatus], [s.id, 'checkout_session', 'complete', 'paid']);
      const { id, ...result } = r.paymentResult ?? {};
      assert.ok(Number.isInteger(id) && id > 0, `paymentResult.id is the payment id (a number), got ${JSON.stringify(id)}`);
      assert.deepEqual({ status: result.status, amount: result.amount, currency: result.currency }, { status: 'succeeded', amount: 31.4, currency: 'USD' });
    },
  ),
  scenario(
    'checkout.sessions.tokenize.payment-method',
    'Tokenize answers a payment method: id `pm_...`, object `payment_method`, type `card`, card {brand, last4, expiryMonth, expiryYear (numbers)}, createdAt',
    CARD_OBJECTS,
    [SESSION, 'tokenizeCard'],
    async (ctx) => {
      const s = await newSession(ctx);
      const res = await call(ctx, 'checkout', 'tokenizeCard', {
        method: 'POST',
        path: `/v1/checkout-sessions/${s.id}/tokenize`,
        key: publishableKey(ctx),
        clientSecret: s.clientSecret,
        body: { ...SANDBOX_CARD, cardNumber: '5555555555554444' },
      });
      expectStatus(res, 201, 'tokenize a Mastercard');
      const pm = res.json;
      assert.match(pm.id, /^pm_/, 'id starts pm_');
      assert.deepEqual([pm.object, pm.type], ['payment_method', 'card']);
      assert.deepEqual(pm.card, { brand: 'mastercard', last4: '4444', expiryMonth: SANDBOX_CARD.expiryMonth, expiryYear: SANDBOX_CARD.expiryYear });
      assert.ok(Number.isFinite(Date.parse(pm.createdAt)), `createdAt is a timestamp, got ${JSON.stringify(pm.createdAt)}`);
      assert.equal(JSON.stringify(pm).includes('5555555555554444'), false, 'the card number is never answered back');
    },
  ),
];
