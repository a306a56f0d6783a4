// Behaviour scenarios of checkout-billing-api.md: checkout sessions (creation rules, states,
// withdraw-qr), card holds, refunds, subscriptions, plans, customers, products, lists, invoices
// and portal sessions. Webhook rules are in webhooks.ts; auth, errors, limits, idempotency and
// versioning in platform.ts.
import assert from 'node:assert/strict';
import { latestOtp, SANDBOX_SRC } from '../recipes.js';
import type { ConformanceContext, Scenario } from '../types.js';
import {
  advanceClock,
  CHECKOUT_DOC,
  call,
  cancelSession,
  clocked,
  emailFor,
  envelopeData,
  expectEnvelopeError,
  expectError,
  expectStatus,
  getSessionStatus,
  newPlan,
  newProduct,
  newSession,
  payByCard,
  otherSecretKey,
  pending,
  pendingBecause,
  postCustomer,
  postSession,
  publishableKey,
  rawFetch,
  retrieveSession,
  secondsUntil,
  secretKey,
  source,
  tag,
  targetNow,
} from './platform.js';

// Operation groups.
const SESSION = 'createCheckoutSession';
const RETRIEVE = 'retrieveCheckoutSession';
const STATUS = 'getCheckoutSessionStatus';
const CANCEL = 'cancelCheckoutSession';
const WITHDRAW = 'withdrawCheckoutSessionQr';
/** Pay a session by card: create, tokenize with a sandbox card, confirm. */
const PAY_CARD = [SESSION, 'tokenizeCard', 'confirmCheckoutSession'];
/** Issue a wallet QR code on a session (confirm with a wallet option). */
const ISSUE_QR = [SESSION, 'confirmCheckoutSession'];
/** Pay a wallet QR code as the payer's wallet would. */
const PAY_QR = [...ISSUE_QR, 'simulateQrPaid'];
const HOLD = [...PAY_CARD, STATUS];
const SUBSCRIBE = ['createProduct', 'createPlan', 'createCustomer', ...PAY_CARD, RETRIEVE, 'retrieveSubscription'];
const SUBSCRIBE_TRIAL = ['createProduct', 'createPlan', 'createCustomer', SESSION, RETRIEVE, 'retrieveSubscription'];
const MESSAGES = 'listTestMessages';
/** The sandbox card that asks for 3-D Secure. */
const THREE_DS_CARD = { cardNumber: '4000000000003220', expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 3, cvc: '123' };

// Sections.
const CREATE_FIELDS = source(CHECKOUT_DOC, 'Resources and their fields', 'Checkout session: fields accepted at creation');
const CREATION_RULES = source(CHECKOUT_DOC, 'Resources and their fields', 'Checkout session: fields accepted at creation', 'Creation rules');
const RULE_6 = `${CREATION_RULES} › 6. Paying an existing invoice`;
const CREATED = source(CHECKOUT_DOC, 'Resources and their fields', 'Checkout session: returned at creation');
const RETRIEVAL = source(CHECKOUT_DOC, 'Resources and their fields', 'Checkout session: retrieval fields');
const POLLING = source(CHECKOUT_DOC, 'Resources and their fields', 'Session status result (polling)');
const CONFIRM_RESULT = source(CHECKOUT_DOC, 'Resources and their fields', 'Confirm result');
const CARD_OBJECTS = source(CHECKOUT_DOC, 'Resources and their fields', 'Card and payment-method objects');
const REFUND_RESULT = source(CHECKOUT_DOC, 'Resources and their fields', 'Refund result');
const HOLD_RESULT = source(CHECKOUT_DOC, 'Resources and their fields', 'Hold result (capture and release)');
const SUBSCRIPTION_FIELDS = source(CHECKOUT_DOC, 'Resources and their fields', 'Subscription');
const SUBSCRIPTION_INVOICE = source(CHECKOUT_DOC, 'Resources and their fields', 'Subscription invoice (list item)');
const PLAN_FIELDS = source(CHECKOUT_DOC, 'Resources and their fields', 'Plan');
const CUSTOMER_FIELDS = source(CHECKOUT_DOC, 'Resources and their fields', 'Customer');
const PRODUCT_FIELDS = source(CHECKOUT_DOC, 'Resources and their fields', 'Product');
const LIST_WRAPPER = source(CHECKOUT_DOC, 'Resources and their fields', 'List wrapper');
const RENEWAL = source(CHECKOUT_DOC, 'Resources and their fields', 'Renewal and card on file');
const SESSION_STATES = source(CHECKOUT_DOC, 'States and transitions', 'Checkout session status');
const HOLD_STATES = source(CHECKOUT_DOC, 'States and transitions', 'Card hold (payment) status');
const REFUND_STATES = source(CHECKOUT_DOC, 'States and transitions', 'Refund status');
const SUBSCRIPTION_STATES = source(CHECKOUT_DOC, 'States and transitions', 'Subscription status');
const PLAN_STATES = source(CHECKOUT_DOC, 'States and transitions', 'Plan status');
const SESSION_ENDPOINTS = source(CHECKOUT_DOC, 'Endpoints', 'Checkout sessions');
const WITHDRAW_OUTCOMES = source(CHECKOUT_DOC, 'Endpoints', 'Checkout sessions', 'Withdraw-qr outcomes');
const REFUND_RULES = source(CHECKOUT_DOC, 'Endpoints', 'Checkout sessions', 'Refund rules');
const CAPTURE_RULES = source(CHECKOUT_DOC, 'Endpoints', 'Checkout sessions', 'Capture and release rules');
const SUBSCRIPTION_ENDPOINTS = source(CHECKOUT_DOC, 'Endpoints', 'Subscriptions');
const PLAN_ENDPOINTS = source(CHECKOUT_DOC, 'Endpoints', 'Plans');
const CUSTOMER_ENDPOINTS = source(CHECKOUT_DOC, 'Endpoints', 'Customers');
const PRODUCT_ENDPOINTS = source(CHECKOUT_DOC, 'Endpoints', 'Products');
const OTHER_SCOPED = source(CHECKOUT_DOC, 'Endpoints', 'Other scoped operations');
const NAMED_CODES = source(CHECKOUT_DOC, 'Errors');


// ---------------------------------------------------------------------------------------------
// Wallet QR helpers
// ---------------------------------------------------------------------------------------------

/** A session (see `newSession`) confirmed with `wallet:qr`: it shows a QR code. Answers the session and the confirm answer. */
async function newQrSession(ctx: ConformanceContext, extra: Record<string, unknown> = {}): Promise<{ s: any; confirmed: any }> {
  const s = await newSession(ctx, extra);
  const res = await confirmWith(ctx, s, 'wallet:qr');
  if (res.status === 400 && res.json?.error?.param === 'paymentMethodId') pendingBecause('the merchant has no wallet option enabled');
  expectStatus(res, 200, 'confirm with wallet:qr');
  return { s, confirmed: res.json };
}

/** `POST /v1/checkout-sessions/{id}/confirm` with the publishable key and the client secret. */
function confirmWith(ctx: ConformanceContext, s: any, paymentMethodId: string) {
  return call(ctx, 'checkout', 'confirmCheckoutSession', { method: 'POST', path: `/v1/checkout-sessions/${s.id}/confirm`, key: publishableKey(ctx), clientSecret: s.clientSecret, body: { paymentMethodId } });
}

/** `POST /v1/checkout-sessions/{id}/withdraw-qr`, with the publishable key (or the client secret alone). */
function postWithdraw(ctx: ConformanceContext, s: any, secretOnly = false) {
  return call(ctx, 'checkout', WITHDRAW, { method: 'POST', path: `/v1/checkout-sessions/${s.id}/withdraw-qr`, ...(secretOnly ? {} : { key: publishableKey(ctx) }), clientSecret: s.clientSecret });
}

/** The sandbox wallet pays the session's live QR code. */
const payQr = (ctx: ConformanceContext, s: any) => call(ctx, 'checkout', 'simulateQrPaid', { method: 'POST', path: `/v1/test-helpers/checkout-sessions/${s.id}/qr-paid`, key: secretKey(ctx) });

/** A session paid by its QR code. */
async function newQrPaidSession(ctx: ConformanceContext, extra: Record<string, unknown> = {}): Promise<any> {
  const { s } = await newQrSession(ctx, extra);
  expectStatus(await payQr(ctx, s), 200, 'pay the QR code (simulateQrPaid)');
  return s;
}

/** `POST /v1/checkout-sessions/{id}/refund` with the server key. */
const refundSession = (ctx: ConformanceContext, s: any, body: Record<string, unknown> = {}) =>
  call(ctx, 'checkout', 'refundCheckoutSession', { method: 'POST', path: `/v1/checkout-sessions/${s.id}/refund`, key: secretKey(ctx), body });

/** A card payment method tokenized on the session. */
async function tokenizeOn(ctx: ConformanceContext, s: any): Promise<string> {
  const res = await call(ctx, 'checkout', 'tokenizeCard', {
    method: 'POST',
    path: `/v1/checkout-sessions/${s.id}/tokenize`,
    key: publishableKey(ctx),
    clientSecret: s.clientSecret,
    body: { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 3, cvc: '123' },
  });
  expectStatus(res, 201, 'tokenize a card');
  return res.json.id;
}

// ---------------------------------------------------------------------------------------------
// Checkout sessions: creation
// ---------------------------------------------------------------------------------------------

/** A product, a plan and a customer of the merchant under test, for subscription sessions. */
async function subscriptionParts(ctx: ConformanceContext, label: string): Promise<{ plan: any; customer: any }> {
  const product = await newProduct(ctx, label);
  const plan = await newPlan(ctx, product.id, label);
  const customer = envelopeData(await postCustomer(ctx, { email: emailFor(ctx, label.replace(/\W+/g, '-')) }), 201, 'create a customer');
  return { plan, customer };
}

/** An invoice of the merchant behind `key` (25.00 in `currency` before `extra`), addressed to payer details. */
async function newInvoice(ctx: ConformanceContext, currency = 'USD', key = secretKey(ctx), extra: Record<string, unknown> = {}): Promise<any> {
  const res = await call(ctx, 'checkout', 'createInvoice', {
    method: 'POST',
    path: '/v1/invoices',
    key,
    body: { customer: { email: emailFor(ctx, 'invoice') }, currency, lineItems: [{ name: `Conformance ${tag(ctx)}`, quantity: 2, unitAmount: 12.5 }], metadata: { conformanceRun: ctx.runId }, ...extra },
  });
  expectStatus(res, 201, 'create an invoice');
  return res.json;
}

/** A subscription session request (embedded), tagged with the run id. */
function postSubscriptionSession(ctx: ConformanceContext, extra: Record<string, unknown>) {
  return call(ctx, 'checkout', SESSION, {
    method: 'POST',
    path: '/v1/checkout-sessions',
    key: secretKey(ctx),
    body: { mode: 'embedded', paymentType: 'subscription', metadata: { conformanceRun: ctx.runId }, ...extra },
  });
}

/** A hold session (`captureMethod` `manual`); pending when the merchant has no card option able to hold. */
async function newHoldSession(ctx: ConformanceContext): Promise<any> {
  const res = await postSession(ctx, { captureMethod: 'manual' });
  if (res.status === 400 && res.json?.error?.param === 'captureMethod') pendingBecause('the merchant has no card option able to hold a card');
  expectStatus(res, 201, 'create a hold session');
  return res.json;
}

