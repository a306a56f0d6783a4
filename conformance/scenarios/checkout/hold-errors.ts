// Card holds refused: a capture that is not the first, more than authorized, not a hold, after a
// release or a lapse, another merchant's payment, a processor failure, and a merchant whose options
// cannot hold a card.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { advanceClock } from '../fixtures/clock.js';
import { call, expectError, expectStatus } from '../fixtures/http.js';
import { capture, heldPayment, holdOf, release } from '../fixtures/holds.js';
import { otherSecretKey, secretKey, tag } from '../fixtures/keys.js';
import { HOLD, PAY_CARD, SESSION, STATUS } from '../fixtures/operations.js';
import { clocked, scenario } from '../fixtures/scenario.js';
import { CAPTURE_RULES, ERRORS } from '../fixtures/sections.js';
import { newHoldSession, newSession, payByCard, postSession } from '../fixtures/sessions.js';

/** The sandbox processor fails a capture given this `reason` (test mode): Till's sandbox, see the README's holds. */
const SANDBOX_HOLD_FAILURE = 'sandbox_hold_operation_failed';

export const holdErrors: Scenario[] = [
  scenario(
    'checkout.holds.capture-once',
    'A capture happens once: a second capture with another amount is refused with 409 `hold_not_capturable`; the uncaptured remainder lapses',
    CAPTURE_RULES,
    [...HOLD, 'capturePayment'],
    async (ctx) => {
      const { s, paymentId } = await heldPayment(ctx, { amount: 60 });
      expectStatus(await capture(ctx, paymentId, { amount: 20 }), 200, 'capture part');
      expectError(await capture(ctx, paymentId, { amount: 15 }), 409, 'conflict', 'hold_not_capturable');
      expectError(await capture(ctx, paymentId), 409, 'conflict', 'hold_not_capturable');
      const hold = await holdOf(ctx, s.id);
      assert.equal(hold.holdStatus, 'captured', 'the hold stays captured');
      assert.equal(hold.authorizationExpiresAt, undefined, 'the uncaptured remainder is not held open any more');
      const again = await capture(ctx, paymentId, { amount: 20 });
      expectStatus(again, 200, 'the first capture repeated');
      assert.equal(again.json.capturedAmount, 20, 'only the first capture was charged');
    },
  ),
  scenario(
    'checkout.holds.no-hold-capable-option',
    'A merchant without a card option able to hold a card gets `validation_error` creating a hold session (a sandbox merchant made with `cardHolds` false)',
    CAPTURE_RULES,
    [SESSION, 'createTestMerchant'],
    async (ctx) => {
      const made = await call(ctx, 'checkout', 'createTestMerchant', {
        method: 'POST',
        path: '/v1/test-helpers/merchants',
        key: secretKey(ctx),
        body: { name: `conformance no holds ${tag(ctx)}`, cardHolds: false },
      });
      expectStatus(made, 201, 'make a sandbox merchant whose card options cannot hold');
      const noHolds = ctx.withKeys({ secretKey: made.json.secretKey, publishableKey: made.json.publishableKey });
      expectError(await postSession(noHolds, { captureMethod: 'manual' }), 400, 'invalid_request', 'validation_error', 'captureMethod');
      expectStatus(await postSession(noHolds), 201, 'a session charged at once is still fine there');
    },
  ),
  scenario(
    'checkout.holds.more-than-authorized',
    'Capturing more than was authorized is refused with 409 `hold_not_capturable`',
    ERRORS,
    [...HOLD, 'capturePayment'],
    async (ctx) => {
      const { s, paymentId } = await heldPayment(ctx, { amount: 20 });
      expectError(await capture(ctx, paymentId, { amount: 20.01 }), 409, 'conflict', 'hold_not_capturable');
      assert.equal((await holdOf(ctx, s.id)).holdStatus, 'authorized', 'the hold is still open');
      const all = await capture(ctx, paymentId, { amount: 20 });
      expectStatus(all, 200, 'capturing exactly what was authorized');
      assert.equal(all.json.capturedAmount, 20);
    },
  ),
  scenario(
    'checkout.holds.not-a-hold',
    'Capturing a payment that is not a card hold is refused with 409 `hold_not_capturable`',
    ERRORS,
    [...PAY_CARD, STATUS, 'capturePayment', 'releasePayment'],
    async (ctx) => {
      const confirmed = await payByCard(ctx, await newSession(ctx));
      assert.equal(confirmed.paymentResult.status, 'succeeded', 'a session without captureMethod charges the card at once');
      expectError(await capture(ctx, confirmed.paymentResult.id), 409, 'conflict', 'hold_not_capturable');
      expectError(await release(ctx, confirmed.paymentResult.id), 409, 'conflict', 'hold_not_capturable');
    },
  ),
  scenario(
    'checkout.holds.release-after-capture',
    'Releasing a captured hold is refused with 409 `hold_not_capturable`',
    ERRORS,
    [...HOLD, 'capturePayment', 'releasePayment'],
    async (ctx) => {
      const { s, paymentId } = await heldPayment(ctx);
      expectStatus(await capture(ctx, paymentId), 200, 'capture');
      expectError(await release(ctx, paymentId), 409, 'conflict', 'hold_not_capturable');
      assert.equal((await holdOf(ctx, s.id)).holdStatus, 'captured', 'the hold stays captured');
    },
  ),
  clocked('checkout.holds.capture-after-lapse', 'Capturing a lapsed hold is refused with 409 `hold_not_capturable`', ERRORS, [...HOLD, 'capturePayment'], {
    async run(ctx) {
      const s = await newHoldSession(ctx);
      const confirmed = await payByCard(ctx, s);
      await advanceClock(ctx, 7 * 86_400 + 60);
      expectError(await capture(ctx, confirmed.paymentResult.id, {}), 409, 'conflict', 'hold_not_capturable');
    },
  }),
  scenario(
    'checkout.holds.operation-failed-502',
    'A processor failure during capture or release answers 502 `hold_operation_failed`, and retrying is safe',
    ERRORS,
    [...HOLD, 'capturePayment'],
    async (ctx) => {
      const { s, paymentId } = await heldPayment(ctx, { amount: 30 });
      expectError(await capture(ctx, paymentId, { amount: 10, reason: SANDBOX_HOLD_FAILURE }), 502, 'processor_error', 'hold_operation_failed');
      assert.equal((await holdOf(ctx, s.id)).holdStatus, 'authorized', 'the failed capture changed nothing');
      const retried = await capture(ctx, paymentId, { amount: 10 });
      expectStatus(retried, 200, 'the retry');
      assert.equal(retried.json.alreadyDone, false, 'the retry captures now');
      assert.equal(retried.json.capturedAmount, 10, 'once');
    },
  ),
  scenario(
    'checkout.holds.other-merchant-404',
    "Capturing or releasing another merchant's payment answers 404",
    CAPTURE_RULES,
    [...HOLD, 'capturePayment', 'releasePayment'],
    async (ctx) => {
      const { s, paymentId } = await heldPayment(ctx);
      const theirs = await otherSecretKey(ctx);
      expectError(await capture(ctx, paymentId, {}, theirs), 404, 'not_found');
      expectError(await release(ctx, paymentId, theirs), 404, 'not_found');
      assert.equal((await holdOf(ctx, s.id)).holdStatus, 'authorized', "another merchant's calls changed nothing");
    },
  ),
];
