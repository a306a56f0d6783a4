// The named refund errors (checkout-billing-api.md › Errors): nothing to refund, not yet paid, a
// refund under way, a processing error, the `data` they carry and the envelope they answer in.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { expectEnvelopeError, expectStatus } from '../fixtures/http.js';
import { ISSUE_QR, PAY_CARD, PAY_QR, SESSION } from '../fixtures/operations.js';
import { expectRefundError, paidCardSession, refundPaymentWith, refundSessionWith, SANDBOX_REFUND_FAILURE } from '../fixtures/refunds.js';
import { pendingBecause, scenario } from '../fixtures/scenario.js';
import { ERRORS } from '../fixtures/sections.js';
import { newSession, refundSession } from '../fixtures/sessions.js';
import { newQrPaidSession, newQrSession } from '../fixtures/wallet.js';

export const refundErrors: Scenario[] = [
  scenario(
    'checkout.refunds.nothing-to-refund',
    'Refunding a session with no payment answers 409 `nothing_to_refund`',
    ERRORS,
    [SESSION, 'refundCheckoutSession'],
    async (ctx) => {
      const s = await newSession(ctx);
      expectEnvelopeError(await refundSession(ctx, s), 409, 'conflict', 'nothing_to_refund');
      expectEnvelopeError(await refundSessionWith(ctx, s.id, { amount: 5 }), 409, 'conflict', 'nothing_to_refund');
    },
  ),
  scenario(
    'checkout.refunds.not-yet-paid',
    'Refunding a payment not yet paid (a QR code shown, 3-D Secure pending) answers 400 `payment_not_refundable`',
    ERRORS,
    [...ISSUE_QR, 'refundCheckoutSession'],
    async (ctx) => {
      const { s } = await newQrSession(ctx);
      expectEnvelopeError(await refundSession(ctx, s), 400, 'invalid_request', 'payment_not_refundable');
    },
  ),
  scenario(
    'checkout.refunds.in-progress-409',
    'Refunding while another refund is under way answers 409 `payment_not_refundable`, reason `refund_pending`, manualRefundRequired false',
    ERRORS,
    [...PAY_QR, 'refundCheckoutSession'],
    async (ctx) => {
      const s = await newQrPaidSession(ctx);
      const first = await refundSession(ctx, s);
      expectStatus(first, 200, 'refund the wallet payment');
      if (first.json.status !== 'pending_reversal') pendingBecause(`the wallet refund finished at once (${first.json.status}), so none is under way`);
      const again = await refundSession(ctx, s);
      expectEnvelopeError(again, 409, 'conflict', 'payment_not_refundable');
      assert.equal(again.json.data.reason, 'refund_pending');
      assert.equal(again.json.data.manualRefundRequired, false);
    },
  ),
  scenario(
    'checkout.refunds.failed-502',
    'A processing error answers 502 `refund_failed` with data.retryable (the sandbox fails a test refund whose `reason` is `sandbox_refund_failed`)',
    ERRORS,
    [...PAY_CARD, 'refundCheckoutSession'],
    async (ctx) => {
      const { s } = await paidCardSession(ctx, 20);
      const failed = await refundSessionWith(ctx, s.id, SANDBOX_REFUND_FAILURE);
      expectEnvelopeError(failed, 502, 'processor_error', 'refund_failed');
      assert.equal(failed.json.data.retryable, true, 'a processing error can be retried');
    },
  ),
  scenario(
    'checkout.refunds.error-data',
    'The `data` of `refund_failed` and `payment_not_refundable` errors holds refundable, reason, manualRefundRequired and, for `refund_failed`, retryable',
    ERRORS,
    [...PAY_CARD, ...ISSUE_QR, 'refundCheckoutSession'],
    async (ctx) => {
      const { s: shown } = await newQrSession(ctx);
      expectRefundError(await refundSession(ctx, shown), 400, 'invalid_request', 'payment_not_refundable', {
        refundable: false,
        reason: 'not_paid',
        manualRefundRequired: false,
      });
      const { s: paid } = await paidCardSession(ctx, 20);
      expectRefundError(await refundSessionWith(ctx, paid.id, SANDBOX_REFUND_FAILURE), 502, 'processor_error', 'refund_failed', {
        refundable: true,
        reason: 'refund_failed',
        manualRefundRequired: false,
        retryable: true,
      });
    },
  ),
  scenario(
    'checkout.refunds.errors-in-envelope',
    'Refund failures answer in the envelope form',
    ERRORS,
    [SESSION, 'refundCheckoutSession', 'refundPayment'],
    async (ctx) => {
      const s = await newSession(ctx);
      // expectEnvelopeError checks `success` false, errorCode, errorMessage and `data` with its type.
      expectEnvelopeError(await refundSession(ctx, s), 409, 'conflict', 'nothing_to_refund');
      expectEnvelopeError(await refundSessionWith(ctx, s.id, { amount: 'ten' }), 400, 'invalid_request', undefined, 'amount');
      expectEnvelopeError(await refundSessionWith(ctx, `cs_test_${'0'.repeat(24)}`), 404, 'not_found');
      expectEnvelopeError(await refundPaymentWith(ctx, 2_000_000_000), 404, 'not_found');
      const unauthenticated = await refundSessionWith(ctx, s.id, {}, 'sk_test_not_a_key');
      expectEnvelopeError(unauthenticated, 401, 'authentication');
      assert.equal('error' in unauthenticated.json, false, 'no general error body beside the envelope');
    },
  ),
];