const sessionCreation: Scenario[] = [
  {
    id: 'checkout.sessions.create.returned-fields',
    title: 'Create answers id, object `checkout_session`, status `open`, paymentStatus `unpaid`, amount, currency, mode, paymentType, clientSecret, customer {email, name}, expiresAt and createdAt',
    source: CREATED,
    requires: [SESSION],
    serverOnly: true,
    async run(ctx) {
      const email = emailFor(ctx, 'payer');
      const s = await newSession(ctx, { amount: 49.99, currency: 'USD', customerEmail: email, customerFirstName: 'Maria', customerLastName: 'Lopez' });
      assert.match(s.id, /^cs_test_\S+$/, 'a test-mode session id starts cs_test_');
      assert.equal(s.object, 'checkout_session');
      assert.equal(s.status, 'open', 'a new session reads open');
      assert.equal(s.paymentStatus, 'unpaid', 'a new session is unpaid');
      assert.equal(s.amount, 49.99);
      assert.equal(s.currency, 'USD');
      assert.equal(s.mode, 'embedded');
      assert.equal(s.paymentType, 'oneTime');
      assert.equal(typeof s.clientSecret, 'string', 'clientSecret is returned');
      assert.ok(s.clientSecret.length > 0, 'clientSecret is not empty');
      assert.deepEqual(s.customer, { email, name: 'Maria Lopez' }, 'customer carries the payer\'s email and name');
      for (const field of ['expiresAt', 'createdAt']) assert.ok(Number.isFinite(Date.parse(s[field])), `${field} must be a timestamp, got ${JSON.stringify(s[field])}`);
      assert.ok(!('notificationSecret' in s), 'no notificationSecret without a notificationUrl');
    },
  },
  {
    id: 'checkout.sessions.create.hosted-url',
    title: 'A hosted session answers a `url` for the payment page',
    source: CREATED,
    requires: [SESSION],
    serverOnly: true,
    async run(ctx) {
      const s = await newSession(ctx, { mode: 'hosted', successUrl: 'https://shop.example.com/thanks' });
      assert.equal(s.mode, 'hosted');
      assert.equal(typeof s.url, 'string', `a hosted session must answer a url, got ${JSON.stringify(s.url)}`);
      assert.match(s.url, /^https?:\/\/\S+$/, 'the url is an absolute http(s) address');
      const other = await newSession(ctx, { mode: 'hosted', successUrl: 'https://shop.example.com/thanks' });
      assert.notEqual(other.url, s.url, 'each session has its own payment page');
    },
  },
  {
    id: 'checkout.sessions.create.embedded-url-null',
    title: 'An embedded session answers `url` null',
    source: CREATED,
    requires: [SESSION],
    serverOnly: true,
    async run(ctx) {
      const s = await newSession(ctx, { mode: 'embedded' });
      assert.equal(s.mode, 'embedded');
      assert.ok('url' in s, 'url is present');
      assert.equal(s.url, null, 'an embedded session has url null');
    },
  },
  {
    id: 'checkout.sessions.create.amount-too-small',
    title: 'An amount below 1.00 in the currency is refused with 400 `amount_too_small`, `param` `amount`; exactly 1.00 is accepted',
    source: CREATE_FIELDS,
    requires: [SESSION],
    serverOnly: true,
    async run(ctx) {
      for (const amount of [0.99, 0.5, 0]) expectError(await postSession(ctx, { amount }), 400, 'invalid_request', 'amount_too_small', 'amount');
      const ok = await newSession(ctx, { amount: 1.0 });
      assert.equal(ok.amount, 1, 'exactly 1.00 is accepted');
    },
  },
  {
    id: 'checkout.sessions.create.mode-values',
    title: '`mode` is `embedded` or `hosted`; any other value is refused with 400',
    source: CREATE_FIELDS,
    requires: [SESSION],
    serverOnly: true,
    async run(ctx) {
      assert.equal((await newSession(ctx, { mode: 'embedded' })).mode, 'embedded');
      assert.equal((await newSession(ctx, { mode: 'hosted', successUrl: 'https://shop.example.com/thanks' })).mode, 'hosted');
      for (const mode of ['popup', 'Hosted', '']) expectError(await postSession(ctx, { mode, successUrl: 'https://shop.example.com/thanks' }), 400, 'invalid_request', undefined, 'mode');
    },
  },
  {
    id: 'checkout.sessions.create.payment-type-values',
    title: '`paymentType` is `oneTime` or `subscription`; any other value is refused with 400',
    source: CREATE_FIELDS,
    requires: [SESSION],
    serverOnly: true,
    async run(ctx) {
      assert.equal((await newSession(ctx, { paymentType: 'oneTime' })).paymentType, 'oneTime');
      // `subscription` is a known value: without a plan the refusal names the plan, not paymentType.
      const subscription = await postSession(ctx, { paymentType: 'subscription' });
      expectStatus(subscription, 400, 'a subscription session without a plan');
      assert.notEqual(subscription.json?.error?.param, 'paymentType', '`subscription` is an accepted paymentType');
      for (const paymentType of ['once', 'one_time', 'recurring']) expectError(await postSession(ctx, { paymentType }), 400, 'invalid_request', undefined, 'paymentType');
    },
  },
  {
    id: 'checkout.sessions.create.line-items',
    title: '`lineItems` take name, quantity, unitAmount and an optional description',
    source: CREATE_FIELDS,
    requires: [SESSION],
    serverOnly: true,
    async run(ctx) {
      const lineItems = [
        { name: 'Beans', quantity: 2, unitAmount: 12.5, description: 'Roasted this week' },
        { name: 'Filter papers', quantity: 1, unitAmount: 5 },
      ];
      const s = await newSession(ctx, { amount: 30, lineItems });
      assert.equal(s.amount, 30);
      const missingName = await postSession(ctx, { amount: 5, lineItems: [{ quantity: 1, unitAmount: 5 }] });
      expectStatus(missingName, 400, 'a line item without a name');
      assert.match(String(missingName.json?.error?.param), /^lineItems/, `the refusal names the line item: ${missingName.text.slice(0, 200)}`);
      const badQuantity = await postSession(ctx, { amount: 5, lineItems: [{ name: 'Beans', quantity: 'two', unitAmount: 5 }] });
      expectStatus(badQuantity, 400, 'a line item with a non-number quantity');
      assert.match(String(badQuantity.json?.error?.param), /^lineItems/, `the refusal names the line item: ${badQuantity.text.slice(0, 200)}`);
    },
  },
  {
    id: 'checkout.sessions.create.metadata',
    title: '`metadata` is a free key/value map kept with the session',
    source: CREATE_FIELDS,
    requires: [SESSION],
    serverOnly: true,
    async run(ctx) {
      // Retrieval does not show metadata (it goes to the webhooks): check that a map is accepted.
      const s = await newSession(ctx, { metadata: { conformanceRun: ctx.runId, orderId: '8841', channel: 'web' } });
      assert.equal(s.object, 'checkout_session');
      const notAMap = await postSession(ctx, { metadata: 'order 8841' });
      expectStatus(notAMap, 400, 'metadata that is not an object');
      assert.match(String(notAMap.json?.error?.param), /^metadata/, `the refusal names metadata: ${notAMap.text.slice(0, 200)}`);
      const nonString = await postSession(ctx, { metadata: { conformanceRun: ctx.runId, orderId: 8841 } });
      expectStatus(nonString, 400, 'metadata with a value that is not a string');
      assert.match(String(nonString.json?.error?.param), /^metadata/, `the refusal names metadata: ${nonString.text.slice(0, 200)}`);
    },
  },
  pending('checkout.sessions.create.notify-customer-default-off', 'Without `notifyCustomer` the merchant setting \'Message Checkout Customers\' applies (off unless turned on): retrieval reports false and no invoice message is sent', CREATE_FIELDS, [SESSION, RETRIEVE, MESSAGES]),
  pending('checkout.sessions.create.notify-customer-true', '`notifyCustomer` true emails and texts the payer the session\'s invoice', CREATE_FIELDS, [SESSION, RETRIEVE, MESSAGES]),
  pending('checkout.sessions.create.send-receipt-default-on', 'Without `sendReceipt` the merchant setting \'Send Checkout Receipts\' applies (on unless turned off): retrieval reports true and a receipt is emailed on payment', CREATE_FIELDS, [...PAY_CARD, RETRIEVE, MESSAGES]),
  pending('checkout.sessions.create.send-receipt-false', '`sendReceipt` false sends no receipt on payment', CREATE_FIELDS, [...PAY_CARD, RETRIEVE, MESSAGES]),
  pending('checkout.sessions.create.send-receipt-needs-email', 'A receipt needs the payer\'s email: a paid session without `customerEmail` sends none', CREATE_FIELDS, [...PAY_CARD, MESSAGES]),
  pending('checkout.sessions.create.description-ignored-for-invoice', '`description` is ignored when an existing invoice is paid', CREATE_FIELDS, ['createInvoice', SESSION, 'retrieveInvoice']),
  {
    id: 'checkout.sessions.create.trial-days-per-session',
    title: 'Trials are set per session (`trialDays`), not on the plan: two sessions on one plan can have different trials',
    source: CREATE_FIELDS,
    requires: [...SUBSCRIBE_TRIAL],
    serverOnly: true,
    async run(ctx) {
      const parts = await subscriptionParts(ctx, 'trial per session');
      const trialLength = async (days: number) => {
        const sub = await subscriptionOf(ctx, (await trialSubscription(ctx, '', days, parts)).subscriptionId);
        return Math.round((Date.parse(sub.trialEnd) - Date.parse(sub.startDate)) / 86_400_000);
      };
      assert.equal(await trialLength(7), 7, 'a 7-day trial ends 7 days after the start');
      assert.equal(await trialLength(30), 30, 'a 30-day trial on the same plan ends 30 days after the start');
    },
  },

  // Rule 1: expiry.
  {
    id: 'checkout.sessions.rule-1-default-expiry-30-minutes',
    title: 'Without `expiresAt` a session can be paid for 30 minutes: `expiresAt` is 30 minutes after `createdAt`',
    source: CREATION_RULES,
    requires: [SESSION],
    serverOnly: true,
    async run(ctx) {
      const s = await newSession(ctx);
      const lifetime = Date.parse(s.expiresAt) - Date.parse(s.createdAt);
      assert.ok(Math.abs(lifetime - 30 * 60_000) <= 1000, `expiresAt must be 30 minutes after createdAt, got ${lifetime / 1000} s (${s.createdAt} → ${s.expiresAt})`);
    },
  },
  {
    id: 'checkout.sessions.rule-1-expires-at-bounds',
    title: '`expiresAt` must be between 10 minutes and 24 hours from now; 9 minutes or 25 hours is refused with 400 `validation_error`',
    source: CREATION_RULES,
    requires: [SESSION],
    serverOnly: true,
    async run(ctx) {
      // From the target's clock, with a margin on each side of the bounds.
      const now = await targetNow(ctx);
      const inMinutes = (m: number) => new Date(now() + m * 60_000).toISOString();
      for (const [what, at] of [['9 minutes', inMinutes(9)], ['25 hours', inMinutes(25 * 60)], ['5 minutes ago', inMinutes(-5)]] as const) {
        const res = await postSession(ctx, { expiresAt: at });
        assert.equal(res.status, 400, `expiresAt ${what} from now must be refused, got ${res.status} ${res.text.slice(0, 200)}`);
        expectError(res, 400, 'invalid_request', 'validation_error', 'expiresAt');
      }
      for (const minutes of [11, 23 * 60]) {
        const at = inMinutes(minutes);
        const s = await newSession(ctx, { expiresAt: at });
        assert.equal(Date.parse(s.expiresAt), Date.parse(at), `expiresAt ${minutes} minutes from now is kept as sent`);
      }
    },
  },
  clocked('checkout.sessions.rule-1-expired-cannot-be-paid', 'After expiry the session reads `expired` and cannot be paid (confirm is refused)', CREATION_RULES, [...PAY_CARD, RETRIEVE], {
    async run(ctx) {
      const s = await newSession(ctx);
      const pm = await tokenizeOn(ctx, s);
      await advanceClock(ctx, secondsUntil(s.expiresAt, s.createdAt) + 1);
      assert.equal((await retrieveSession(ctx, s.id)).status, 'expired', 'past expiresAt the session reads expired');
      expectError(await confirmWith(ctx, s, pm), 400, 'invalid_request', 'session_not_payable');
    },
  }),

  // Rule 2: placeholder.
  {
    id: 'checkout.sessions.rule-2-placeholder-replaced',
    title: '`{CHECKOUT_SESSION_ID}` in successUrl and cancelUrl is replaced with the session id at creation; the returned and stored URL is the final one',
    source: CREATION_RULES,
    requires: [SESSION, RETRIEVE],
    serverOnly: true,
    async run(ctx) {
      const s = await newSession(ctx, {
        mode: 'hosted',
        successUrl: 'https://shop.example.com/thanks?session={CHECKOUT_SESSION_ID}',
        cancelUrl: 'https://shop.example.com/cart/{CHECKOUT_SESSION_ID}/back',
      });
      const success = `https://shop.example.com/thanks?session=${s.id}`;
      const cancel = `https://shop.example.com/cart/${s.id}/back`;
      assert.equal(s.successUrl, success, 'the returned successUrl carries the session id');
      assert.equal(s.cancelUrl, cancel, 'the returned cancelUrl carries the session id');
      const read = await retrieveSession(ctx, s.id);
      assert.equal(read.successUrl, success, 'the stored successUrl is the final one');
      assert.equal(read.cancelUrl, cancel, 'the stored cancelUrl is the final one');
    },
  },
  {
    id: 'checkout.sessions.rule-2-placeholder-percent-encoded',
    title: 'The percent-encoded placeholder `%7BCHECKOUT_SESSION_ID%7D` is replaced too',
    source: CREATION_RULES,
    requires: [SESSION, RETRIEVE],
    serverOnly: true,
    async run(ctx) {
      const s = await newSession(ctx, {
        mode: 'hosted',
        successUrl: 'https://shop.example.com/thanks?session=%7BCHECKOUT_SESSION_ID%7D',
        // Percent-encoding is case-insensitive in its hex digits.
        cancelUrl: 'https://shop.example.com/back?session=%7bCHECKOUT_SESSION_ID%7d',
      });
      const success = `https://shop.example.com/thanks?session=${s.id}`;
      const cancel = `https://shop.example.com/back?session=${s.id}`;
      assert.equal(s.successUrl, success, 'the returned successUrl carries the session id');
      assert.equal(s.cancelUrl, cancel, 'the returned cancelUrl carries the session id');
      const read = await retrieveSession(ctx, s.id);
      assert.equal(read.successUrl, success, 'the stored successUrl is the final one');
      assert.equal(read.cancelUrl, cancel, 'the stored cancelUrl is the final one');
    },
  },

  // Rule 3: payer details.
  {
    id: 'checkout.sessions.rule-3-payer-details-optional',
    title: 'Payer details are all optional: a session without any is created',
    source: CREATION_RULES,
    requires: [SESSION],
    serverOnly: true,
    async run(ctx) {
      const s = await newSession(ctx);
      assert.equal(s.status, 'open');
      assert.equal(s.customer?.email ?? null, null, 'no payer email');
      assert.equal(s.customer?.name ?? null, null, 'no payer name');
      // Any one of them alone is fine too.
      for (const payer of [{ customerEmail: emailFor(ctx, 'only-email') }, { customerFirstName: 'Maria' }, { customerLastName: 'Lopez' }, { customerPhone: '+15555550142' }]) {
        expectStatus(await postSession(ctx, payer), 201, `a session with only ${Object.keys(payer)[0]}`);
      }
    },
  },
  {
    id: 'checkout.sessions.rule-3-payer-details-retrieved',
    title: 'Payer details are stored on the session and returned by retrieval',
    source: CREATION_RULES,
    requires: [SESSION, RETRIEVE],
    serverOnly: true,
    async run(ctx) {
      const payer = { customerEmail: emailFor(ctx, 'maria'), customerFirstName: 'Maria', customerLastName: 'Lopez', customerPhone: '+15555550142' };
      const s = await newSession(ctx, payer);
      const read = await retrieveSession(ctx, s.id);
      for (const [field, value] of Object.entries(payer)) assert.equal(read[field], value, `retrieval returns ${field}`);
      const none = await retrieveSession(ctx, (await newSession(ctx)).id);
      for (const field of Object.keys(payer)) assert.equal(none[field] ?? null, null, `${field} is null when not given`);
    },
  },
  pending('checkout.sessions.rule-3-payer-on-invoice', 'Payer details are recorded as payer on the invoice a one-time session creates', CREATION_RULES, [...PAY_CARD, RETRIEVE, 'retrieveInvoice']),

  // Rule 4 and 5: per-session webhooks and secret (delivery itself in webhooks.ts).
  {
    id: 'checkout.sessions.rule-4-notification-url-accepted',
    title: 'A session accepts an https `notificationUrl` on a public host',
    source: CREATION_RULES,
    requires: [SESSION],
    serverOnly: true,
    async run(ctx) {
      const s = await newSession(ctx, { notificationUrl: `https://hooks.example.com/till/${tag(ctx)}?source=conformance` });
      assert.equal(s.status, 'open');
    },
  },
  {
    id: 'checkout.sessions.rule-5-secret-returned-once',
    title: 'With `notificationUrl` and no `notificationSecret` the create response carries a generated `notificationSecret`; retrieval never shows it',
    source: CREATION_RULES,
    requires: [SESSION, RETRIEVE],
    serverOnly: true,
    async run(ctx) {
      const s = await newSession(ctx, { notificationUrl: `https://hooks.example.com/till/${tag(ctx)}` });
      assert.equal(typeof s.notificationSecret, 'string', `a generated notificationSecret must be returned, got ${JSON.stringify(s.notificationSecret)}`);
      assert.ok(s.notificationSecret.length >= 16, 'the generated secret is at least 16 characters');
      const other = await newSession(ctx, { notificationUrl: `https://hooks.example.com/till/${tag(ctx)}` });
      assert.notEqual(other.notificationSecret, s.notificationSecret, 'each session gets its own secret');
      const read = await call(ctx, 'checkout', RETRIEVE, { method: 'GET', path: `/v1/checkout-sessions/${s.id}`, key: secretKey(ctx) });
      expectStatus(read, 200, 'retrieve');
      assert.ok(!('notificationSecret' in read.json), 'retrieval has no notificationSecret field');
      assert.ok(!read.text.includes(s.notificationSecret), 'retrieval never shows the secret');
    },
  },
  {
    id: 'checkout.sessions.rule-5-sent-secret-not-returned',
    title: 'When `notificationSecret` is sent, the create response does not return one',
    source: CREATION_RULES,
    requires: [SESSION],
    serverOnly: true,
    async run(ctx) {
      const secret = `conf-${tag(ctx)}-0123456789abcdef`;
      const res = await postSession(ctx, { notificationUrl: `https://hooks.example.com/till/${tag(ctx)}`, notificationSecret: secret });
      expectStatus(res, 201, 'create with a notificationSecret');
      assert.ok(!('notificationSecret' in res.json), `no notificationSecret is returned when one was sent, got ${JSON.stringify(res.json.notificationSecret)}`);
      assert.ok(!res.text.includes(secret), 'the sent secret is not echoed');
    },
  },

  // Rule 6: paying an existing invoice, each sub-rule.
  {
    id: 'checkout.sessions.rule-6a-subscription-refused',
    title: 'Paying an invoice is only possible with `paymentType` `oneTime`; a subscription session with `invoiceId` is refused with `validation_error`',
    source: RULE_6,
    requires: ['createInvoice', SESSION],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx);
      expectError(await postSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id, paymentType: 'subscription' }), 400, 'invalid_request', 'validation_error');
    },
  },
  {
    id: 'checkout.sessions.rule-6a-both-invoice-fields',
    title: 'Sending both `invoiceId` and `invoiceReference` fails with `validation_error`',
    source: RULE_6,
    requires: ['createInvoice', SESSION],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx);
      expectError(await postSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id, invoiceReference: invoice.reference }), 400, 'invalid_request', 'validation_error');
    },
  },
  {
    id: 'checkout.sessions.rule-6a-line-items-with-invoice',
    title: 'Sending `lineItems` with `invoiceId` or `invoiceReference` fails with `validation_error`',
    source: RULE_6,
    requires: ['createInvoice', SESSION],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx);
      const lineItems = [{ name: 'Extra', quantity: 1, unitAmount: 25 }];
      expectError(await postSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id, lineItems }), 400, 'invalid_request', 'validation_error', 'lineItems');
      expectError(await postSession(ctx, { amount: undefined, currency: undefined, invoiceReference: invoice.reference, lineItems }), 400, 'invalid_request', 'validation_error', 'lineItems');
    },
  },
  {
    id: 'checkout.sessions.rule-6b-amount-currency-from-invoice',
    title: 'Amount, currency and payment options come from the invoice: the session amount is the invoice\'s total due',
    source: RULE_6,
    requires: ['createInvoice', SESSION],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx, 'EUR');
      const res = await postSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id });
      expectStatus(res, 201, 'create a session on an invoice');
      assert.equal(res.json.amount, invoice.amountDue, 'the session charges the invoice\'s total due');
      assert.equal(res.json.currency, 'EUR', 'the session takes the invoice\'s currency');
    },
  },
  {
    id: 'checkout.sessions.rule-6b-by-reference',
    title: '`invoiceReference` (the pay-link reference code, not the display invoice number) names the invoice to pay',
    source: RULE_6,
    requires: ['createInvoice', SESSION, RETRIEVE],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx);
      const res = await postSession(ctx, { amount: undefined, currency: undefined, invoiceReference: invoice.reference });
      expectStatus(res, 201, 'create a session by invoice reference');
      assert.equal((await retrieveSession(ctx, res.json.id)).invoiceId, invoice.id, 'the session pays the invoice of that reference');
      expectError(await postSession(ctx, { amount: undefined, currency: undefined, invoiceReference: invoice.invoiceNumber }), 404, 'not_found', 'invoice_not_found');
    },
  },
  {
    id: 'checkout.sessions.rule-6b-amount-currency-must-match',
    title: 'An `amount` or `currency` sent with an invoice must match it; a different one is refused',
    source: RULE_6,
    requires: ['createInvoice', SESSION],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx);
      expectError(await postSession(ctx, { amount: invoice.amountDue + 1, currency: undefined, invoiceId: invoice.id }), 400, 'invalid_request', 'validation_error', 'amount');
      expectError(await postSession(ctx, { amount: undefined, currency: 'JPY', invoiceId: invoice.id }), 400, 'invalid_request', 'validation_error', 'currency');
      expectStatus(await postSession(ctx, { amount: invoice.amountDue, currency: invoice.currency, invoiceId: invoice.id }), 201, 'matching amount and currency');
    },
  },
  {
    id: 'checkout.sessions.rule-6b-payment-option-group-must-match',
    title: 'A `paymentOptionGroupId` sent with an invoice must match the invoice\'s',
    source: RULE_6,
    requires: ['createInvoice', SESSION],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx);
      // Invoices created through this interface have no payment option group.
      expectError(await postSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id, paymentOptionGroupId: 2147483000 }), 400, 'invalid_request', 'validation_error', 'paymentOptionGroupId');
    },
  },
  {
    id: 'checkout.sessions.rule-6c-other-merchant-invoice',
    title: 'Another merchant\'s invoice answers 404 `invoice_not_found`',
    source: RULE_6,
    requires: ['createInvoice', SESSION],
    serverOnly: true,
    async run(ctx) {
      const theirs = await newInvoice(ctx, 'USD', otherSecretKey(ctx));
      expectError(await postSession(ctx, { amount: undefined, currency: undefined, invoiceId: theirs.id }), 404, 'not_found', 'invoice_not_found');
      expectError(await postSession(ctx, { amount: undefined, currency: undefined, invoiceReference: theirs.reference }), 404, 'not_found', 'invoice_not_found');
    },
  },
  pending('checkout.sessions.rule-6c-other-mode-invoice', 'An invoice of the other mode answers 404 `invoice_not_found` (needs a live key, which the suite does not take)', RULE_6, ['createInvoice', SESSION]),
  {
    id: 'checkout.sessions.rule-6d-paid-not-payable',
    title: 'A paid invoice fails with `invoice_not_payable`',
    source: RULE_6,
    requires: ['createInvoice', ...PAY_CARD],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx);
      const session = await newSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id });
      await payByCard(ctx, session);
      expectError(await postSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id }), 409, 'conflict', 'invoice_not_payable');
    },
  },
  {
    id: 'checkout.sessions.rule-6d-cancelled-not-payable',
    title: 'A cancelled (voided) invoice fails with `invoice_not_payable`',
    source: RULE_6,
    requires: ['createInvoice', 'voidInvoice', SESSION],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx);
      expectStatus(await call(ctx, 'checkout', 'voidInvoice', { method: 'POST', path: `/v1/invoices/${invoice.id}/void`, key: secretKey(ctx) }), 200, 'void the invoice');
      expectError(await postSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id }), 409, 'conflict', 'invoice_not_payable');
    },
  },
  pending('checkout.sessions.rule-6d-rejected-not-payable', 'A rejected invoice fails with `invoice_not_payable` (no operation to reject an invoice is known yet)', RULE_6, ['createInvoice', SESSION]),
  clocked('checkout.sessions.rule-6d-expired-not-payable', 'An expired invoice fails with `invoice_not_payable`', RULE_6, ['createCommerceInvoice', SESSION]),
  pending('checkout.sessions.rule-6d-draft-not-payable', 'A draft invoice fails with `invoice_not_payable`', RULE_6, ['createCommerceInvoice', SESSION]),
  {
    id: 'checkout.sessions.rule-6d-zero-balance-not-payable',
    title: 'A zero-balance invoice fails with `invoice_not_payable`',
    source: RULE_6,
    requires: ['createInvoice', SESSION],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx, 'USD', secretKey(ctx), { discount: 25 });
      assert.equal(invoice.amountDue, 0, 'a discount of the whole invoice leaves nothing due');
      expectError(await postSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id }), 409, 'conflict', 'invoice_not_payable');
    },
  },
  {
    id: 'checkout.sessions.rule-6e-open-session-returned',
    title: 'While a session on the invoice is open, creating another returns that same session, with its expiry',
    source: RULE_6,
    requires: ['createInvoice', SESSION],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx);
      const first = await newSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id });
      const again = await postSession(ctx, { amount: undefined, currency: undefined, invoiceReference: invoice.reference });
      expectStatus(again, 200, 'a second create on the same invoice');
      assert.equal(again.json.id, first.id, 'the same session is returned');
      assert.equal(again.json.expiresAt, first.expiresAt, 'with its expiry');
      assert.equal(again.json.clientSecret, first.clientSecret, 'and its client secret');
    },
  },
  clocked('checkout.sessions.rule-6f-invoice-unchanged-on-expiry', 'When the session paying an invoice expires, the invoice is left as it was (still payable)', RULE_6, ['createInvoice', SESSION, 'retrieveInvoice'], {
    async run(ctx) {
      const invoice = await newInvoice(ctx);
      const session = await newSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id });
      await advanceClock(ctx, secondsUntil(session.expiresAt, session.createdAt) + 1);
      assert.equal((await retrieveSession(ctx, session.id)).status, 'expired', 'the session expired');
      const after = await call(ctx, 'checkout', 'retrieveInvoice', { method: 'GET', path: `/v1/invoices/${invoice.id}`, key: secretKey(ctx) });
      expectStatus(after, 200, 'retrieve the invoice');
      assert.equal(after.json.status, invoice.status, 'the invoice keeps its status');
      assert.equal(after.json.amountDue, invoice.amountDue, 'and is still due');
      const next = await postSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id });
      expectStatus(next, 201, 'a new session can pay the invoice');
      assert.notEqual(next.json.id, session.id, 'a new session, not the expired one');
    },
  }),
  {
    id: 'checkout.sessions.rule-6f-invoice-unchanged-on-cancel',
    title: 'When the session paying an invoice is cancelled, the invoice is left as it was (not cancelled)',
    source: RULE_6,
    requires: ['createInvoice', SESSION, CANCEL, 'retrieveInvoice'],
    serverOnly: true,
    async run(ctx) {
      const invoice = await newInvoice(ctx);
      const session = await newSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id });
      expectStatus(await cancelSession(ctx, session.id), 204, 'cancel the session');
      const after = await call(ctx, 'checkout', 'retrieveInvoice', { method: 'GET', path: `/v1/invoices/${invoice.id}`, key: secretKey(ctx) });
      expectStatus(after, 200, 'retrieve the invoice');
      assert.equal(after.json.status, invoice.status, 'the invoice keeps its status');
      assert.equal(after.json.amountDue, invoice.amountDue, 'and is still due');
    },
  },
  pending('checkout.sessions.rule-6g-completed-carries-invoice', '`checkout.session.completed` of a session paying an invoice carries `invoiceId` and `invoiceReference`', RULE_6, ['createInvoice', ...PAY_CARD, 'createWebhookConfiguration', 'listWebhookDeliveries']),

  // Rule 7: subscription sessions.
  {
    id: 'checkout.sessions.rule-7-needs-plan-and-client',
    title: 'A subscription session needs `subscriptionPlanId` and `clientId`; without them it is refused with 400',
    source: CREATION_RULES,
    requires: ['createProduct', 'createPlan', 'createCustomer', SESSION],
    serverOnly: true,
    async run(ctx) {
      const { plan, customer } = await subscriptionParts(ctx, 'needs plan and client');
      // Never both: a complete subscription session would start a subscription.
      const noPlan = await postSubscriptionSession(ctx, { clientId: customer.id });
      expectError(noPlan, 400, 'invalid_request', undefined, 'subscriptionPlanId');
      const noClient = await postSubscriptionSession(ctx, { subscriptionPlanId: plan.id });
      expectError(noClient, 400, 'invalid_request', undefined, 'clientId');
      const neither = await postSubscriptionSession(ctx, {});
      expectStatus(neither, 400, 'a subscription session with neither');
      assert.ok(['subscriptionPlanId', 'clientId'].includes(neither.json?.error?.param), `the refusal names subscriptionPlanId or clientId: ${neither.text.slice(0, 200)}`);
    },
  },
  {
    id: 'checkout.sessions.rule-7-foreign-client',
    title: 'A subscription session with another merchant\'s `clientId` is refused with `validation_error`',
    source: CREATION_RULES,
    requires: ['createProduct', 'createPlan', 'createCustomer', SESSION],
    serverOnly: true,
    async run(ctx) {
      const other = otherSecretKey(ctx);
      const { plan } = await subscriptionParts(ctx, 'foreign client');
      const theirs = envelopeData(await postCustomer(ctx, { email: emailFor(ctx, 'foreign-client') }, other), 201, 'the other merchant\'s customer');
      expectError(await postSubscriptionSession(ctx, { subscriptionPlanId: plan.id, clientId: theirs.id }), 400, 'invalid_request', 'validation_error', 'clientId');
    },
  },
  {
    id: 'checkout.sessions.rule-7-foreign-plan',
    title: 'A subscription session with another merchant\'s `subscriptionPlanId` is refused with `validation_error`',
    source: CREATION_RULES,
    requires: ['createProduct', 'createPlan', 'createCustomer', SESSION],
    serverOnly: true,
    async run(ctx) {
      const other = otherSecretKey(ctx);
      const { customer } = await subscriptionParts(ctx, 'foreign plan');
      const theirProduct = await newProduct(ctx, 'foreign plan product', other);
      const theirPlan = await newPlan(ctx, theirProduct.id, 'foreign plan', {}, other);
      expectError(await postSubscriptionSession(ctx, { subscriptionPlanId: theirPlan.id, clientId: customer.id }), 400, 'invalid_request', 'validation_error', 'subscriptionPlanId');
    },
  },
  pending('checkout.sessions.rule-7-free-trial-completes', 'A subscription session that starts a free trial (nothing to pay now) completes at once and still sends `checkout.session.completed`', CREATION_RULES, [...SUBSCRIBE_TRIAL, 'createWebhookConfiguration', 'listWebhookDeliveries']),
];

