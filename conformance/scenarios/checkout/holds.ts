// Card holds (captureMethod `manual`): the hold states, the capture and release rules and their
// named error codes.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { advanceClock, secondsUntil } from '../fixtures/clock.js';
import { call, expectError, expectStatus } from '../fixtures/http.js';
import { secretKey } from '../fixtures/keys.js';
import { HOLD, MESSAGES, PAY_CARD, RETRIEVE, SESSION, STATUS } from '../fixtures/operations.js';
import { CHECKOUT_DOC, clocked, pending, pendingBecause, source } from '../fixtures/scenario.js';
import { CAPTURE_RULES, ERRORS, HOLD_RESULT, HOLD_STATES } from '../fixtures/sections.js';
import { getSessionStatus, newHoldSession, payByCard, retrieveSession } from '../fixtures/sessions.js';

export const holds: Scenario[] = [
  pending(
    'checkout.hold-states.capture-all',
    '`authorized` → capture without amount → `captured` for the whole authorized amount; the invoice is paid and the payment refundable as a card payment',
    HOLD_STATES,
    [...HOLD, 'capturePayment', RETRIEVE, 'retrieveInvoice'],
  ),
  pending(
    'checkout.hold-states.partial-capture-lowers-invoice',
    '`authorized` → partial capture → `captured`; a session-created invoice is lowered to the captured amount, the rest shown as discount',
    HOLD_STATES,
    [...HOLD, 'capturePayment', RETRIEVE, 'retrieveInvoice'],
  ),
  pending('checkout.hold-states.release', '`authorized` → release → `released`; nothing charged and the session-created invoice is cancelled', HOLD_STATES, [
    ...HOLD,
    'releasePayment',
    RETRIEVE,
    'retrieveInvoice',
  ]),
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
  pending(
    'checkout.hold-states.authorization-expires-in-7-days',
    'A hold lasts 7 days unless the payment option sets its own: `authorizationExpiresAt` is 7 days after authorization',
    source(CHECKOUT_DOC, 'Limits'),
    [...HOLD],
  ),
  pending(
    'checkout.holds.hold-result-fields',
    'Capture and release answer paymentId, referenceNumber, status, authorizedAmount, capturedAmount, currency, authorizationExpiresAt (null when no longer open), capturedAt and alreadyDone',
    HOLD_RESULT,
    [...HOLD, 'capturePayment'],
  ),
  pending(
    'checkout.holds.capture-once',
    'A capture happens once: a second capture with another amount is refused with 409 `hold_not_capturable`; the uncaptured remainder lapses',
    CAPTURE_RULES,
    [...HOLD, 'capturePayment'],
  ),
  pending('checkout.holds.release-no-amount', 'Releasing needs no amount (no body)', CAPTURE_RULES, [...HOLD, 'releasePayment']),
  pending('checkout.holds.repeat-capture-already-done', 'Repeating a capture that went through returns `alreadyDone` true', CAPTURE_RULES, [
    ...HOLD,
    'capturePayment',
  ]),
  pending('checkout.holds.repeat-release-already-done', 'Repeating a release that went through returns `alreadyDone` true', CAPTURE_RULES, [
    ...HOLD,
    'releasePayment',
  ]),
  pending(
    'checkout.holds.no-hold-capable-option',
    'A merchant without a card option able to hold a card gets `validation_error` creating a hold session (needs such a merchant)',
    CAPTURE_RULES,
    [SESSION],
  ),
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
      assert.deepEqual(
        methods.filter((m) => m.startsWith('wallet:')),
        [],
        `a hold session must offer no wallet option, got ${JSON.stringify(methods)}`,
      );
      assert.ok(methods.includes('card'), `a hold session offers the card form, got ${JSON.stringify(methods)}`);
    },
  },
  pending(
    'checkout.holds.nothing-paid-until-capture',
    'Nothing is paid, settled or receipted until capture: no receipt message, invoice unpaid, settlement refused',
    CAPTURE_RULES,
    [...HOLD, MESSAGES, 'settleTestPayment', 'retrieveInvoice'],
  ),
  pending('checkout.holds.more-than-authorized', 'Capturing more than was authorized is refused with 409 `hold_not_capturable`', ERRORS, [
    ...HOLD,
    'capturePayment',
  ]),
  pending('checkout.holds.not-a-hold', 'Capturing a payment that is not a card hold is refused with 409 `hold_not_capturable`', ERRORS, [
    ...PAY_CARD,
    STATUS,
    'capturePayment',
  ]),
  pending('checkout.holds.release-after-capture', 'Releasing a captured hold is refused with 409 `hold_not_capturable`', ERRORS, [
    ...HOLD,
    'capturePayment',
    'releasePayment',
  ]),
  clocked('checkout.holds.capture-after-lapse', 'Capturing a lapsed hold is refused with 409 `hold_not_capturable`', ERRORS, [...HOLD, 'capturePayment'], {
    async run(ctx) {
      const s = await newHoldSession(ctx);
      const confirmed = await payByCard(ctx, s);
      await advanceClock(ctx, 7 * 86_400 + 60);
      const res = await call(ctx, 'checkout', 'capturePayment', {
        method: 'POST',
        path: `/v1/payments/${confirmed.paymentResult.id}/capture`,
        key: secretKey(ctx),
        body: {},
      });
      expectError(res, 409, 'conflict', 'hold_not_capturable');
    },
  }),
  pending(
    'checkout.holds.operation-failed-502',
    'A processor failure during capture or release answers 502 `hold_operation_failed`, and retrying is safe (cannot be provoked yet)',
    ERRORS,
    [...HOLD, 'capturePayment'],
  ),
  pending('checkout.holds.other-merchant-404', "Capturing or releasing another merchant's payment answers 404", CAPTURE_RULES, [
    ...HOLD,
    'capturePayment',
    'releasePayment',
  ]),
];
