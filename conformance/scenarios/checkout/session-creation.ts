// Creating a checkout session: the fields it accepts and returns, and creation rules 1 to 5
// (expiry, the {CHECKOUT_SESSION_ID} placeholder, payer details, the per-session webhook URL and
// its secret). Rule 6 is in session-invoice.ts, rule 7 in subscription-sessions.ts.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { advanceClock, secondsUntil } from '../fixtures/clock.js';
import { call, expectError, expectStatus } from '../fixtures/http.js';
import { emailFor, secretKey, tag } from '../fixtures/keys.js';
import { MESSAGES, PAY_CARD, RETRIEVE, SESSION, SUBSCRIBE_TRIAL } from '../fixtures/operations.js';
import { clocked, pending } from '../fixtures/scenario.js';
import { CREATE_FIELDS, CREATED, CREATION_RULES } from '../fixtures/sections.js';
import { confirmWith, newSession, postSession, retrieveSession, targetNow, tokenizeOn } from '../fixtures/sessions.js';
import { subscriptionOf, subscriptionParts, trialSubscription } from '../fixtures/subscriptions.js';

export const sessionCreation: Scenario[] = [
  {
    id: 'checkout.sessions.create.returned-fields',
    title:
      'Create answers id, object `checkout_session`, status `open`, paymentStatus `unpaid`, amount, currency, mode, paymentType, clientSecret, customer {email, name}, expiresAt and createdAt',
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
      assert.deepEqual(s.customer, { email, name: 'Maria Lopez' }, "customer carries the payer's email and name");
      for (const field of ['expiresAt', 'createdAt'])
        assert.ok(Number.isFinite(Date.parse(s[field])), `${field} must be a timestamp, got ${JSON.stringify(s[field])}`);
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
      for (const mode of ['popup', 'Hosted', ''])
        expectError(await postSession(ctx, { mode, successUrl: 'https://shop.example.com/thanks' }), 400, 'invalid_request', undefined, 'mode');
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
      for (const paymentType of ['once', 'one_time', 'recurring'])
        expectError(await postSession(ctx, { paymentType }), 400, 'invalid_request', undefined, 'paymentType');
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
  pending(
    'checkout.sessions.create.notify-customer-default-off',
    "Without `notifyCustomer` the merchant setting 'Message Checkout Customers' applies (off unless turned on): retrieval reports false and no invoice message is sent",
    CREATE_FIELDS,
    [SESSION, RETRIEVE, MESSAGES],
  ),
  pending('checkout.sessions.create.notify-customer-true', "`notifyCustomer` true emails and texts the payer the session's invoice", CREATE_FIELDS, [
    SESSION,
    RETRIEVE,
    MESSAGES,
  ]),
  pending(
    'checkout.sessions.create.send-receipt-default-on',
    "Without `sendReceipt` the merchant setting 'Send Checkout Receipts' applies (on unless turned off): retrieval reports true and a receipt is emailed on payment",
    CREATE_FIELDS,
    [...PAY_CARD, RETRIEVE, MESSAGES],
  ),
  pending('checkout.sessions.create.send-receipt-false', '`sendReceipt` false sends no receipt on payment', CREATE_FIELDS, [...PAY_CARD, RETRIEVE, MESSAGES]),
  pending(
    'checkout.sessions.create.send-receipt-needs-email',
    "A receipt needs the payer's email: a paid session without `customerEmail` sends none",
    CREATE_FIELDS,
    [...PAY_CARD, MESSAGES],
  ),
  pending('checkout.sessions.create.description-ignored-for-invoice', '`description` is ignored when an existing invoice is paid', CREATE_FIELDS, [
    'createInvoice',
    SESSION,
    'retrieveInvoice',
  ]),
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
      assert.ok(
        Math.abs(lifetime - 30 * 60_000) <= 1000,
        `expiresAt must be 30 minutes after createdAt, got ${lifetime / 1000} s (${s.createdAt} → ${s.expiresAt})`,
      );
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
      for (const [what, at] of [
        ['9 minutes', inMinutes(9)],
        ['25 hours', inMinutes(25 * 60)],
        ['5 minutes ago', inMinutes(-5)],
      ] as const) {
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
  clocked(
    'checkout.sessions.rule-1-expired-cannot-be-paid',
    'After expiry the session reads `expired` and cannot be paid (confirm is refused)',
    CREATION_RULES,
    [...PAY_CARD, RETRIEVE],
    {
      async run(ctx) {
        const s = await newSession(ctx);
        const pm = await tokenizeOn(ctx, s);
        await advanceClock(ctx, secondsUntil(s.expiresAt, s.createdAt) + 1);
        assert.equal((await retrieveSession(ctx, s.id)).status, 'expired', 'past expiresAt the session reads expired');
        expectError(await confirmWith(ctx, s, pm), 400, 'invalid_request', 'session_not_payable');
      },
    },
  ),

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
      for (const payer of [
        { customerEmail: emailFor(ctx, 'only-email') },
        { customerFirstName: 'Maria' },
        { customerLastName: 'Lopez' },
        { customerPhone: '+15555550142' },
      ]) {
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
  pending('checkout.sessions.rule-3-payer-on-invoice', 'Payer details are recorded as payer on the invoice a one-time session creates', CREATION_RULES, [
    ...PAY_CARD,
    RETRIEVE,
    'retrieveInvoice',
  ]),

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
];