// ---------------------------------------------------------------------------------------------
// Checkout sessions: retrieval, polling, confirm, cards
// ---------------------------------------------------------------------------------------------

const sessionReading: Scenario[] = [
  {
    id: 'checkout.sessions.retrieve.fields',
    title: 'Retrieval answers sessionId, status, amount, currency, payer fields, resolved notifyCustomer/sendReceipt, allowGuestSavedCards, paymentType `one_time`, mode, expiresAt, merchantName, merchantLogoUrl, allowedPaymentMethods, successUrl, cancelUrl, clientId, subscriptionId, invoiceId and refund',
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
  pending('checkout.sessions.retrieve.refund-refundable', 'For a paid card session the `refund` object says refundable true, reason `refundable`, lastAttempt null', RETRIEVAL, [...PAY_CARD, RETRIEVE]),
  pending('checkout.sessions.retrieve.refund-already-refunded', 'After a full refund the `refund` object reads reason `already_refunded` and refundable false, with lastAttempt {outcome, attemptedAt, attempts}', RETRIEVAL, [...PAY_CARD, RETRIEVE, 'refundCheckoutSession']),
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
  pending('checkout.sessions.retrieve.refund-failed-still-refundable', 'After a failed refund attempt the `refund` object reads reason `refund_failed`, still refundable (retry)', RETRIEVAL, [...PAY_CARD, RETRIEVE, 'refundCheckoutSession']),
  pending('checkout.sessions.retrieve.refund-settled-manual', 'Reason `settled` (already paid out to the balance) and `method_not_supported` mean manualRefundRequired true', RETRIEVAL, [...PAY_CARD, 'settleTestPayment', RETRIEVE]),
  pending('checkout.sessions.retrieve.refund-same-rule-as-endpoint', '`refund.refundable` agrees with the refund endpoint: refundable true exactly when a refund call would be accepted', RETRIEVAL, [...PAY_CARD, RETRIEVE, 'refundCheckoutSession']),
  pending('checkout.sessions.status.polling', 'Polling answers `status`; for a hold session also captureMethod, paymentId, holdStatus, authorizedAmount and authorizationExpiresAt once the card is authorized', POLLING, [...HOLD]),
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
  pending('checkout.sessions.confirm.result', 'A successful confirm answers id, object `checkout_session`, status `complete`, paymentStatus `paid` and paymentResult {id, status `succeeded`, amount, currency}', CONFIRM_RESULT, [...PAY_CARD]),
  pending('checkout.sessions.tokenize.payment-method', 'Tokenize answers a payment method: id `pm_...`, object `payment_method`, type `card`, card {brand, last4, expiryMonth, expiryYear (numbers)}, createdAt', CARD_OBJECTS, [SESSION, 'tokenizeCard']),
];

// ---------------------------------------------------------------------------------------------
// Saved cards and click to pay
// ---------------------------------------------------------------------------------------------

const SAVED_CARD_SETUP = ['createCustomer', ...PAY_CARD];
const SANDBOX_CARD = { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 3, cvc: '123' };

/** A customer (with a phone, for the OTP) whose card went on file by paying a session that allows saved cards. */
async function customerWithSavedCard(ctx: ConformanceContext, label: string): Promise<{ customerId: number; phone: string; cardId: string }> {
  const pk = publishableKey(ctx);
  const phone = `+1 415 555 ${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`;
  const customer = envelopeData(await postCustomer(ctx, { email: emailFor(ctx, label), name: 'Conformance Customer', phone, externalId: `conf-${tag(ctx)}-${label}` }), 201, 'create a customer');
  const s = await newSession(ctx, { clientId: customer.id, allowSavedCards: true });
  const pm = await call(ctx, 'checkout', 'tokenizeCard', { method: 'POST', path: `/v1/checkout-sessions/${s.id}/tokenize`, key: pk, clientSecret: s.clientSecret, body: SANDBOX_CARD });
  expectStatus(pm, 201, 'tokenize a sandbox card');
  expectStatus(await call(ctx, 'checkout', 'confirmCheckoutSession', { method: 'POST', path: `/v1/checkout-sessions/${s.id}/confirm`, key: pk, clientSecret: s.clientSecret, body: { paymentMethodId: pm.json.id } }), 200, 'pay with the card');
  return { customerId: customer.id, phone, cardId: pm.json.id };
}

const savedCardsOf = (ctx: ConformanceContext, s: { id: string; clientSecret: string }) =>
  call(ctx, 'checkout', 'listSavedCards', { method: 'GET', path: `/v1/checkout-sessions/${s.id}/saved-cards`, key: publishableKey(ctx), clientSecret: s.clientSecret });
const srcLookup = (ctx: ConformanceContext, s: { id: string; clientSecret: string }, email: string) =>
  call(ctx, 'checkout', 'lookupSrcCards', { method: 'POST', path: `/v1/checkout-sessions/${s.id}/src/lookup`, key: publishableKey(ctx), clientSecret: s.clientSecret, body: { email } });

const savedCardsAndSrc: Scenario[] = [
  {
    id: 'checkout.sessions.create.allow-saved-cards',
    title: '`allowSavedCards` is kept and reported by retrieval (`allowGuestSavedCards`); without it the saved-card list is empty',
    source: CREATE_FIELDS,
    requires: [...SAVED_CARD_SETUP, RETRIEVE, 'listSavedCards'],
    serverOnly: true,
    async run(ctx) {
      const { customerId, cardId } = await customerWithSavedCard(ctx, 'allow-saved');
      const allowed = await newSession(ctx, { clientId: customerId, allowSavedCards: true });
      assert.equal((await retrieveSession(ctx, allowed.id)).allowGuestSavedCards, true, 'allowGuestSavedCards reports allowSavedCards true');
      const listed = await savedCardsOf(ctx, allowed);
      expectStatus(listed, 200, 'list saved cards');
      assert.ok(listed.json.data.some((c: any) => c.id === cardId), 'the card on file is listed when saved cards are allowed');
      const notAllowed = await newSession(ctx, { clientId: customerId });
      assert.equal((await retrieveSession(ctx, notAllowed.id)).allowGuestSavedCards, false, 'allowGuestSavedCards is false without allowSavedCards');
      assert.deepEqual((await savedCardsOf(ctx, notAllowed)).json.data, [], 'without allowSavedCards the list is empty');
    },
  },
  {
    id: 'checkout.sessions.create.click-to-pay',
    title: '`enableClickToPay` enables SRC: lookup works on such a session and is refused on one without it',
    source: CREATE_FIELDS,
    requires: [SESSION, 'lookupSrcCards'],
    serverOnly: true,
    async run(ctx) {
      expectStatus(await srcLookup(ctx, await newSession(ctx, { enableClickToPay: true }), SANDBOX_SRC.email), 200, 'lookup on a click-to-pay session');
      expectError(await srcLookup(ctx, await newSession(ctx), SANDBOX_SRC.email), 400, 'invalid_request', 'validation_error');
    },
  },
  {
    id: 'checkout.sessions.saved-cards.list',
    title: 'The saved-card list holds items {id, card {brand, last4, expiryMonth, expiryYear}, isDefault}',
    source: CARD_OBJECTS,
    requires: [...SAVED_CARD_SETUP, 'listSavedCards'],
    serverOnly: true,
    async run(ctx) {
      const { customerId, cardId } = await customerWithSavedCard(ctx, 'saved-list');
      const res = await savedCardsOf(ctx, await newSession(ctx, { clientId: customerId, allowSavedCards: true }));
      expectStatus(res, 200, 'list saved cards');
      assert.equal(res.json.object, 'list');
      const item = res.json.data.find((c: any) => c.id === cardId);
      assert.ok(item, `the paid card is on file: ${JSON.stringify(res.json.data)}`);
      assert.deepEqual(item.card, { brand: 'visa', last4: '4242', expiryMonth: SANDBOX_CARD.expiryMonth, expiryYear: SANDBOX_CARD.expiryYear });
      assert.equal(item.isDefault, true, "the customer's first card is the default");
    },
  },
  {
    id: 'checkout.sessions.saved-cards.verify-otp',
    title: 'Using a saved card needs OTP: verify answers {verificationId, status `otp_sent`, maskedPhone, expiresAt}; confirm-otp answers {verified, paymentMethodId}',
    source: CARD_OBJECTS,
    requires: [...SAVED_CARD_SETUP, 'listSavedCards', 'verifySavedCard', 'confirmSavedCardOtp', MESSAGES],
    serverOnly: true,
    async run(ctx) {
      const pk = publishableKey(ctx);
      const { customerId, phone, cardId } = await customerWithSavedCard(ctx, 'saved-otp');
      const s = await newSession(ctx, { clientId: customerId, allowSavedCards: true });
      const auth = { key: pk, clientSecret: s.clientSecret };
      const unverified = await call(ctx, 'checkout', 'confirmCheckoutSession', { method: 'POST', path: `/v1/checkout-sessions/${s.id}/confirm`, ...auth, body: { paymentMethodId: cardId } });
      expectStatus(unverified, 400, 'confirm with a saved card before OTP verification');
      const v = await call(ctx, 'checkout', 'verifySavedCard', { method: 'POST', path: `/v1/checkout-sessions/${s.id}/saved-cards/verify`, ...auth, body: { paymentMethodId: cardId } });
      expectStatus(v, 200, 'verify a saved card');
      assert.equal(v.json.status, 'otp_sent');
      assert.equal(typeof v.json.verificationId, 'string');
      assert.ok(v.json.maskedPhone.endsWith(phone.slice(-4)) && !v.json.maskedPhone.includes(phone.slice(3, 6)), `maskedPhone shows only the last digits: ${v.json.maskedPhone}`);
      assert.ok(Number.isFinite(Date.parse(v.json.expiresAt)), 'expiresAt is a timestamp');
      const ok = await call(ctx, 'checkout', 'confirmSavedCardOtp', { method: 'POST', path: `/v1/checkout-sessions/${s.id}/saved-cards/confirm-otp`, ...auth, body: { verificationId: v.json.verificationId, otp: await latestOtp(ctx, phone) } });
      expectStatus(ok, 200, 'confirm the one-time code');
      assert.deepEqual(ok.json, { verified: true, paymentMethodId: cardId });
      const paid = await call(ctx, 'checkout', 'confirmCheckoutSession', { method: 'POST', path: `/v1/checkout-sessions/${s.id}/confirm`, ...auth, body: { paymentMethodId: ok.json.paymentMethodId } });
      expectStatus(paid, 200, 'pay with the verified saved card');
      assert.equal(paid.json.status, 'complete');
    },
  },
  {
    id: 'checkout.sessions.src.lookup',
    title: 'SRC lookup answers {enrolled, cards[] of {srcCardId, brand, last4, expiryMonth, expiryYear, artUri}}',
    source: CARD_OBJECTS,
    requires: [SESSION, 'lookupSrcCards'],
    serverOnly: true,
    async run(ctx) {
      const s = await newSession(ctx, { enableClickToPay: true });
      const found = await srcLookup(ctx, s, SANDBOX_SRC.email);
      expectStatus(found, 200, 'look up an enrolled email');
      assert.equal(found.json.enrolled, true);
      assert.ok(found.json.cards.length > 0, 'an enrolled email has cards');
      for (const card of found.json.cards) {
        assert.deepEqual(Object.keys(card).sort(), ['artUri', 'brand', 'expiryMonth', 'expiryYear', 'last4', 'srcCardId']);
      }
      const none = await srcLookup(ctx, s, emailFor(ctx, 'not-enrolled'));
      expectStatus(none, 200, 'look up an email that is not enrolled');
      assert.deepEqual(none.json, { enrolled: false, cards: [] });
    },
  },
  {
    id: 'checkout.sessions.src.authenticate',
    title: 'SRC authenticate with `srcCardId` and `validationData` obtains a payment token usable with confirm',
    source: SESSION_ENDPOINTS,
    requires: [SESSION, 'lookupSrcCards', 'authenticateSrcCard', 'confirmCheckoutSession'],
    serverOnly: true,
    async run(ctx) {
      const pk = publishableKey(ctx);
      const s = await newSession(ctx, { enableClickToPay: true });
      const srcCardId = (await srcLookup(ctx, s, SANDBOX_SRC.email)).json.cards[0].srcCardId;
      const token = await call(ctx, 'checkout', 'authenticateSrcCard', { method: 'POST', path: `/v1/checkout-sessions/${s.id}/src/authenticate`, key: pk, clientSecret: s.clientSecret, body: { srcCardId, validationData: SANDBOX_SRC.validationData } });
      expectStatus(token, 200, 'authenticate a click-to-pay card');
      assert.match(token.json.paymentMethodId, /^pm_/);
      assert.equal(token.json.srcCardId, srcCardId);
      const paid = await call(ctx, 'checkout', 'confirmCheckoutSession', { method: 'POST', path: `/v1/checkout-sessions/${s.id}/confirm`, key: pk, clientSecret: s.clientSecret, body: { paymentMethodId: token.json.paymentMethodId } });
      expectStatus(paid, 200, 'confirm with the click-to-pay token');
      assert.equal(paid.json.paymentStatus, 'paid');
    },
  },
];

// ---------------------------------------------------------------------------------------------
// Checkout session states (one scenario per row)
// ---------------------------------------------------------------------------------------------

const sessionStates: Scenario[] = [
  {
    id: 'checkout.session-states.new-open',
    title: '(new) → create → `open`: the create response shows status `open` and issues a client secret',
    source: SESSION_STATES,
    requires: [SESSION],
    serverOnly: true,
    async run(ctx) {
      const s = await newSession(ctx);
      assert.equal(s.status, 'open', 'the create response shows open');
      assert.equal(typeof s.clientSecret, 'string', 'a client secret is issued');
      assert.ok(s.clientSecret.startsWith(`${s.id}_secret_`), 'the client secret belongs to the session');
    },
  },
  {
    id: 'checkout.session-states.new-free-trial-completed',
    title: '(new) → create of a subscription session with a free trial → `completed`',
    source: SESSION_STATES,
    requires: [...SUBSCRIBE_TRIAL],
    serverOnly: true,
    async run(ctx) {
      const { session } = await trialSubscription(ctx, 'free trial completed');
      assert.equal(session.status, 'completed', 'the create answer reads completed');
      assert.equal(session.paymentStatus, 'no_payment_required', 'nothing is paid now');
      assert.equal(session.amount, 0, 'the amount due now is 0');
      assert.equal((await retrieveSession(ctx, session.id)).status, 'completed', 'retrieval reads completed');
    },
  },
  clocked('checkout.session-states.open-expired', '`open` → expiry passes unpaid → `expired`, cannot be paid', SESSION_STATES, [...PAY_CARD, RETRIEVE], {
    async run(ctx) {
      const s = await newSession(ctx);
      const pm = await tokenizeOn(ctx, s);
      await advanceClock(ctx, secondsUntil(s.expiresAt, s.createdAt) - 60);
      assert.equal((await retrieveSession(ctx, s.id)).status, 'created', 'a minute before expiresAt the session is still open');
      await advanceClock(ctx, 61);
      assert.equal((await retrieveSession(ctx, s.id)).status, 'expired', 'past expiresAt it is expired');
      expectError(await confirmWith(ctx, s, pm), 400, 'invalid_request', 'session_not_payable');
    },
  }),
  {
    id: 'checkout.session-states.cancel-not-completed',
    title: 'A session not completed → cancel with the server key → 204, status `cancelled`',
    source: SESSION_STATES,
    requires: [SESSION, CANCEL, RETRIEVE],
    serverOnly: true,
    async run(ctx) {
      const s = await newSession(ctx);
      const res = await cancelSession(ctx, s.id);
      expectStatus(res, 204, 'cancel with the server key');
      assert.equal(res.text, '', '204 has no body');
      assert.equal((await retrieveSession(ctx, s.id)).status, 'cancelled');
      // Cancelling again changes nothing.
      expectStatus(await cancelSession(ctx, s.id), 204, 'a repeated cancel');
      assert.equal((await retrieveSession(ctx, s.id)).status, 'cancelled');
      // Another merchant cannot cancel it.
      if (ctx.options.otherSecretKey) {
        const mine = await newSession(ctx);
        expectError(await cancelSession(ctx, mine.id, { key: ctx.options.otherSecretKey }), 404, 'not_found');
        assert.equal((await retrieveSession(ctx, mine.id)).status, 'created', 'another merchant\'s cancel changes nothing');
      }
    },
  },
  pending('checkout.session-states.cancel-confirm-refused', 'After cancel, confirm is refused (400)', SESSION_STATES, [...PAY_CARD, CANCEL]),
  {
    id: 'checkout.session-states.cancel-withdraws-qr',
    title: 'Cancel withdraws a live wallet QR code (it can no longer be paid)',
    source: SESSION_STATES,
    requires: [...ISSUE_QR, CANCEL, 'simulateQrPaid'],
    serverOnly: true,
    async run(ctx) {
      const { s } = await newQrSession(ctx);
      expectStatus(await cancelSession(ctx, s.id), 204, 'cancel');
      expectError(await payQr(ctx, s), 409, 'conflict', 'invalid_state');
      assert.equal((await retrieveSession(ctx, s.id)).status, 'cancelled');
    },
  },
  pending('checkout.session-states.cancel-cancels-session-invoice', 'Cancel cancels the invoice the session created', SESSION_STATES, [SESSION, CANCEL, RETRIEVE, 'retrieveInvoice']),
  pending('checkout.session-states.completed-cancel-refused', '`completed` → cancel is refused (409; refund instead) and the session is unchanged', SESSION_STATES, [...PAY_CARD, CANCEL, RETRIEVE]),
  {
    id: 'checkout.session-states.withdraw-withdrawn',
    title: '`payment_pending` → withdraw-qr `withdrawn` → stays `payment_pending`, open for confirm with another option',
    source: SESSION_STATES,
    requires: [...ISSUE_QR, WITHDRAW, RETRIEVE, 'tokenizeCard'],
    serverOnly: true,
    async run(ctx) {
      const { s } = await newQrSession(ctx);
      assert.equal((await retrieveSession(ctx, s.id)).status, 'payment_pending');
      const res = await postWithdraw(ctx, s);
      expectStatus(res, 200, 'withdraw-qr');
      assert.equal(res.json.outcome, 'withdrawn');
      assert.equal((await retrieveSession(ctx, s.id)).status, 'payment_pending');
      const paid = await confirmWith(ctx, s, await tokenizeOn(ctx, s));
      expectStatus(paid, 200, 'confirm again with a card');
      assert.equal(paid.json.status, 'complete');
    },
  },
  {
    id: 'checkout.session-states.withdraw-already-paid',
    title: 'Any state → withdraw-qr `already_paid` (code already paid) → `completed`',
    source: SESSION_STATES,
    requires: [...PAY_QR, WITHDRAW, RETRIEVE],
    serverOnly: true,
    async run(ctx) {
      const s = await newQrPaidSession(ctx);
      const res = await postWithdraw(ctx, s);
      expectStatus(res, 200, 'withdraw-qr');
      assert.equal(res.json.outcome, 'already_paid');
      assert.equal(res.json.status, 'completed');
      assert.equal((await retrieveSession(ctx, s.id)).status, 'completed');
    },
  },
  pending('checkout.session-states.confirm-succeeds', '`open` → confirm succeeds → `completed`, paymentStatus `paid`', SESSION_STATES, [...PAY_CARD, RETRIEVE]),
  pending('checkout.session-states.hold-authorized', '`open` hold session (`captureMethod` `manual`) → card authorized → `completed` with payment status Authorized', SESSION_STATES, [...HOLD, RETRIEVE]),
  {
    id: 'checkout.session-states.3ds-cancel-may-complete',
    title: 'A payment already in 3-D Secure when the session is cancelled may still complete (refund it if it does)',
    source: SESSION_STATES,
    requires: [...PAY_CARD, CANCEL, STATUS, 'refundCheckoutSession'],
    serverOnly: true,
    async run(ctx) {
      const pk = publishableKey(ctx);
      const s = await newSession(ctx);
      const auth = { key: pk, clientSecret: s.clientSecret };
      const pm = await call(ctx, 'checkout', 'tokenizeCard', { method: 'POST', path: `/v1/checkout-sessions/${s.id}/tokenize`, ...auth, body: THREE_DS_CARD });
      expectStatus(pm, 201, 'tokenize the 3-D Secure test card');
      const returnUrl = 'https://shop.example.com/conformance/3ds-return';
      const confirmed = await call(ctx, 'checkout', 'confirmCheckoutSession', { method: 'POST', path: `/v1/checkout-sessions/${s.id}/confirm`, ...auth, body: { paymentMethodId: pm.json.id, returnUrl } });
      expectStatus(confirmed, 200, 'confirm with the 3-D Secure test card');
      assert.equal(confirmed.json.status, 'payment_pending', 'the confirm answer waits for the payer');
      assert.equal(confirmed.json.paymentStatus, 'unpaid');
      assert.equal(confirmed.json.paymentResult?.status, 'requires_action');
      assert.equal(confirmed.json.nextAction?.type, 'redirect_to_3ds', 'nextAction sends the payer to 3-D Secure');
      expectStatus(await cancelSession(ctx, s.id), 204, 'cancel during 3-D Secure');
      assert.equal((await retrieveSession(ctx, s.id)).status, 'cancelled', 'the session reads cancelled');
      // Play the payer on the issuer's page: only Till's sandbox page can be driven from here.
      const page = await fetch(confirmed.json.nextAction.url, { redirect: 'manual' });
      const html = await page.text();
      const token = /name="token" value="([^"]+)"/.exec(html)?.[1];
      if (page.status !== 200 || !token || !html.includes('Complete authentication')) pendingBecause("nextAction.url is not Till's sandbox 3-D Secure page; complete it by hand");
      const done = await fetch(confirmed.json.nextAction.url, { method: 'POST', body: new URLSearchParams({ answer: 'complete', token }), redirect: 'manual' });
      assert.equal(done.status, 303, 'completing the challenge redirects the payer');
      assert.equal(done.headers.get('location'), returnUrl, 'to the returnUrl');
      const polled = await getSessionStatus(ctx, s.id);
      expectStatus(polled, 200, 'poll');
      assert.equal(polled.json.status, 'completed', 'the payment in 3-D Secure still completed the cancelled session');
      const refund = await call(ctx, 'checkout', 'refundCheckoutSession', { method: 'POST', path: `/v1/checkout-sessions/${s.id}/refund`, key: secretKey(ctx), body: { reason: 'cancelled during 3-D Secure' } });
      expectStatus(refund, 200, 'refund it');
      assert.equal(refund.json.status, 'refunded', 'the payment is refunded in full');
    },
  },
  {
    id: 'checkout.session-states.cancelled-refuses-confirm-and-withdraw',
    title: 'A cancelled session refuses confirm, and withdraw-qr on it answers 400',
    source: SESSION_STATES,
    requires: [...PAY_CARD, CANCEL, WITHDRAW],
    serverOnly: true,
    async run(ctx) {
      const s = await newSession(ctx);
      const pm = await tokenizeOn(ctx, s);
      expectStatus(await cancelSession(ctx, s.id), 204, 'cancel');
      expectError(await confirmWith(ctx, s, pm), 400, 'invalid_request', 'session_not_payable');
      expectError(await postWithdraw(ctx, s), 400, 'invalid_request', 'session_not_payable');
    },
  },
  clocked('checkout.session-states.expired-refuses-confirm-and-withdraw', 'An expired session refuses confirm, and withdraw-qr on it answers 400', SESSION_STATES, [...PAY_CARD, WITHDRAW], {
    async run(ctx) {
      const s = await newSession(ctx);
      const pm = await tokenizeOn(ctx, s);
      await advanceClock(ctx, secondsUntil(s.expiresAt, s.createdAt) + 1);
      expectError(await confirmWith(ctx, s, pm), 400, 'invalid_request', 'session_not_payable');
      expectError(await postWithdraw(ctx, s), 400, 'invalid_request', 'session_not_payable');
    },
  }),
  {
    id: 'checkout.session-states.status-values-snake-case',
    title: 'The REST API shows session statuses in snake_case (`payment_pending`, `completed`, `cancelled`, `expired`)',
    source: SESSION_STATES,
    requires: [SESSION, RETRIEVE, STATUS, CANCEL],
    serverOnly: true,
    async run(ctx) {
      // `created` and `cancelled` can be reached from outside; the others need a payment or time.
      const s = await newSession(ctx);
      const snake = /^[a-z]+(_[a-z]+)*$/;
      const check = async (expected: string) => {
        const read = (await retrieveSession(ctx, s.id)).status;
        const polled = await getSessionStatus(ctx, s.id);
        expectStatus(polled, 200, 'poll');
        for (const [what, value] of [['retrieval', read], ['polling', polled.json.status]] as const) {
          assert.match(String(value), snake, `${what} status must be snake_case, got ${JSON.stringify(value)}`);
          assert.equal(value, expected, `${what} status`);
        }
      };
      await check('created');
      expectStatus(await cancelSession(ctx, s.id), 204, 'cancel');
      await check('cancelled');
    },
  },
];

