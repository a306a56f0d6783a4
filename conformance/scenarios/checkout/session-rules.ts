// Checkout session creation rules 1 to 5: expiry, the {CHECKOUT_SESSION_ID} placeholder, payer details,
// the per-session webhook URL and its secret (delivery itself is in ../webhooks/).
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { advanceClock, secondsUntil } from '../fixtures/clock.js';
import { call, expectError, expectStatus } from '../fixtures/http.js';
import { emailFor, secretKey, tag } from '../fixtures/keys.js';
import { PAY_CARD, RETRIEVE, SESSION } from '../fixtures/operations.js';
import { clocked, scenario } from '../fixtures/scenario.js';
import { CREATION_RULES } from '../fixtures/sections.js';
import { retrieveInvoice } from '../fixtures/invoices.js';
import { confirmWith, newSession, payByCard, postSession, retrieveSession, targetNow, tokenizeOn } from '../fixtures/sessions.js';

export const sessionRules: Scenario[] = [
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
  scenario(
    'checkout.sessions.rule-3-payer-on-invoice',
    'Payer details are recorded as payer on the invoice a one-time session creates',
    CREATION_RULES,
    [...PAY_CARD, RETRIEVE, 'retrieveInvoice'],
    async (ctx) => {
      const email = emailFor(ctx, 'invoice-payer');
      const s = await newSession(ctx, { customerEmail: email, customerFirstName: 'Maria', customerLastName: 'Lopez', customerPhone: '+15555550142' });
      await payByCard(ctx, s);
      const { invoiceId } = await retrieveSession(ctx, s.id);
      assert.equal(typeof invoiceId, 'number', `the paid one-time session has its invoice: invoiceId ${JSON.stringify(invoiceId)}`);
      const invoice = await retrieveInvoice(ctx, invoiceId);
      assert.deepEqual(invoice.customer, { email, firstName: 'Maria', lastName: 'Lopez' }, 'the invoice records the payer');
      assert.equal(invoice.status, 'paid');
    },
  ),

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
