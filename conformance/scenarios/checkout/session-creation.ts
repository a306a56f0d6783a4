// Creating a checkout session: the fields it accepts and returns (URLs, amounts, modes, payment types,
// line items, metadata, a trial). Creation rules 1 to 5 are in session-rules.ts, rule 6 in session-invoice.ts,
// rule 7 in subscription-sessions.ts; what the session tells its payer (notifyCustomer, sendReceipt) in
// session-messages.ts.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { expectError, expectStatus } from '../fixtures/http.js';
import { emailFor, secretKey, tag } from '../fixtures/keys.js';
import { newInvoice, retrieveInvoice } from '../fixtures/invoices.js';
import { PAY_CARD, SESSION, SUBSCRIBE_TRIAL } from '../fixtures/operations.js';
import { scenario } from '../fixtures/scenario.js';
import { CREATE_FIELDS, CREATED } from '../fixtures/sections.js';
import { newSession, payByCard, postSession } from '../fixtures/sessions.js';
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
  scenario(
    'checkout.sessions.create.description-ignored-for-invoice',
    '`description` is ignored when an existing invoice is paid',
    CREATE_FIELDS,
    ['createInvoice', ...PAY_CARD, 'retrieveInvoice'],
    async (ctx) => {
      const invoice = await newInvoice(ctx, 'USD', secretKey(ctx), { description: `Conformance ${tag(ctx)} as invoiced` });
      const s = await newSession(ctx, { amount: undefined, currency: undefined, invoiceId: invoice.id, description: 'Session text that must be ignored' });
      assert.equal((await retrieveInvoice(ctx, invoice.id)).description, invoice.description, 'creating the session leaves the description as invoiced');
      await payByCard(ctx, s);
      const paid = await retrieveInvoice(ctx, invoice.id);
      assert.equal(paid.status, 'paid', 'the session paid the invoice');
      assert.equal(paid.description, invoice.description, 'paying it leaves the description as invoiced');
    },
  ),
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
];