// ---------------------------------------------------------------------------------------------
// Withdraw-qr outcomes
// ---------------------------------------------------------------------------------------------

const withdrawQr: Scenario[] = [
  {
    id: 'checkout.withdraw-qr.withdrawn',
    title: 'Outcome `withdrawn`: the code can no longer be paid and the session is back to `payment_pending`; the answer has sessionId, outcome, status and a message fit for the payer',
    source: WITHDRAW_OUTCOMES,
    requires: [...ISSUE_QR, WITHDRAW, 'simulateQrPaid'],
    serverOnly: true,
    async run(ctx) {
      const { s } = await newQrSession(ctx);
      const res = await postWithdraw(ctx, s);
      expectStatus(res, 200, 'withdraw-qr');
      assert.deepEqual([res.json.sessionId, res.json.outcome, res.json.status], [s.id, 'withdrawn', 'payment_pending']);
      assert.ok(typeof res.json.message === 'string' && res.json.message.length > 0, 'a message for the payer');
      expectError(await payQr(ctx, s), 409, 'conflict', 'invalid_state');
    },
  },
  {
    id: 'checkout.withdraw-qr.already-paid',
    title: 'Outcome `already_paid`: the code was paid; the session is `completed`',
    source: WITHDRAW_OUTCOMES,
    requires: [...PAY_QR, WITHDRAW],
    serverOnly: true,
    async run(ctx) {
      const s = await newQrPaidSession(ctx);
      const res = await postWithdraw(ctx, s);
      expectStatus(res, 200, 'withdraw-qr');
      assert.deepEqual([res.json.outcome, res.json.status], ['already_paid', 'completed']);
    },
  },
  {
    id: 'checkout.withdraw-qr.failed',
    title: 'Outcome `failed`: the code could not be withdrawn and may still be paid; nothing changed (sandbox trigger: session metadata `sandboxWithdrawQr` = `failed`)',
    source: WITHDRAW_OUTCOMES,
    requires: [...ISSUE_QR, WITHDRAW, 'simulateQrPaid'],
    serverOnly: true,
    async run(ctx) {
      const { s } = await newQrSession(ctx, { metadata: { conformanceRun: ctx.runId, sandboxWithdrawQr: 'failed' } });
      const res = await postWithdraw(ctx, s);
      expectStatus(res, 200, 'withdraw-qr');
      if (res.json.outcome !== 'failed') pendingBecause(`the target does not offer the withdraw failure trigger (answered ${res.json.outcome})`);
      assert.equal(res.json.status, 'payment_pending', 'nothing changed');
      expectStatus(await payQr(ctx, s), 200, 'the code can still be paid');
    },
  },
  {
    id: 'checkout.withdraw-qr.client-secret-alone',
    title: 'The hosted page may call withdraw-qr with the client secret alone',
    source: SESSION_ENDPOINTS,
    requires: [...ISSUE_QR, WITHDRAW],
    serverOnly: true,
    async run(ctx) {
      const { s } = await newQrSession(ctx);
      const res = await postWithdraw(ctx, s, true);
      expectStatus(res, 200, 'withdraw-qr with the client secret alone');
      assert.equal(res.json.outcome, 'withdrawn');
    },
  },
  {
    id: 'checkout.withdraw-qr.before-picker',
    title: 'After withdraw-qr the session can be confirmed with another option and the old code cannot be paid on top',
    source: WITHDRAW_OUTCOMES,
    requires: [...ISSUE_QR, WITHDRAW, 'tokenizeCard', 'simulateQrPaid'],
    serverOnly: true,
    async run(ctx) {
      const { s } = await newQrSession(ctx);
      expectStatus(await postWithdraw(ctx, s), 200, 'withdraw-qr');
      const paid = await confirmWith(ctx, s, await tokenizeOn(ctx, s));
      expectStatus(paid, 200, 'confirm with a card');
      assert.equal(paid.json.paymentStatus, 'paid');
      expectError(await payQr(ctx, s), 409, 'conflict', 'invalid_state');
    },
  },
];

