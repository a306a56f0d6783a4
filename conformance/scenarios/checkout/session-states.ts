// The checkout session state table (checkout-billing-api.md › Checkout session status), one
// scenario per row.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { advanceClock, secondsUntil } from '../fixtures/clock.js';
import { call, expectError, expectStatus } from '../fixtures/http.js';
import { otherSecretKey, publishableKey, secretKey } from '../fixtures/keys.js';
import { CANCEL, HOLD, ISSUE_QR, PAY_CARD, PAY_QR, RETRIEVE, SESSION, STATUS, SUBSCRIBE_TRIAL, WITHDRAW } from '../fixtures/operations.js';
import { clocked, pending, pendingBecause } from '../fixtures/scenario.js';
import { SESSION_STATES } from '../fixtures/sections.js';
import { cancelSession, confirmWith, getSessionStatus, newSession, retrieveSession, tokenizeOn } from '../fixtures/sessions.js';
import { trialSubscription } from '../fixtures/subscriptions.js';
import { newQrPaidSession, newQrSession, payQr, postWithdraw } from '../fixtures/wallet.js';

/** The sandbox card that asks for 3-D Secure. */
const THREE_DS_CARD = { cardNumber: '4000000000003220', expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 3, cvc: '123' };

export const sessionStates: Scenario[] = [
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
      const mine = await newSession(ctx);
      expectError(await cancelSession(ctx, mine.id, { key: await otherSecretKey(ctx) }), 404, 'not_found');
      assert.equal((await retrieveSession(ctx, mine.id)).status, 'created', "another merchant's cancel changes nothing");
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
  pending('checkout.session-states.cancel-cancels-session-invoice', 'Cancel cancels the invoice the session created', SESSION_STATES, [
    SESSION,
    CANCEL,
    RETRIEVE,
    'retrieveInvoice',
  ]),
  pending(
    'checkout.session-states.completed-cancel-refused',
    '`completed` → cancel is refused (409; refund instead) and the session is unchanged',
    SESSION_STATES,
    [...PAY_CARD, CANCEL, RETRIEVE],
  ),
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
  pending(
    'checkout.session-states.hold-authorized',
    '`open` hold session (`captureMethod` `manual`) → card authorized → `completed` with payment status Authorized',
    SESSION_STATES,
    [...HOLD, RETRIEVE],
  ),
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
      const confirmed = await call(ctx, 'checkout', 'confirmCheckoutSession', {
        method: 'POST',
        path: `/v1/checkout-sessions/${s.id}/confirm`,
        ...auth,
        body: { paymentMethodId: pm.json.id, returnUrl },
      });
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
      if (page.status !== 200 || !token || !html.includes('Complete authentication'))
        pendingBecause("nextAction.url is not Till's sandbox 3-D Secure page; complete it by hand");
      const done = await fetch(confirmed.json.nextAction.url, { method: 'POST', body: new URLSearchParams({ answer: 'complete', token }), redirect: 'manual' });
      assert.equal(done.status, 303, 'completing the challenge redirects the payer');
      assert.equal(done.headers.get('location'), returnUrl, 'to the returnUrl');
      const polled = await getSessionStatus(ctx, s.id);
      expectStatus(polled, 200, 'poll');
      assert.equal(polled.json.status, 'completed', 'the payment in 3-D Secure still completed the cancelled session');
      const refund = await call(ctx, 'checkout', 'refundCheckoutSession', {
        method: 'POST',
        path: `/v1/checkout-sessions/${s.id}/refund`,
        key: secretKey(ctx),
        body: { reason: 'cancelled during 3-D Secure' },
      });
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
  clocked(
    'checkout.session-states.expired-refuses-confirm-and-withdraw',
    'An expired session refuses confirm, and withdraw-qr on it answers 400',
    SESSION_STATES,
    [...PAY_CARD, WITHDRAW],
    {
      async run(ctx) {
        const s = await newSession(ctx);
        const pm = await tokenizeOn(ctx, s);
        await advanceClock(ctx, secondsUntil(s.expiresAt, s.createdAt) + 1);
        expectError(await confirmWith(ctx, s, pm), 400, 'invalid_request', 'session_not_payable');
        expectError(await postWithdraw(ctx, s), 400, 'invalid_request', 'session_not_payable');
      },
    },
  ),
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
        for (const [what, value] of [
          ['retrieval', read],
          ['polling', polled.json.status],
        ] as const) {
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
