// The checkout session state table (checkout-billing-api.md › Checkout session status), one
// scenario per row; the cancel rows are in session-cancel-states.ts.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { advanceClock, secondsUntil } from '../fixtures/clock.js';
import { expectError, expectStatus } from '../fixtures/http.js';
import { CANCEL, HOLD, ISSUE_QR, PAY_CARD, PAY_QR, RETRIEVE, SESSION, STATUS, SUBSCRIBE_TRIAL, WATCH, WITHDRAW } from '../fixtures/operations.js';
import { clocked, scenario } from '../fixtures/scenario.js';
import { SESSION_STATES } from '../fixtures/sections.js';
import { waitForEvents } from '../fixtures/deliveries.js';
import { withWatch } from '../fixtures/events.js';
import { heldPayment, holdOf } from '../fixtures/holds.js';
import { cancelSession, confirmWith, getSessionStatus, newSession, payByCard, retrieveSession, tokenizeOn } from '../fixtures/sessions.js';
import { trialSubscription } from '../fixtures/subscriptions.js';
import { newQrPaidSession, newQrSession, postWithdraw } from '../fixtures/wallet.js';

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
  scenario(
    'checkout.session-states.confirm-succeeds',
    '`open` → confirm succeeds → `completed`, paymentStatus `paid`',
    SESSION_STATES,
    [...PAY_CARD, RETRIEVE, STATUS],
    async (ctx) => {
      const s = await newSession(ctx);
      const confirmed = await payByCard(ctx, s);
      assert.equal(confirmed.status, 'complete', 'the confirm answer reads complete');
      assert.equal(confirmed.paymentStatus, 'paid');
      assert.equal(confirmed.paymentResult.status, 'succeeded');
      assert.equal((await retrieveSession(ctx, s.id)).status, 'completed', 'retrieval reads completed');
      const polled = await getSessionStatus(ctx, s.id);
      expectStatus(polled, 200, 'poll');
      assert.equal(polled.json.status, 'completed', 'polling reads completed');
    },
  ),
  scenario(
    'checkout.session-states.hold-authorized',
    '`open` hold session (`captureMethod` `manual`) → card authorized → `completed` with payment status Authorized',
    SESSION_STATES,
    [...HOLD, RETRIEVE, ...WATCH],
    async (ctx) =>
      withWatch(ctx, ['payment.authorized', 'checkout.session.completed'], async (w) => {
        const { s, confirmed, paymentId } = await heldPayment(ctx);
        assert.equal(confirmed.status, 'complete', 'the confirm answer reads complete');
        assert.equal(confirmed.paymentStatus, 'authorized', 'with payment status authorized');
        assert.equal((await retrieveSession(ctx, s.id)).status, 'completed', 'retrieval reads completed');
        assert.equal((await holdOf(ctx, s.id)).holdStatus, 'authorized', 'the hold is open');
        const mine = (e: any) => e.data?.object?.id === s.id || e.data?.object?.sessionId === s.id || e.data?.object?.id === paymentId;
        const events = await waitForEvents(ctx, w, (e) => mine(e) && e.type === 'checkout.session.completed');
        const order = (await waitForEvents(ctx, w, mine)).map((e) => e.type);
        assert.deepEqual(order, ['payment.authorized', 'checkout.session.completed'], 'payment.authorized, then checkout.session.completed');
        assert.equal(String(events[0].data.object.paymentStatus).toLowerCase(), 'authorized', 'the completed session shows payment status Authorized');
      }),
  ),
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