// ---------------------------------------------------------------------------------------------
// Card holds
// ---------------------------------------------------------------------------------------------

const holds: Scenario[] = [
  pending('checkout.hold-states.capture-all', '`authorized` → capture without amount → `captured` for the whole authorized amount; the invoice is paid and the payment refundable as a card payment', HOLD_STATES, [...HOLD, 'capturePayment', RETRIEVE, 'retrieveInvoice']),
  pending('checkout.hold-states.partial-capture-lowers-invoice', '`authorized` → partial capture → `captured`; a session-created invoice is lowered to the captured amount, the rest shown as discount', HOLD_STATES, [...HOLD, 'capturePayment', RETRIEVE, 'retrieveInvoice']),
  pending('checkout.hold-states.release', '`authorized` → release → `released`; nothing charged and the session-created invoice is cancelled', HOLD_STATES, [...HOLD, 'releasePayment', RETRIEVE, 'retrieveInvoice']),
  clocked('checkout.hold-states.lapse-after-7-days', '`authorized` → 7 days pass uncaptured → `expired` (released)', HOLD_STATES, [...HOLD], {
    async run(ctx) {
      const s = await newHoldSession(ctx);
      await payByCard(ctx, s);
      const open = await getSessionStatus(ctx, s.id);
      expectStatus(open, 200, 'poll the hold session');
      assert.equal(open.json.holdStatus, 'authorized', 'the hold is open');
      const lapsesIn = secondsUntil(open.json.authorizationExpiresAt, (await advanceClock(ctx, 1)).now);
      assert.ok(lapsesIn > 6 * 86_400 && lapsesIn <= 7 * 86_400, `the hold lasts 7 days (lapses in ${lapsesIn} s)`);
      await advanceClock(ctx, lapsesIn - 60);
      assert.equal((await getSessionStatus(ctx, s.id)).json.holdStatus, 'authorized', 'a minute before it lapses the hold is still open');
      await advanceClock(ctx, 61);
      const lapsed = await getSessionStatus(ctx, s.id);
      assert.equal(lapsed.json.holdStatus, 'expired', 'after 7 days uncaptured the hold is expired');
      assert.ok(lapsed.json.authorizationExpiresAt == null, 'authorizationExpiresAt only while the hold is open');
    },
  }),
  pending('checkout.hold-states.authorization-expires-in-7-days', 'A hold lasts 7 days unless the payment option sets its own: `authorizationExpiresAt` is 7 days after authorization', source(CHECKOUT_DOC, 'Limits'), [...HOLD]),
  pending('checkout.holds.hold-result-fields', 'Capture and release answer paymentId, referenceNumber, status, authorizedAmount, capturedAmount, currency, authorizationExpiresAt (null when no longer open), capturedAt and alreadyDone', HOLD_RESULT, [...HOLD, 'capturePayment']),
  pending('checkout.holds.capture-once', 'A capture happens once: a second capture with another amount is refused with 409 `hold_not_capturable`; the uncaptured remainder lapses', CAPTURE_RULES, [...HOLD, 'capturePayment']),
  pending('checkout.holds.release-no-amount', 'Releasing needs no amount (no body)', CAPTURE_RULES, [...HOLD, 'releasePayment']),
  pending('checkout.holds.repeat-capture-already-done', 'Repeating a capture that went through returns `alreadyDone` true', CAPTURE_RULES, [...HOLD, 'capturePayment']),
  pending('checkout.holds.repeat-release-already-done', 'Repeating a release that went through returns `alreadyDone` true', CAPTURE_RULES, [...HOLD, 'releasePayment']),
  pending('checkout.holds.no-hold-capable-option', 'A merchant without a card option able to hold a card gets `validation_error` creating a hold session (needs such a merchant)', CAPTURE_RULES, [SESSION]),
  {
    id: 'checkout.holds.only-hold-capable-options-offered',
    title: 'Only card options able to hold a card are offered on a hold session (retrieval `allowedPaymentMethods`)',
    source: CAPTURE_RULES,
    requires: [SESSION, RETRIEVE],
    serverOnly: true,
    async run(ctx) {
      const s = await newHoldSession(ctx);
      const offered: unknown = (await retrieveSession(ctx, s.id)).allowedPaymentMethods;
      if (offered === null) pendingBecause('the target answers allowedPaymentMethods null for the hold session, so what is offered cannot be seen');
      assert.ok(Array.isArray(offered), 'allowedPaymentMethods is a list');
      const methods = offered as string[];
      assert.ok(methods.length > 0, 'a hold session offers at least one card option');
      assert.deepEqual(methods.filter((m) => m.startsWith('wallet:')), [], `a hold session must offer no wallet option, got ${JSON.stringify(methods)}`);
      assert.ok(methods.includes('card'), `a hold session offers the card form, got ${JSON.stringify(methods)}`);
    },
  },
  pending('checkout.holds.nothing-paid-until-capture', 'Nothing is paid, settled or receipted until capture: no receipt message, invoice unpaid, settlement refused', CAPTURE_RULES, [...HOLD, MESSAGES, 'settleTestPayment', 'retrieveInvoice']),
  pending('checkout.holds.more-than-authorized', 'Capturing more than was authorized is refused with 409 `hold_not_capturable`', NAMED_CODES, [...HOLD, 'capturePayment']),
  pending('checkout.holds.not-a-hold', 'Capturing a payment that is not a card hold is refused with 409 `hold_not_capturable`', NAMED_CODES, [...PAY_CARD, STATUS, 'capturePayment']),
  pending('checkout.holds.release-after-capture', 'Releasing a captured hold is refused with 409 `hold_not_capturable`', NAMED_CODES, [...HOLD, 'capturePayment', 'releasePayment']),
  clocked('checkout.holds.capture-after-lapse', 'Capturing a lapsed hold is refused with 409 `hold_not_capturable`', NAMED_CODES, [...HOLD, 'capturePayment'], {
    async run(ctx) {
      const s = await newHoldSession(ctx);
      const confirmed = await payByCard(ctx, s);
      await advanceClock(ctx, 7 * 86_400 + 60);
      const res = await call(ctx, 'checkout', 'capturePayment', { method: 'POST', path: `/v1/payments/${confirmed.paymentResult.id}/capture`, key: secretKey(ctx), body: {} });
      expectError(res, 409, 'conflict', 'hold_not_capturable');
    },
  }),
  pending('checkout.holds.operation-failed-502', 'A processor failure during capture or release answers 502 `hold_operation_failed`, and retrying is safe (cannot be provoked yet)', NAMED_CODES, [...HOLD, 'capturePayment']),
  pending('checkout.holds.other-merchant-404', 'Capturing or releasing another merchant\'s payment answers 404', CAPTURE_RULES, [...HOLD, 'capturePayment', 'releasePayment']),
];

// ---------------------------------------------------------------------------------------------
// Refunds
// ---------------------------------------------------------------------------------------------

const refunds: Scenario[] = [
  pending('checkout.refunds.result-fields', 'A refund answers sessionId, paymentId (number), paymentReferenceNumber, status, amount (paid), currency, alreadyRefunded, refundAmount (this one), refundedAmount (so far) and amountRefundable (left)', REFUND_RESULT, [...PAY_CARD, 'refundCheckoutSession']),
  pending('checkout.refunds.rule-1-omit-amount-refunds-rest', 'Omitting `amount` refunds all that is left (after a partial refund, the rest)', REFUND_RULES, [...PAY_CARD, 'refundCheckoutSession']),
  pending('checkout.refunds.rule-2-card-partial-repeated', 'Card payments can be refunded in part, repeatedly, up to the amount paid: `partially_refunded` until nothing is left, then `refunded`', REFUND_RULES, [...PAY_CARD, 'refundCheckoutSession']),
  pending('checkout.refunds.rule-2-more-than-left', 'Refunding more than is left is refused with 400 `validation_error`', REFUND_RULES, [...PAY_CARD, 'refundCheckoutSession']),
  {
    id: 'checkout.refunds.rule-3-wallet-full-only',
    title: 'Wallet QR payments refund in full only: a smaller amount is refused with 400 `partial_refund_not_supported`',
    source: REFUND_RULES,
    requires: [...PAY_QR, 'refundCheckoutSession'],
    serverOnly: true,
    async run(ctx) {
      const s = await newQrPaidSession(ctx);
      expectEnvelopeError(await refundSession(ctx, s, { amount: 1 }), 400, 'invalid_request', 'partial_refund_not_supported');
    },
  },
  pending('checkout.refunds.rule-4-settled-from-balance', 'A payment settled to the balance can still be refunded: the amount is taken from the balance and the settlement fee is not returned', REFUND_RULES, [...PAY_CARD, 'settleTestPayment', 'refundCheckoutSession', 'listAccounts', 'getAccountBalance']),
  pending('checkout.refunds.rule-4-balance-short', 'Refunding a settled payment when the balance is short is refused with 409 `refund_failed`', REFUND_RULES, [...PAY_CARD, 'settleTestPayment', 'listAccounts', 'createTransfer', 'refundCheckoutSession']),
  pending('checkout.refunds.rule-5-repeat-already-refunded', 'Repeating a refund returns `alreadyRefunded` true without refunding again', REFUND_RULES, [...PAY_CARD, 'refundCheckoutSession']),
  pending('checkout.refunds.rule-5-retry-after-failure-safe', 'A retry after `refund_failed` is safe and never refunds twice (cannot provoke a processor failure yet)', REFUND_RULES, [...PAY_CARD, 'refundCheckoutSession']),
  pending('checkout.refunds.rule-6-other-merchant-404', 'Refunding another merchant\'s session or payment answers 404', REFUND_RULES, [...PAY_CARD, 'refundCheckoutSession', 'refundPayment', RETRIEVE]),
  pending('checkout.refunds.rule-6-other-mode-404', 'Refunding a session or payment of the other mode answers 404', REFUND_RULES, [...PAY_CARD, 'refundCheckoutSession', 'refundPayment']),
  pending('checkout.refunds.rule-6-payment-not-from-session-404', '`/v1/payments/{paymentId}/refund` of a payment not made through a checkout session answers 404', REFUND_RULES, ['createCommercePayment', 'refundPayment']),
  pending('checkout.refunds.rule-7-partial-stays-success', 'After a partial refund the payment stays Success and `payment.refunded` carries refundAmount and refundedAmount', REFUND_RULES, [...PAY_CARD, 'refundCheckoutSession', 'createWebhookConfiguration', 'listWebhookDeliveries']),
  pending('checkout.refunds.rule-8-retry-same-call', 'After `refund_failed`, retrying the same call completes the refund without exceeding the amount paid (cannot provoke a failure yet)', REFUND_RULES, [...PAY_CARD, 'refundCheckoutSession', 'refundPayment']),
  pending('checkout.refunds.by-payment-id', '`POST /v1/payments/{paymentId}/refund` refunds like the session refund, with the same result', REFUND_RULES, [...PAY_CARD, STATUS, RETRIEVE, 'refundPayment']),
  pending('checkout.refunds.nothing-to-refund', 'Refunding a session with no payment answers 409 `nothing_to_refund`', NAMED_CODES, [SESSION, 'refundCheckoutSession']),
  {
    id: 'checkout.refunds.not-yet-paid',
    title: 'Refunding a payment not yet paid (a QR code shown, 3-D Secure pending) answers 400 `payment_not_refundable`',
    source: NAMED_CODES,
    requires: [...ISSUE_QR, 'refundCheckoutSession'],
    serverOnly: true,
    async run(ctx) {
      const { s } = await newQrSession(ctx);
      expectEnvelopeError(await refundSession(ctx, s), 400, 'invalid_request', 'payment_not_refundable');
    },
  },
  {
    id: 'checkout.refunds.in-progress-409',
    title: 'Refunding while another refund is under way answers 409 `payment_not_refundable`, reason `refund_pending`, manualRefundRequired false',
    source: NAMED_CODES,
    requires: [...PAY_QR, 'refundCheckoutSession'],
    serverOnly: true,
    async run(ctx) {
      const s = await newQrPaidSession(ctx);
      const first = await refundSession(ctx, s);
      expectStatus(first, 200, 'refund the wallet payment');
      if (first.json.status !== 'pending_reversal') pendingBecause(`the wallet refund finished at once (${first.json.status}), so none is under way`);
      const again = await refundSession(ctx, s);
      expectEnvelopeError(again, 409, 'conflict', 'payment_not_refundable');
      assert.equal(again.json.data.reason, 'refund_pending');
      assert.equal(again.json.data.manualRefundRequired, false);
    },
  },
  pending('checkout.refunds.failed-502', 'A processing error answers 502 `refund_failed` with data.retryable (cannot be provoked yet)', NAMED_CODES, [...PAY_CARD, 'refundCheckoutSession']),
  pending('checkout.refunds.error-data', 'The `data` of `refund_failed` and `payment_not_refundable` errors holds refundable, reason, manualRefundRequired and, for `refund_failed`, retryable', NAMED_CODES, [SESSION, ...ISSUE_QR, 'refundCheckoutSession']),
  pending('checkout.refunds.errors-in-envelope', 'Refund failures answer in the envelope form', NAMED_CODES, [SESSION, 'refundCheckoutSession']),
  pending('checkout.refund-states.paid-partial', 'paid → partial refund (card only) → `partially_refunded`, the payment stays Success', REFUND_STATES, [...PAY_CARD, 'refundCheckoutSession']),
  pending('checkout.refund-states.partial-rest', '`partially_refunded` → refund of the rest → `refunded`', REFUND_STATES, [...PAY_CARD, 'refundCheckoutSession']),
  pending('checkout.refund-states.paid-full', 'paid → full refund → `refunded`', REFUND_STATES, [...PAY_CARD, 'refundCheckoutSession']),
  clocked('checkout.refund-states.wallet-pending-reversal', 'paid → wallet refund accepted but not finished → `pending_reversal`, which completes on its own; `payment.refunded` signals it', REFUND_STATES, [...PAY_QR, 'refundCheckoutSession', RETRIEVE, 'createWebhookConfiguration', 'listWebhookDeliveries'], {
    async run(ctx) {
      const watch = await call(ctx, 'checkout', 'createWebhookConfiguration', {
        method: 'POST',
        path: '/v1/WebhookConfiguration',
        key: secretKey(ctx),
        body: { sandboxUrl: `https://conformance-${tag(ctx)}.till.invalid/hooks`, subscribedEvents: ['payment.refunded'], description: `Conformance ${tag(ctx)}` },
      });
      expectStatus(watch, 201, 'watch payment.refunded');
      ctx.onCleanup(() => ctx.request('checkout', 'deleteWebhookConfiguration', { method: 'DELETE', path: `/v1/WebhookConfiguration/${watch.json.id}`, key: secretKey(ctx) }));
      const s = await newQrPaidSession(ctx);
      const first = await refundSession(ctx, s);
      expectStatus(first, 200, 'refund the wallet payment');
      if (first.json.status !== 'pending_reversal') pendingBecause(`the wallet refund finished at once (${first.json.status})`);
      assert.equal((await retrieveSession(ctx, s.id)).refund?.reason, 'refund_pending', 'while it is under way the session reads refund_pending');
      await advanceClock(ctx, 24 * 3600);
      assert.equal((await retrieveSession(ctx, s.id)).refund?.reason, 'already_refunded', 'it completed on its own');
      const log = await call(ctx, 'checkout', 'listWebhookDeliveries', { method: 'GET', path: `/v1/WebhookConfiguration/${watch.json.id}/deliveries`, key: secretKey(ctx) });
      expectStatus(log, 200, 'the delivery log');
      const refunded = log.json.data.filter((d: any) => d.eventType === 'payment.refunded' && d.event?.data?.object?.id === first.json.paymentId);
      assert.equal(refunded.length, 1, 'payment.refunded signals the completed refund, once');
    },
  }),
];

// ---------------------------------------------------------------------------------------------
// Subscriptions
// ---------------------------------------------------------------------------------------------

const SUB_EVENTS = ['createWebhookConfiguration', 'listWebhookDeliveries'];

/** Starts a subscription on a free trial (no card needed) for a new customer; answers the session and the subscription id. */
async function trialSubscription(ctx: ConformanceContext, label: string, trialDays = 14, parts?: { plan: any; customer: any }): Promise<{ session: any; subscriptionId: number; plan: any; customer: any }> {
  const { plan, customer } = parts ?? (await subscriptionParts(ctx, label));
  const res = await postSubscriptionSession(ctx, { subscriptionPlanId: plan.id, clientId: customer.id, trialDays });
  expectStatus(res, 201, 'create a free-trial subscription session');
  const r = await retrieveSession(ctx, res.json.id);
  assert.equal(typeof r.subscriptionId, 'number', `a free-trial session has its subscriptionId at once: ${JSON.stringify(r).slice(0, 200)}`);
  return { session: res.json, subscriptionId: r.subscriptionId, plan, customer };
}

/** Starts a subscription paid by card (test card 4242...) for a new customer; needs the publishable key. */
async function paidSubscription(ctx: ConformanceContext, label: string, parts?: { plan: any; customer: any }): Promise<{ session: any; subscriptionId: number; plan: any; customer: any }> {
  const pk = publishableKey(ctx);
  const { plan, customer } = parts ?? (await subscriptionParts(ctx, label));
  const res = await postSubscriptionSession(ctx, { subscriptionPlanId: plan.id, clientId: customer.id });
  expectStatus(res, 201, 'create a subscription session');
  const s = res.json;
  const pm = await call(ctx, 'checkout', 'tokenizeCard', { method: 'POST', path: `/v1/checkout-sessions/${s.id}/tokenize`, key: pk, clientSecret: s.clientSecret, body: { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 3, cvc: '123' } });
  expectStatus(pm, 201, 'tokenize the test card');
  const confirmed = await call(ctx, 'checkout', 'confirmCheckoutSession', { method: 'POST', path: `/v1/checkout-sessions/${s.id}/confirm`, key: pk, clientSecret: s.clientSecret, body: { paymentMethodId: pm.json.id } });
  expectStatus(confirmed, 200, 'confirm the subscription session');
  const r = await retrieveSession(ctx, s.id);
  assert.equal(typeof r.subscriptionId, 'number', `a confirmed subscription session has its subscriptionId: ${JSON.stringify(r).slice(0, 200)}`);
  return { session: s, subscriptionId: r.subscriptionId, plan, customer };
}

const getSubscription = (ctx: ConformanceContext, id: number, key = secretKey(ctx)) => call(ctx, 'checkout', 'retrieveSubscription', { method: 'GET', path: `/v1/subscriptions/${id}`, key });
const subscriptionOf = async (ctx: ConformanceContext, id: number) => envelopeData(await getSubscription(ctx, id), 200, `retrieve subscription ${id}`);
const listSubscriptionsPage = async (ctx: ConformanceContext, query: Record<string, string | number>) =>
  envelopeData(await call(ctx, 'checkout', 'listSubscriptions', { method: 'GET', path: '/v1/subscriptions', key: secretKey(ctx), query }), 200, 'list subscriptions');
const SUBSCRIPTION_STATUSES = ['active', 'trialing', 'past_due', 'unpaid', 'paused', 'canceled', 'pending'];

const subscriptions: Scenario[] = [
  {
    id: 'checkout.subscriptions.fields',
    title: 'A subscription answers id, object `subscription`, status, clientId, clientEmail, planId, planName, amount, currency, interval, intervalCount, period dates, trialEnd, cancelAtPeriodEnd, canceledAt, pausedAt, hasPaymentMethod, livemode and items',
    source: SUBSCRIPTION_FIELDS,
    requires: [...SUBSCRIBE_TRIAL],
    serverOnly: true,
    async run(ctx) {
      const { subscriptionId, plan, customer } = await trialSubscription(ctx, 'subscription fields');
      const sub = await subscriptionOf(ctx, subscriptionId);
      assert.equal(sub.id, subscriptionId);
      assert.equal(sub.object, 'subscription');
      assert.equal(sub.status, 'trialing', 'a free trial reads trialing');
      assert.equal(sub.clientId, customer.id);
      assert.equal(sub.clientEmail, customer.email);
      assert.equal(sub.planId, plan.id);
      assert.equal(sub.planName, plan.name);
      assert.equal(sub.amount, plan.amount);
      assert.equal(sub.currency, plan.currency);
      assert.equal(sub.interval, plan.interval);
      assert.equal(sub.intervalCount, plan.intervalCount);
      for (const f of ['startDate', 'currentPeriodStart', 'currentPeriodEnd', 'trialEnd']) assert.ok(!Number.isNaN(Date.parse(sub[f])), `${f} is a timestamp`);
      assert.equal(sub.cancelAtPeriodEnd, false);
      assert.equal(sub.canceledAt, null);
      assert.equal(sub.pausedAt, null);
      assert.equal(sub.hasPaymentMethod, false, 'a free trial has no card on file');
      assert.equal(sub.livemode, false);
      assert.ok(Array.isArray(sub.items) && sub.items.length === 1, 'one item');
      assert.equal(sub.items[0].planId, plan.id);
    },
  },
  pending('checkout.subscriptions.started-through-checkout-only', 'Subscriptions are started only through a checkout session with `paymentType` `subscription`, `subscriptionPlanId` and `clientId`', SUBSCRIPTION_ENDPOINTS, [...SUBSCRIBE]),
  {
    id: 'checkout.subscriptions.no-create-endpoint',
    title: 'There is no endpoint that creates a subscription directly: `POST /v1/subscriptions` is not an operation (404)',
    source: SUBSCRIPTION_ENDPOINTS,
    requires: [],
    serverOnly: true,
    async run(ctx) {
      const res = await rawFetch(ctx, 'POST', '/v1/subscriptions', { Authorization: `Bearer ${secretKey(ctx)}`, 'Content-Type': 'application/json' }, '{}');
      expectError(res, 404, 'not_found');
    },
  },
  {
    id: 'checkout.subscriptions.update-payment-method-not-available',
    title: '`/v1/subscriptions/{id}/update-payment-method` is not available (404); the card on file changes only in the customer portal',
    source: SUBSCRIPTION_ENDPOINTS,
    requires: [],
    serverOnly: true,
    async run(ctx) {
      for (const method of ['POST', 'GET', 'PUT']) {
        const res = await rawFetch(ctx, method, '/v1/subscriptions/1/update-payment-method', { Authorization: `Bearer ${secretKey(ctx)}` });
        expectError(res, 404, 'not_found');
      }
    },
  },
  {
    id: 'checkout.subscriptions.list-filters',
    title: 'The list filters by `clientId`, `status` and `planId` (subscriptions with an item on that plan)',
    source: SUBSCRIPTION_ENDPOINTS,
    requires: [...SUBSCRIBE_TRIAL, 'listSubscriptions'],
    serverOnly: true,
    async run(ctx) {
      const a = await trialSubscription(ctx, 'subscription filter a');
      const b = await trialSubscription(ctx, 'subscription filter b', 14, { plan: a.plan, customer: (await subscriptionParts(ctx, 'subscription filter b')).customer });
      const ids = (page: any) => page.data.map((x: any) => x.id);
      assert.deepEqual(ids(await listSubscriptionsPage(ctx, { clientId: a.customer.id })), [a.subscriptionId], 'clientId keeps that customer\'s subscriptions');
      assert.deepEqual(ids(await listSubscriptionsPage(ctx, { planId: a.plan.id, limit: 100 })), [b.subscriptionId, a.subscriptionId], 'planId keeps the subscriptions on that plan, newest first');
      assert.deepEqual(ids(await listSubscriptionsPage(ctx, { clientId: a.customer.id, status: 'trialing' })), [a.subscriptionId], 'status trialing keeps it');
      assert.deepEqual(ids(await listSubscriptionsPage(ctx, { clientId: a.customer.id, status: 'active' })), [], 'status active leaves a trial out');
    },
  },
  {
    id: 'checkout.subscriptions.list-paging',
    title: 'The list is newest first, `limit` 1-100 (default 25), `startingAfter` a subscription id (older items follow), `hasMore`',
    source: SUBSCRIPTION_ENDPOINTS,
    requires: [...SUBSCRIBE_TRIAL, 'listSubscriptions'],
    serverOnly: true,
    async run(ctx) {
      const parts = await subscriptionParts(ctx, 'subscription paging');
      const made: number[] = [];
      for (let i = 0; i < 3; i++) made.push((await trialSubscription(ctx, '', 7, parts)).subscriptionId);
      const first = await listSubscriptionsPage(ctx, { clientId: parts.customer.id, limit: 2 });
      assert.equal(first.object, 'list');
      assert.deepEqual(first.data.map((x: any) => x.id), [made[2], made[1]], 'newest first');
      assert.equal(first.hasMore, true, 'hasMore while older items follow');
      const next = await listSubscriptionsPage(ctx, { clientId: parts.customer.id, limit: 2, startingAfter: first.data[1].id });
      assert.deepEqual(next.data.map((x: any) => x.id), [made[0]], 'startingAfter gives the older items');
      assert.equal(next.hasMore, false);
      const all = await listSubscriptionsPage(ctx, { clientId: parts.customer.id });
      assert.equal(all.data.length, 3, 'the default limit holds all three');
      for (const limit of [0, 101]) {
        expectStatus(await call(ctx, 'checkout', 'listSubscriptions', { method: 'GET', path: '/v1/subscriptions', key: secretKey(ctx), query: { limit } }), 400, `limit ${limit}`);
      }
    },
  },
  {
    id: 'checkout.subscriptions.other-merchant-404',
    title: 'Another merchant\'s subscription answers 404',
    source: SUBSCRIPTION_ENDPOINTS,
    requires: [...SUBSCRIBE_TRIAL],
    serverOnly: true,
    async run(ctx) {
      const other = otherSecretKey(ctx);
      const { subscriptionId } = await trialSubscription(ctx, 'subscription other merchant');
      expectEnvelopeError(await getSubscription(ctx, subscriptionId, other), 404, 'not_found');
      expectEnvelopeError(await call(ctx, 'checkout', 'listSubscriptionInvoices', { method: 'GET', path: `/v1/subscriptions/${subscriptionId}/invoices`, key: other }), 404, 'not_found');
    },
  },
  {
    id: 'checkout.subscriptions.invoices-list',
    title: 'A subscription\'s invoices list newest first, up to 100, items {id, object `invoice`, invoiceNumber, status (`paid` shown), amount, amountPaid, currency, periodStart, periodEnd, dueDate}',
    source: SUBSCRIPTION_INVOICE,
    requires: [...SUBSCRIBE, 'listSubscriptionInvoices'],
    serverOnly: true,
    async run(ctx) {
      const { subscriptionId, plan } = await paidSubscription(ctx, 'subscription invoices');
      const sub = await subscriptionOf(ctx, subscriptionId);
      const page = envelopeData(await call(ctx, 'checkout', 'listSubscriptionInvoices', { method: 'GET', path: `/v1/subscriptions/${subscriptionId}/invoices`, key: secretKey(ctx), query: { limit: 100 } }), 200, 'list the subscription\'s invoices');
      assert.equal(page.object, 'list');
      assert.equal(page.data.length, 1, 'the first period\'s invoice');
      const invoice = page.data[0];
      assert.equal(invoice.object, 'invoice');
      assert.equal(typeof invoice.invoiceNumber, 'string');
      assert.equal(invoice.status, 'paid', 'the first invoice is paid');
      assert.equal(invoice.amount, plan.amount);
      assert.equal(invoice.amountPaid, plan.amount);
      assert.equal(invoice.currency, plan.currency);
      assert.equal(Date.parse(invoice.periodStart), Date.parse(sub.currentPeriodStart), 'periodStart is the current period\'s start');
      assert.equal(Date.parse(invoice.periodEnd), Date.parse(sub.currentPeriodEnd), 'periodEnd is the current period\'s end');
      assert.ok(!Number.isNaN(Date.parse(invoice.dueDate)), 'dueDate is a timestamp');
    },
  },
  pending('checkout.subscriptions.cancel-default-at-period-end', 'Cancel without a body defaults to `cancelAtPeriodEnd` true', SUBSCRIPTION_ENDPOINTS, [...SUBSCRIBE, 'cancelSubscription']),
  pending('checkout.subscriptions.pause-reason', 'Pause takes an optional `reason` and answers the subscription with status `paused`', SUBSCRIPTION_ENDPOINTS, [...SUBSCRIBE, 'pauseSubscription']),
  // State table, one per row.
  pending('checkout.subscription-states.pause-active', 'Any state but paused/canceled → pause → `paused`, `pausedAt` set, `subscription.paused` sent; there is no resume date', SUBSCRIPTION_STATES, [...SUBSCRIBE, 'pauseSubscription', ...SUB_EVENTS]),
  pending('checkout.subscription-states.pause-paused-400', '`paused` → pause → 400, no event', SUBSCRIPTION_STATES, [...SUBSCRIBE, 'pauseSubscription', ...SUB_EVENTS]),
  pending('checkout.subscription-states.pause-canceled-400', '`canceled` → pause → 400, no event', SUBSCRIPTION_STATES, [...SUBSCRIBE, 'cancelSubscription', 'pauseSubscription', ...SUB_EVENTS]),
  pending('checkout.subscription-states.resume-paused', '`paused` → resume → reactivated, `subscription.resumed` sent', SUBSCRIPTION_STATES, [...SUBSCRIBE, 'pauseSubscription', 'resumeSubscription', ...SUB_EVENTS]),
  pending('checkout.subscription-states.resume-not-paused-400', 'Not paused → resume → 400, no event', SUBSCRIPTION_STATES, [...SUBSCRIBE, 'resumeSubscription', ...SUB_EVENTS]),
  clocked('checkout.subscription-states.cancel-at-period-end', 'Not canceled → cancel with `cancelAtPeriodEnd` true → stays active until period end with `cancelAt` = period end; `subscription.cancelled` now and again when it takes effect', SUBSCRIPTION_STATES, [...SUBSCRIBE, 'cancelSubscription', ...SUB_EVENTS]),
  pending('checkout.subscription-states.cancel-now', 'Not canceled → cancel with `cancelAtPeriodEnd` false → `canceled`, `canceledAt` set, `subscription.cancelled`', SUBSCRIPTION_STATES, [...SUBSCRIBE, 'cancelSubscription', ...SUB_EVENTS]),
  pending('checkout.subscription-states.cancel-canceled-noop', '`canceled` → cancel → no-op, no event', SUBSCRIPTION_STATES, [...SUBSCRIBE, 'cancelSubscription', ...SUB_EVENTS]),
  pending('checkout.subscription-states.plan-change', 'Any → plan change (upgrade/downgrade) → new plan, `subscription.updated` (no API operation changes a plan; portal only)', SUBSCRIPTION_STATES, [...SUBSCRIBE, 'createPortalSession', ...SUB_EVENTS]),
  clocked('checkout.subscription-states.trial-end-activates', '`trialing` → trial ends (card added) → `active`, `subscription.activated`', SUBSCRIPTION_STATES, [...SUBSCRIBE_TRIAL, ...SUB_EVENTS]),
  pending('checkout.subscription-states.first-payment-activates', '`pending` → first payment → `active`, `subscription.activated`', SUBSCRIPTION_STATES, [...SUBSCRIBE, ...SUB_EVENTS]),
  clocked('checkout.subscription-states.past-due-recovery-activates', '`past_due` → recovery payment → `active`, `subscription.activated`', SUBSCRIPTION_STATES, [...SUBSCRIBE, 'createPortalSession', ...SUB_EVENTS]),
  clocked('checkout.subscription-states.renewal', '`active` → period rolls → new period, invoice raised, `subscription.renewed`', SUBSCRIPTION_STATES, [...SUBSCRIBE, 'listSubscriptionInvoices', ...SUB_EVENTS]),
  clocked('checkout.subscription-states.payment-fails-past-due', 'Any → payment attempt fails → `past_due`, `subscription.payment_failed` per dunning attempt, `subscription.past_due`', SUBSCRIPTION_STATES, [...SUBSCRIBE, ...SUB_EVENTS]),
  clocked('checkout.subscription-states.dunning-exhausted-unpaid', '`past_due` → dunning exhausted → `unpaid`, `subscription.unpaid`', SUBSCRIPTION_STATES, [...SUBSCRIBE, ...SUB_EVENTS]),
  {
    id: 'checkout.subscription-states.status-values',
    title: 'Subscription statuses are `active`, `trialing`, `past_due`, `unpaid`, `paused`, `canceled`, `pending` in the REST API',
    source: SUBSCRIPTION_STATES,
    requires: [...SUBSCRIBE_TRIAL, 'listSubscriptions'],
    serverOnly: true,
    async run(ctx) {
      const { subscriptionId } = await trialSubscription(ctx, 'subscription status values');
      assert.equal((await subscriptionOf(ctx, subscriptionId)).status, 'trialing');
      for (const s of (await listSubscriptionsPage(ctx, { limit: 100 })).data) assert.ok(SUBSCRIPTION_STATUSES.includes(s.status), `status ${s.status} is one of ${SUBSCRIPTION_STATUSES.join(', ')}`);
    },
  },
  pending('checkout.subscription-states.refused-sends-no-event', 'A refused or no-change request sends no event', SUBSCRIPTION_STATES, [...SUBSCRIBE, 'pauseSubscription', 'resumeSubscription', 'cancelSubscription', ...SUB_EVENTS]),
  pending('checkout.subscription-states.pause-no-renewal', 'No renewal is charged while paused', SUBSCRIPTION_STATES, [...SUBSCRIBE, 'pauseSubscription', 'listSubscriptionInvoices', 'advanceTestClock'], { needsClock: true }),
  // Renewal and card on file.
  {
    id: 'checkout.renewal.card-kept-on-subscription',
    title: 'A card paying the first invoice of a subscription is kept for renewals: the subscription has `hasPaymentMethod` true',
    source: RENEWAL,
    requires: [...SUBSCRIBE],
    serverOnly: true,
    async run(ctx) {
      const { subscriptionId } = await paidSubscription(ctx, 'subscription card kept');
      const sub = await subscriptionOf(ctx, subscriptionId);
      assert.equal(sub.status, 'active', 'the first payment makes it active');
      assert.equal(sub.hasPaymentMethod, true, 'the paying card is on file');
      assert.equal(sub.trialEnd, null, 'no trial');
    },
  },
  pending('checkout.renewal.card-kept-on-customer', 'The card is attached to the customer if they have none yet (`hasPaymentMethod` becomes true), and not when they already have one', RENEWAL, [...SUBSCRIBE, 'retrieveCustomer', 'listSavedCards']),
  pending('checkout.renewal.customer-told-beforehand', 'The checkout tells the customer beforehand that the card is kept (hosted page of a subscription session)', RENEWAL, [...SUBSCRIBE_TRIAL]),
  clocked('checkout.renewal.merchant-initiated', 'Renewals are charged automatically to the card on file (merchant-initiated): the renewal invoice is paid without the customer', RENEWAL, [...SUBSCRIBE, 'listSubscriptionInvoices']),
  pending('checkout.renewal.free-trial-no-card', 'A subscription starting on a free trial keeps no card at checkout (`hasPaymentMethod` false); the customer adds one in the portal', RENEWAL, [...SUBSCRIBE_TRIAL, 'retrieveCustomer', 'createPortalSession']),
];

// ---------------------------------------------------------------------------------------------
// Plans (runnable now)
// ---------------------------------------------------------------------------------------------

/** Ids (as numbers) of a list answer's items. */
const idsOf = (list: any): number[] => (list?.data ?? []).map((item: any) => item.id);

async function retrievePlan(ctx: ConformanceContext, id: number): Promise<any> {
  return envelopeData(await call(ctx, 'checkout', 'retrievePlan', { method: 'GET', path: `/v1/plans/${id}`, key: secretKey(ctx) }), 200, `retrieve plan ${id}`);
}

async function listPlansPage(ctx: ConformanceContext, query: Record<string, string | number | boolean>): Promise<any> {
  return envelopeData(await call(ctx, 'checkout', 'listPlans', { method: 'GET', path: '/v1/plans', key: secretKey(ctx), query }), 200, 'list plans');
}

const plans: Scenario[] = [
  {
    id: 'checkout.plans.create-fields',
    title: 'Creating a plan answers it with id, object `plan`, productId, name, description, amount, currency, interval, intervalCount, status `available`, active true and createdAt',
    source: PLAN_FIELDS,
    requires: ['createProduct', 'createPlan'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'plan fields');
      const plan = await newPlan(ctx, product.id, 'fields', { description: 'Quarterly beans', amount: 25.5, currency: 'USD', interval: 'month', intervalCount: 3 });
      assert.equal(typeof plan.id, 'number');
      assert.equal(plan.object, 'plan');
      assert.equal(plan.productId, product.id, 'the plan belongs to its product');
      assert.equal(plan.name, `Conformance ${tag(ctx)} fields`);
      assert.equal(plan.description, 'Quarterly beans');
      assert.equal(plan.amount, 25.5);
      assert.equal(plan.currency, 'USD');
      assert.equal(plan.interval, 'month');
      assert.equal(plan.intervalCount, 3);
      assert.equal(plan.status, 'available', 'a new plan is available');
      assert.equal(plan.active, true, 'a new plan is active by default');
      assert.equal(typeof plan.createdAt, 'string');
    },
  },
  {
    id: 'checkout.plans.intervals',
    title: 'A plan\'s interval is `day`, `week`, `month` or `year`; anything else is refused with 400',
    source: PLAN_ENDPOINTS,
    requires: ['createProduct', 'createPlan'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'intervals');
      for (const interval of ['day', 'week', 'month', 'year']) {
        const plan = await newPlan(ctx, product.id, `interval ${interval}`, { interval });
        assert.equal(plan.interval, interval);
      }
      const bad = await call(ctx, 'checkout', 'createPlan', {
        method: 'POST',
        path: '/v1/plans',
        key: secretKey(ctx),
        body: { productId: product.id, name: 'Fortnightly', amount: 5, currency: 'USD', interval: 'fortnight' },
      });
      expectEnvelopeError(bad, 400, 'invalid_request', undefined, 'interval');
    },
  },
  {
    id: 'checkout.plans.belongs-to-product',
    title: 'Every plan belongs to one of the merchant\'s products: a missing or unknown `productId` is refused with 400',
    source: PRODUCT_ENDPOINTS,
    requires: ['createPlan'],
    serverOnly: true,
    async run(ctx) {
      const body = { name: `Conformance ${tag(ctx)} orphan`, amount: 5, currency: 'USD', interval: 'month' };
      expectEnvelopeError(await call(ctx, 'checkout', 'createPlan', { method: 'POST', path: '/v1/plans', key: secretKey(ctx), body }), 400, 'invalid_request', undefined, 'productId');
      expectEnvelopeError(
        await call(ctx, 'checkout', 'createPlan', { method: 'POST', path: '/v1/plans', key: secretKey(ctx), body: { ...body, productId: 2147483000 } }),
        400,
        'invalid_request',
        undefined,
        'productId',
      );
    },
  },
  {
    id: 'checkout.plans.foreign-product',
    title: 'A plan on another merchant\'s product is refused with 400 (`productId`)',
    source: PLAN_FIELDS,
    requires: ['createProduct', 'createPlan'],
    serverOnly: true,
    async run(ctx) {
      const foreign = await newProduct(ctx, 'not yours', otherSecretKey(ctx));
      const res = await call(ctx, 'checkout', 'createPlan', {
        method: 'POST',
        path: '/v1/plans',
        key: secretKey(ctx),
        body: { productId: foreign.id, name: `Conformance ${tag(ctx)} foreign`, amount: 5, currency: 'USD', interval: 'month' },
      });
      expectEnvelopeError(res, 400, 'invalid_request', undefined, 'productId');
    },
  },
  {
    id: 'checkout.plans.draft',
    title: 'Creating a plan with `active` false makes a draft: status `available`, active false',
    source: PLAN_STATES,
    requires: ['createProduct', 'createPlan', 'retrievePlan'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'draft');
      const plan = await newPlan(ctx, product.id, 'draft', { active: false });
      assert.equal(plan.active, false, 'a plan created with active false is a draft');
      assert.equal(plan.status, 'available', 'a draft is available (status values are available and discontinued)');
      const read = await retrievePlan(ctx, plan.id);
      assert.equal(read.active, false);
    },
  },
  {
    id: 'checkout.plans.retrieve',
    title: 'Retrieving a plan answers the plan as created',
    source: PLAN_ENDPOINTS,
    requires: ['createProduct', 'createPlan', 'retrievePlan'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'retrieve plan');
      const plan = await newPlan(ctx, product.id, 'retrieve');
      assert.deepEqual(await retrievePlan(ctx, plan.id), plan, 'retrieve must answer the created plan');
    },
  },
  {
    id: 'checkout.plans.update-mutable-fields',
    title: 'Updating a plan changes `name`, `description` and `active`; the other fields keep their values',
    source: PLAN_ENDPOINTS,
    requires: ['createProduct', 'createPlan', 'updatePlan', 'retrievePlan'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'update plan');
      const plan = await newPlan(ctx, product.id, 'before', { description: 'Before' });
      const path = `/v1/plans/${plan.id}`;
      const renamed = envelopeData(
        await call(ctx, 'checkout', 'updatePlan', { method: 'PATCH', path, key: secretKey(ctx), body: { name: `Conformance ${tag(ctx)} after`, description: 'After' } }),
        200,
        'rename the plan',
      );
      assert.equal(renamed.name, `Conformance ${tag(ctx)} after`);
      assert.equal(renamed.description, 'After');
      assert.equal(renamed.active, true, 'active is kept when not sent');
      const drafted = envelopeData(await call(ctx, 'checkout', 'updatePlan', { method: 'PATCH', path, key: secretKey(ctx), body: { active: false } }), 200, 'deactivate the plan');
      assert.equal(drafted.active, false);
      assert.equal(drafted.name, `Conformance ${tag(ctx)} after`, 'name is kept when not sent');
      const read = await retrievePlan(ctx, plan.id);
      for (const field of ['amount', 'currency', 'interval', 'intervalCount', 'productId', 'createdAt']) {
        assert.deepEqual(read[field], plan[field], `${field} must not change on update`);
      }
    },
  },
  {
    id: 'checkout.plans.update-immutable-fields',
    title: '`amount`, `currency`, `interval` and `intervalCount` cannot be changed: sending any of them answers 400 and the plan is unchanged',
    source: PLAN_ENDPOINTS,
    requires: ['createProduct', 'createPlan', 'updatePlan', 'retrievePlan'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'immutable');
      const plan = await newPlan(ctx, product.id, 'immutable');
      const path = `/v1/plans/${plan.id}`;
      const attempts: [string, unknown][] = [
        ['amount', 29.99],
        ['amount', plan.amount],
        ['currency', 'EUR'],
        ['interval', 'year'],
        ['intervalCount', 2],
      ];
      for (const [field, value] of attempts) {
        const res = await call(ctx, 'checkout', 'updatePlan', { method: 'PATCH', path, key: secretKey(ctx), body: { name: 'Changed too', [field]: value } });
        expectEnvelopeError(res, 400, 'invalid_request', undefined, field);
      }
      const read = await retrievePlan(ctx, plan.id);
      assert.deepEqual(read, plan, 'a refused update must change nothing (the name sent alongside included)');
    },
  },
  {
    id: 'checkout.plans.archive',
    title: 'Archiving a plan answers it with status `discontinued`; it stays readable',
    source: PLAN_ENDPOINTS,
    requires: ['createProduct', 'createPlan', 'archivePlan', 'retrievePlan'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'archive');
      const plan = await newPlan(ctx, product.id, 'archive');
      const archived = envelopeData(await call(ctx, 'checkout', 'archivePlan', { method: 'DELETE', path: `/v1/plans/${plan.id}`, key: secretKey(ctx) }), 200, 'archive the plan');
      assert.equal(archived.id, plan.id);
      assert.equal(archived.status, 'discontinued', 'archiving sets status discontinued');
      assert.equal((await retrievePlan(ctx, plan.id)).status, 'discontinued', 'the archived plan stays readable');
    },
  },
  {
    id: 'checkout.plans.list-excludes-archived',
    title: 'The plan list leaves discontinued plans out; `includeArchived=true` lists them too',
    source: PLAN_ENDPOINTS,
    requires: ['createProduct', 'createPlan', 'archivePlan', 'listPlans'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'list archived');
      const archivedPlan = await newPlan(ctx, product.id, 'archived one');
      const sentinel = await newPlan(ctx, product.id, 'sentinel');
      envelopeData(await call(ctx, 'checkout', 'archivePlan', { method: 'DELETE', path: `/v1/plans/${archivedPlan.id}`, key: secretKey(ctx) }), 200, 'archive');
      // Items after the sentinel are the older ones: the archived plan is among the first of them.
      const without = await listPlansPage(ctx, { startingAfter: sentinel.id, limit: 100 });
      assert.ok(!idsOf(without).includes(archivedPlan.id), 'a discontinued plan must be left out by default');
      const withArchived = await listPlansPage(ctx, { startingAfter: sentinel.id, limit: 100, includeArchived: true });
      const found = (withArchived.data as any[]).find((p) => p.id === archivedPlan.id);
      assert.ok(found, 'includeArchived=true must list the discontinued plan');
      assert.equal(found.status, 'discontinued');
    },
  },
  {
    id: 'checkout.plans.list-includes-drafts',
    title: 'Draft plans (`active` false) are listed',
    source: PLAN_STATES,
    requires: ['createProduct', 'createPlan', 'listPlans'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'list drafts');
      const draft = await newPlan(ctx, product.id, 'listed draft', { active: false });
      const sentinel = await newPlan(ctx, product.id, 'draft sentinel');
      const page = await listPlansPage(ctx, { startingAfter: sentinel.id, limit: 100 });
      assert.ok(idsOf(page).includes(draft.id), 'a draft plan must be listed');
    },
  },
  {
    id: 'checkout.plans.status-values',
    title: 'Plan status is `available` (active or draft) or `discontinued` (archived)',
    source: PLAN_STATES,
    requires: ['createProduct', 'createPlan', 'updatePlan', 'archivePlan'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'status values');
      const plan = await newPlan(ctx, product.id, 'status values');
      assert.equal(plan.status, 'available');
      const draft = envelopeData(await call(ctx, 'checkout', 'updatePlan', { method: 'PATCH', path: `/v1/plans/${plan.id}`, key: secretKey(ctx), body: { active: false } }), 200, 'draft');
      assert.equal(draft.status, 'available', 'a draft is still available');
      const archived = envelopeData(await call(ctx, 'checkout', 'archivePlan', { method: 'DELETE', path: `/v1/plans/${plan.id}`, key: secretKey(ctx) }), 200, 'archive');
      assert.equal(archived.status, 'discontinued');
    },
  },
  {
    id: 'checkout.plans.other-merchant-404',
    title: 'Another merchant\'s plan answers 404 to retrieve, update and archive',
    source: PLAN_ENDPOINTS,
    requires: ['createProduct', 'createPlan', 'retrievePlan', 'updatePlan', 'archivePlan'],
    serverOnly: true,
    async run(ctx) {
      const other = otherSecretKey(ctx);
      const product = await newProduct(ctx, 'their plan', other);
      const plan = await newPlan(ctx, product.id, 'theirs', {}, other);
      const path = `/v1/plans/${plan.id}`;
      expectEnvelopeError(await call(ctx, 'checkout', 'retrievePlan', { method: 'GET', path, key: secretKey(ctx) }), 404, 'not_found');
      expectEnvelopeError(await call(ctx, 'checkout', 'updatePlan', { method: 'PATCH', path, key: secretKey(ctx), body: { name: 'Mine now' } }), 404, 'not_found');
      expectEnvelopeError(await call(ctx, 'checkout', 'archivePlan', { method: 'DELETE', path, key: secretKey(ctx) }), 404, 'not_found');
    },
  },
  pending('checkout.plans.shared-by-modes', 'Plans are shared by test and live keys (needs a live key)', PLAN_ENDPOINTS, ['createProduct', 'createPlan', 'retrievePlan', 'listPlans']),
  {
    id: 'checkout.plan-states.draft-no-new-subscriptions',
    title: 'No subscription can start on a draft plan (a subscription session on it is refused)',
    source: PLAN_STATES,
    requires: ['createProduct', 'createPlan', 'createCustomer', SESSION],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'draft plan session');
      const draft = await newPlan(ctx, product.id, 'draft for a session', { active: false });
      const customer = envelopeData(await postCustomer(ctx, { email: emailFor(ctx, 'draft-plan') }), 201, 'create a customer');
      // The customer is valid, so a refusal naming the plan is about the plan being a draft.
      expectError(await postSubscriptionSession(ctx, { subscriptionPlanId: draft.id, clientId: customer.id }), 400, 'invalid_request', undefined, 'subscriptionPlanId');
    },
  },
  {
    id: 'checkout.plan-states.archived-no-new-subscriptions',
    title: 'No new subscription can start on an archived plan (a subscription session on it is refused)',
    source: PLAN_STATES,
    requires: ['createProduct', 'createPlan', 'archivePlan', 'createCustomer', SESSION],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'archived plan session');
      const plan = await newPlan(ctx, product.id, 'archived for a session');
      const archived = envelopeData(await call(ctx, 'checkout', 'archivePlan', { method: 'DELETE', path: `/v1/plans/${plan.id}`, key: secretKey(ctx) }), 200, 'archive');
      assert.equal(archived.status, 'discontinued');
      const customer = envelopeData(await postCustomer(ctx, { email: emailFor(ctx, 'archived-plan') }), 201, 'create a customer');
      expectError(await postSubscriptionSession(ctx, { subscriptionPlanId: plan.id, clientId: customer.id }), 400, 'invalid_request', undefined, 'subscriptionPlanId');
    },
  },
  clocked('checkout.plan-states.archived-keeps-billing', 'Existing subscriptions on an archived plan keep billing (renewal after archive)', PLAN_STATES, [...SUBSCRIBE, 'archivePlan', 'listSubscriptionInvoices']),
];

// ---------------------------------------------------------------------------------------------
// Customers (runnable now)
// ---------------------------------------------------------------------------------------------

async function listCustomers(ctx: ConformanceContext, query: Record<string, string | number | boolean>): Promise<any> {
  return envelopeData(await call(ctx, 'checkout', 'listCustomers', { method: 'GET', path: '/v1/customers', key: secretKey(ctx), query }), 200, 'list customers');
}

const customers: Scenario[] = [
  {
    id: 'checkout.customers.create-fields',
    title: 'Creating a customer answers id (number), object `customer`, email, name, phone, externalId, metadata, hasPaymentMethod false and createdAt',
    source: CUSTOMER_FIELDS,
    requires: ['createCustomer', 'retrieveCustomer'],
    serverOnly: true,
    async run(ctx) {
      const body = { email: emailFor(ctx, 'fields'), name: 'Ana Lopez', phone: '+15551234567', externalId: `conf-${tag(ctx)}-fields`, metadata: { plan: 'gold' } };
      const customer = envelopeData(await postCustomer(ctx, body), 201, 'create a customer');
      assert.equal(typeof customer.id, 'number');
      assert.equal(customer.object, 'customer');
      for (const field of ['email', 'name', 'phone', 'externalId'] as const) assert.equal(customer[field], body[field], `${field} is kept`);
      assert.deepEqual(customer.metadata, body.metadata);
      assert.equal(customer.hasPaymentMethod, false, 'a new customer has no card on file');
      const read = envelopeData(await call(ctx, 'checkout', 'retrieveCustomer', { method: 'GET', path: `/v1/customers/${customer.id}`, key: secretKey(ctx) }), 200, 'retrieve');
      assert.deepEqual(read, customer, 'retrieve answers the created customer');
    },
  },
  {
    id: 'checkout.customers.repeat-safe-by-email',
    title: 'Creating is repeat-safe: without `externalId` it returns the existing customer with the same email',
    source: CUSTOMER_ENDPOINTS,
    requires: ['createCustomer'],
    serverOnly: true,
    async run(ctx) {
      const email = emailFor(ctx, 'repeat');
      const first = envelopeData(await postCustomer(ctx, { email, name: 'First' }), 201, 'first create');
      const againRes = await postCustomer(ctx, { email, name: 'Second' });
      const again = envelopeData(againRes, againRes.status === 201 ? 201 : 200, 'repeat create');
      assert.equal(again.id, first.id, 'the same email must return the existing customer');
    },
  },
  {
    id: 'checkout.customers.external-id-never-matches-email',
    title: 'With `externalId` create returns the customer with that id and never matches by email: accounts sharing an email stay separate customers',
    source: CUSTOMER_ENDPOINTS,
    requires: ['createCustomer'],
    serverOnly: true,
    async run(ctx) {
      const email = emailFor(ctx, 'shared');
      const a = envelopeData(await postCustomer(ctx, { email, externalId: `conf-${tag(ctx)}-acct-a` }), 201, 'account A');
      const b = envelopeData(await postCustomer(ctx, { email, externalId: `conf-${tag(ctx)}-acct-b` }), 201, 'account B (same email, other externalId)');
      assert.notEqual(b.id, a.id, 'another externalId with the same email must be another customer');
      const byEmailOnly = envelopeData(await postCustomer(ctx, { email: emailFor(ctx, 'unmatched'), externalId: `conf-${tag(ctx)}-acct-a` }), 200, 'account A again, other email');
      assert.equal(byEmailOnly.id, a.id, 'the same externalId returns that customer, whatever email is sent');
    },
  },
  {
    id: 'checkout.customers.list-filter-email',
    title: 'The customer list filters by `email`',
    source: CUSTOMER_ENDPOINTS,
    requires: ['createCustomer', 'listCustomers'],
    serverOnly: true,
    async run(ctx) {
      const email = emailFor(ctx, 'filter');
      const mine = envelopeData(await postCustomer(ctx, { email }), 201, 'create');
      envelopeData(await postCustomer(ctx, { email: emailFor(ctx, 'filter-other') }), 201, 'create another');
      const page = await listCustomers(ctx, { email });
      assert.deepEqual(idsOf(page), [mine.id], 'only the customer with that email is listed');
    },
  },
  {
    id: 'checkout.customers.list-filter-external-id',
    title: 'The customer list filters by `externalId`',
    source: CUSTOMER_ENDPOINTS,
    requires: ['createCustomer', 'listCustomers'],
    serverOnly: true,
    async run(ctx) {
      const externalId = `conf-${tag(ctx)}-filter-ext`;
      const mine = envelopeData(await postCustomer(ctx, { email: emailFor(ctx, 'filter-ext'), externalId }), 201, 'create');
      const page = await listCustomers(ctx, { externalId });
      assert.deepEqual(idsOf(page), [mine.id], 'only the customer with that externalId is listed');
    },
  },
  {
    id: 'checkout.customers.list-default-limit-10',
    title: 'The customer list has its own default `limit` of 10',
    source: LIST_WRAPPER,
    requires: ['createCustomer', 'listCustomers'],
    serverOnly: true,
    async run(ctx) {
      const existing = await listCustomers(ctx, { limit: 11 });
      for (let i = existing.data.length; i < 11; i++) envelopeData(await postCustomer(ctx, { email: emailFor(ctx, `bulk${i}`) }), 201, 'create');
      const page = await listCustomers(ctx, {});
      assert.equal(page.data.length, 10, 'without limit the customer list answers 10 items');
      assert.equal(page.hasMore, true, 'more customers follow');
    },
  },
  {
    id: 'checkout.customers.other-merchant-404',
    title: 'Another merchant\'s customer answers 404 and is never matched by create',
    source: CUSTOMER_ENDPOINTS,
    requires: ['createCustomer', 'retrieveCustomer', 'listCustomers'],
    serverOnly: true,
    async run(ctx) {
      const other = otherSecretKey(ctx);
      const email = emailFor(ctx, 'theirs');
      const theirs = envelopeData(await postCustomer(ctx, { email }, other), 201, 'the other merchant\'s customer');
      expectEnvelopeError(await call(ctx, 'checkout', 'retrieveCustomer', { method: 'GET', path: `/v1/customers/${theirs.id}`, key: secretKey(ctx) }), 404, 'not_found');
      assert.deepEqual(idsOf(await listCustomers(ctx, { email })), [], 'another merchant\'s customer is not listed');
      const mine = envelopeData(await postCustomer(ctx, { email }), 201, 'my customer with the same email is a new one');
      assert.notEqual(mine.id, theirs.id);
    },
  },
  pending('checkout.customers.no-mode', 'Customers have no test/live mode: a live key sees the customers a test key created (needs a live key)', CUSTOMER_ENDPOINTS, ['createCustomer', 'retrieveCustomer', 'listCustomers']),
  pending('checkout.customers.separate-subscriptions-and-portal', 'Customers sharing an email keep their own subscriptions and portal', CUSTOMER_ENDPOINTS, [...SUBSCRIBE, 'listSubscriptions', 'createPortalSession']),
];

// ---------------------------------------------------------------------------------------------
// Products (runnable now)
// ---------------------------------------------------------------------------------------------

const products: Scenario[] = [
  {
    id: 'checkout.products.create-and-retrieve',
    title: 'Creating a product with `name` and `description` answers it; retrieving answers the same product',
    source: PRODUCT_FIELDS,
    requires: ['createProduct', 'retrieveProduct'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'create');
      assert.equal(typeof product.id, 'number');
      assert.equal(product.name, `Conformance ${tag(ctx)} create`);
      assert.equal(product.description, `Made by conformance run ${ctx.runId}`);
      const read = await call(ctx, 'checkout', 'retrieveProduct', { method: 'GET', path: `/v1/products/${product.id}`, key: secretKey(ctx) });
      expectStatus(read, 200, 'retrieve');
      assert.deepEqual(read.json, product);
    },
  },
  {
    id: 'checkout.products.name-required',
    title: 'A product needs a `name`; without one it is refused with 400 naming it',
    source: PRODUCT_ENDPOINTS,
    requires: ['createProduct'],
    serverOnly: true,
    async run(ctx) {
      expectError(await call(ctx, 'checkout', 'createProduct', { method: 'POST', path: '/v1/products', key: secretKey(ctx), body: { description: 'Nameless' } }), 400, 'invalid_request', undefined, 'name');
    },
  },
  {
    id: 'checkout.products.plan-product-id',
    title: 'Every plan belongs to a product: the plan\'s `productId` is the product\'s id',
    source: PRODUCT_ENDPOINTS,
    requires: ['createProduct', 'createPlan'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'owner');
      const plan = await newPlan(ctx, product.id, 'owned');
      assert.equal(plan.productId, product.id);
    },
  },
  {
    id: 'checkout.products.other-merchant-404',
    title: 'Another merchant\'s product answers 404 and is not listed',
    source: PRODUCT_ENDPOINTS,
    requires: ['createProduct', 'retrieveProduct', 'listProducts'],
    serverOnly: true,
    async run(ctx) {
      const theirs = await newProduct(ctx, 'their product', otherSecretKey(ctx));
      const mine = await newProduct(ctx, 'my sentinel');
      expectError(await call(ctx, 'checkout', 'retrieveProduct', { method: 'GET', path: `/v1/products/${theirs.id}`, key: secretKey(ctx) }), 404, 'not_found');
      const page = await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: secretKey(ctx), query: { limit: 100 } });
      assert.ok(idsOf(page.json).includes(mine.id), 'my newest product is listed');
      assert.ok(!idsOf(page.json).includes(theirs.id), 'another merchant\'s product must not be listed');
    },
  },
];

// ---------------------------------------------------------------------------------------------
// Lists (runnable on products, plans and customers)
// ---------------------------------------------------------------------------------------------

/** Walks a list one item at a time from a cursor until `until` is seen; answers the ids in order. */
async function walk(ctx: ConformanceContext, op: 'listProducts' | 'listPlans', path: string, envelope: boolean, from: number, until: number): Promise<number[]> {
  const seen: number[] = [];
  let cursor = from;
  for (let step = 0; step < 50; step++) {
    const res = await call(ctx, 'checkout', op, { method: 'GET', path, key: secretKey(ctx), query: { limit: 1, startingAfter: cursor } });
    const page = envelope ? envelopeData(res, 200, op) : res.json;
    expectStatus(res, 200, op);
    assert.ok(page.data.length <= 1, 'limit=1 answers at most one item');
    const item = page.data[0];
    assert.ok(item, `the list ended before reaching id ${until} (seen ${seen.join(', ')})`);
    assert.ok(item.id < cursor, `startingAfter=${cursor} must answer older items, got id ${item.id}`);
    seen.push(item.id);
    if (item.id === until) return seen;
    assert.equal(page.hasMore, true, 'hasMore must be true while older items follow');
    cursor = item.id;
  }
  assert.fail(`did not reach id ${until} within 50 pages`);
}

const lists: Scenario[] = [
  {
    id: 'checkout.lists.wrapper',
    title: 'Lists answer `{object: "list", data, hasMore}`',
    source: LIST_WRAPPER,
    requires: ['listProducts', 'listPlans', 'listCustomers'],
    serverOnly: true,
    async run(ctx) {
      const products = await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: secretKey(ctx), query: { limit: 2 } });
      expectStatus(products, 200, 'list products');
      const pages = [products.json, await listPlansPage(ctx, { limit: 2 }), await listCustomers(ctx, { limit: 2 })];
      for (const page of pages) {
        assert.equal(page.object, 'list');
        assert.ok(Array.isArray(page.data), 'data is an array');
        assert.equal(typeof page.hasMore, 'boolean', 'hasMore is a boolean');
      }
    },
  },
  {
    id: 'checkout.lists.newest-first',
    title: 'List items come newest first (products, plans, customers)',
    source: LIST_WRAPPER,
    requires: ['createProduct', 'listProducts', 'createPlan', 'listPlans', 'createCustomer', 'listCustomers'],
    serverOnly: true,
    async run(ctx) {
      const made: number[] = [];
      for (const n of [1, 2, 3]) made.push((await newProduct(ctx, `order ${n}`)).id);
      const productPage = await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: secretKey(ctx), query: { limit: 100 } });
      assert.deepEqual(idsOf(productPage.json).filter((id) => made.includes(id)), [...made].reverse(), 'products: newest first');
      const plansMade: number[] = [];
      for (const n of [1, 2, 3]) plansMade.push((await newPlan(ctx, made[0]!, `order ${n}`)).id);
      assert.deepEqual(idsOf(await listPlansPage(ctx, { limit: 100 })).filter((id) => plansMade.includes(id)), [...plansMade].reverse(), 'plans: newest first');
      const email = emailFor(ctx, 'order');
      const customersMade: number[] = [];
      for (const n of [1, 2, 3]) customersMade.push(envelopeData(await postCustomer(ctx, { email, externalId: `conf-${tag(ctx)}-order-${n}` }), 201, 'create').id);
      assert.deepEqual(idsOf(await listCustomers(ctx, { email, limit: 100 })), [...customersMade].reverse(), 'customers: newest first');
    },
  },
  {
    id: 'checkout.lists.starting-after-paging',
    title: 'Repeating a list request with `startingAfter` set to the last item\'s id answers the next page, with no item twice (products and plans)',
    source: LIST_WRAPPER,
    requires: ['createProduct', 'listProducts', 'createPlan', 'listPlans'],
    serverOnly: true,
    async run(ctx) {
      const made: number[] = [];
      for (const n of [1, 2, 3]) made.push((await newProduct(ctx, `page ${n}`)).id);
      const productWalk = await walk(ctx, 'listProducts', '/v1/products', false, made[2]!, made[0]!);
      assert.ok(productWalk.includes(made[1]!), 'paging products from the newest must pass through the middle one');
      assert.equal(new Set(productWalk).size, productWalk.length, 'no product appears twice');
      const plansMade: number[] = [];
      for (const n of [1, 2, 3]) plansMade.push((await newPlan(ctx, made[0]!, `page ${n}`)).id);
      const planWalk = await walk(ctx, 'listPlans', '/v1/plans', true, plansMade[2]!, plansMade[0]!);
      assert.ok(planWalk.includes(plansMade[1]!), 'paging plans must pass through the middle one');
    },
  },
  {
    id: 'checkout.lists.has-more',
    title: '`hasMore` is true when another page follows and false on the last page',
    source: LIST_WRAPPER,
    requires: ['createCustomer', 'listCustomers'],
    serverOnly: true,
    async run(ctx) {
      // A filter that only this run's customers match gives a list of known length.
      const email = emailFor(ctx, 'hasmore');
      const made: number[] = [];
      for (const n of [1, 2, 3]) made.push(envelopeData(await postCustomer(ctx, { email, externalId: `conf-${tag(ctx)}-hasmore-${n}` }), 201, 'create').id);
      const first = await listCustomers(ctx, { email, limit: 2 });
      assert.deepEqual(idsOf(first), [made[2], made[1]], 'first page: the two newest');
      assert.equal(first.hasMore, true, 'a third customer follows');
      const second = await listCustomers(ctx, { email, limit: 2, startingAfter: made[1]! });
      assert.deepEqual(idsOf(second), [made[0]], 'second page: the oldest');
      assert.equal(second.hasMore, false, 'nothing follows the last page');
      const exact = await listCustomers(ctx, { email, limit: 3 });
      assert.equal(exact.hasMore, false, 'a page holding every item has hasMore false');
    },
  },
  {
    id: 'checkout.lists.default-limit-25',
    title: 'Without `limit` a list answers 25 items (products and plans)',
    source: LIST_WRAPPER,
    requires: ['createProduct', 'listProducts', 'createPlan', 'listPlans'],
    serverOnly: true,
    async run(ctx) {
      const products = await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: secretKey(ctx), query: { limit: 26 } });
      let productId: number | undefined;
      for (let i = products.json.data.length; i < 26; i++) productId = (await newProduct(ctx, `bulk ${i}`)).id;
      const page = await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: secretKey(ctx) });
      assert.equal(page.json.data.length, 25, 'products: the default page is 25');
      assert.equal(page.json.hasMore, true, 'products: more follow');
      const existingPlans = await listPlansPage(ctx, { limit: 26 });
      if (existingPlans.data.length < 26) productId ??= (await newProduct(ctx, 'bulk plans')).id;
      for (let i = existingPlans.data.length; i < 26; i++) await newPlan(ctx, productId!, `bulk ${i}`);
      const planPage = await listPlansPage(ctx, {});
      assert.equal(planPage.data.length, 25, 'plans: the default page is 25');
      assert.equal(planPage.hasMore, true, 'plans: more follow');
    },
  },
  pending('checkout.lists.subscription-invoices-up-to-100', 'A subscription\'s invoice list returns up to 100 items', LIST_WRAPPER, [...SUBSCRIBE, 'listSubscriptionInvoices']),
  pending('checkout.lists.invoices-by-reference', 'Invoices by reference take `limit` and `startingAfter` like every list, and answer at most one invoice for a reference', LIST_WRAPPER, ['createInvoice', 'listInvoices']),
];

// ---------------------------------------------------------------------------------------------
// Invoices and portal sessions (other scoped operations)
// ---------------------------------------------------------------------------------------------

const otherScoped: Scenario[] = [
  pending('checkout.invoices.create', '`POST /v1/invoices` creates an invoice (scope `invoice.create`)', OTHER_SCOPED, ['createCustomer', 'createInvoice']),
  pending('checkout.invoices.by-reference', '`GET /v1/invoices?reference=` finds the invoice of a pay-link reference', OTHER_SCOPED, ['createInvoice', 'listInvoices']),
  pending('checkout.invoices.retrieve', '`GET /v1/invoices/{id}` answers the invoice; another merchant\'s answers 404', OTHER_SCOPED, ['createInvoice', 'retrieveInvoice']),
  pending('checkout.invoices.pdf', '`GET /v1/invoices/{id}/pdf` answers the invoice as a PDF document', OTHER_SCOPED, ['createInvoice', 'getInvoicePdf']),
  pending('checkout.invoices.send', '`POST /v1/invoices/{id}/send` emails the invoice (scope `invoice.update`)', OTHER_SCOPED, ['createInvoice', 'sendInvoice', MESSAGES]),
  pending('checkout.invoices.void', '`POST /v1/invoices/{id}/void` voids an unpaid invoice; it can no longer be paid', OTHER_SCOPED, ['createInvoice', 'voidInvoice', SESSION]),
  pending('checkout.invoices.refund', '`POST /v1/invoices/{id}/refund` refunds the invoice\'s payment (scope `invoice.refund`)', OTHER_SCOPED, ['createInvoice', ...PAY_CARD, 'refundInvoice']),
  pending('checkout.portal.create', '`POST /v1/portal-sessions` creates a customer-portal session for a customer `clientId`', OTHER_SCOPED, ['createCustomer', 'createPortalSession']),
  pending('checkout.portal.needs-client', 'A portal session needs a customer `clientId` of the merchant; without one, or with another merchant\'s, it is refused', OTHER_SCOPED, ['createCustomer', 'createPortalSession']),
];

export const checkoutScenarios: Scenario[] = [
  ...products,
  ...plans,
  ...customers,
  ...lists,
  ...sessionCreation,
  ...sessionReading,
  ...savedCardsAndSrc,
  ...sessionStates,
  ...withdrawQr,
  ...holds,
  ...refunds,
  ...subscriptions,
  ...otherScoped,
];
