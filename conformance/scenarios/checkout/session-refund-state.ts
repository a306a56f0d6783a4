// The `refund` object of a retrieved checkout session (checkout-billing-api.md › Checkout session:
// retrieval fields): whether its payment can be refunded through the API now, and why, by the
// same rule as the refund endpoints.
import assert from 'node:assert/strict';
import type { ConformanceContext, HttpResult, Scenario } from '../../types.js';
import { newInvoice, optionOf, payInvoice } from '../fixtures/commerce-payments.js';
import { call, expectStatus } from '../fixtures/http.js';
import { secretKey } from '../fixtures/keys.js';
import { ISSUE_QR, PAY_CARD, PAY_QR, RETRIEVE, SESSION } from '../fixtures/operations.js';
import {
  emptyAvailableUsd,
  expectRefundError,
  paidCardSession,
  refundPaymentWith,
  refundSessionWith,
  SANDBOX_REFUND_FAILURE,
  settlePayment,
  succeededPayment,
} from '../fixtures/refunds.js';
import { pendingBecause, scenario } from '../fixtures/scenario.js';
import { RETRIEVAL } from '../fixtures/sections.js';
import { newSession, refundSession, retrieveSession } from '../fixtures/sessions.js';
import { newQrPaidSession, newQrSession } from '../fixtures/wallet.js';

const REFUND_STATE = [...PAY_CARD, RETRIEVE, 'refundCheckoutSession'];

/** The session's `refund` object. */
const refundOf = async (ctx: ConformanceContext, sessionId: string): Promise<any> => (await retrieveSession(ctx, sessionId)).refund;

/** A paid bank transfer (Commerce `payInvoice`, received by the sandbox bank): its payment id and the session it ran through. */
async function receivedBankTransfer(ctx: ConformanceContext): Promise<{ paymentId: number; sessionId: string }> {
  const invoice = await newInvoice(ctx);
  const transfer = await payInvoice(ctx, { invoiceId: invoice.id, paymentOptionId: await optionOf(ctx, invoice.id, 'BankTransfer') });
  expectStatus(transfer, 200, 'pay an invoice by bank transfer');
  const paymentId: number = transfer.json.paymentId;
  const arrived = await call(ctx, 'checkout', 'simulatePaymentReceived', {
    method: 'POST',
    path: `/v1/test-helpers/payments/${paymentId}/receive`,
    key: secretKey(ctx),
  });
  expectStatus(arrived, 200, 'the transfer arrives');
  const sessionId = (await succeededPayment(ctx, (p) => p.id === paymentId))?.sessionId;
  assert.equal(typeof sessionId, 'string', `payment.succeeded names the session the bank transfer ${paymentId} ran through`);
  return { paymentId, sessionId };
}

/** Whether a refund call was accepted: it refunded (or started refunding) something now. */
const accepted = (res: HttpResult): boolean => res.status === 200 && res.json.alreadyRefunded === false;

export const sessionRefundState: Scenario[] = [
  scenario(
    'checkout.sessions.retrieve.refund-unpaid',
    'For an unpaid session the `refund` object says not refundable (reason `no_payment` or `not_paid`), manualRefundRequired false',
    RETRIEVAL,
    [SESSION, RETRIEVE],
    async (ctx) => {
      const refund = await refundOf(ctx, (await newSession(ctx)).id);
      assert.equal(refund.refundable, false, 'an unpaid session is not refundable');
      assert.ok(['no_payment', 'not_paid'].includes(refund.reason), `reason must be no_payment or not_paid, got ${JSON.stringify(refund.reason)}`);
      assert.equal(refund.manualRefundRequired, false, 'no manual refund is needed');
      assert.equal(typeof refund.message, 'string', 'message is text');
      assert.equal(refund.lastAttempt, null, 'no refund was attempted');
    },
  ),
  scenario(
    'checkout.sessions.retrieve.refund-refundable',
    'For a paid card session the `refund` object says refundable true, reason `refundable`, lastAttempt null',
    RETRIEVAL,
    [...PAY_CARD, RETRIEVE],
    async (ctx) => {
      const { s } = await paidCardSession(ctx, 20);
      const refund = await refundOf(ctx, s.id);
      assert.deepEqual(
        [refund.refundable, refund.reason, refund.manualRefundRequired, refund.lastAttempt],
        [true, 'refundable', false, null],
        `a paid card session is refundable: ${JSON.stringify(refund)}`,
      );
      assert.equal(typeof refund.message, 'string', 'message is text');
    },
  ),
  scenario(
    'checkout.sessions.retrieve.refund-already-refunded',
    'After a full refund the `refund` object reads reason `already_refunded` and refundable false, with lastAttempt {outcome, attemptedAt, attempts}',
    RETRIEVAL,
    REFUND_STATE,
    async (ctx) => {
      const { s } = await paidCardSession(ctx, 20);
      expectStatus(await refundSession(ctx, s), 200, 'refund in full');
      const refund = await refundOf(ctx, s.id);
      assert.deepEqual([refund.refundable, refund.reason, refund.manualRefundRequired], [false, 'already_refunded', false]);
      const attempt = refund.lastAttempt;
      assert.ok(attempt && typeof attempt === 'object', `lastAttempt records the refund: ${JSON.stringify(refund)}`);
      assert.deepEqual([attempt.outcome, attempt.attempts], ['completed', 1], 'one attempt, completed');
      assert.ok(
        Math.abs(Date.parse(attempt.attemptedAt) - Date.parse(s.createdAt)) < 3_600_000,
        `attemptedAt is the time of the refund: ${attempt.attemptedAt}`,
      );
    },
  ),
  scenario(
    'checkout.sessions.retrieve.refund-pending',
    'While a wallet refund is under way the `refund` object reads reason `refund_pending`',
    RETRIEVAL,
    [...PAY_QR, RETRIEVE, 'refundCheckoutSession'],
    async (ctx) => {
      const s = await newQrPaidSession(ctx);
      const res = await refundSession(ctx, s);
      expectStatus(res, 200, 'refund the wallet payment');
      if (res.json.status !== 'pending_reversal') pendingBecause(`the wallet refund finished at once (${res.json.status})`);
      const refund = await refundOf(ctx, s.id);
      assert.equal(refund.reason, 'refund_pending');
      assert.equal(refund.refundable, false);
    },
  ),
  scenario(
    'checkout.sessions.retrieve.refund-failed-still-refundable',
    'After a failed refund attempt the `refund` object reads reason `refund_failed`, still refundable (retry)',
    RETRIEVAL,
    REFUND_STATE,
    async (ctx) => {
      const { s } = await paidCardSession(ctx, 20);
      expectStatus(await refundSessionWith(ctx, s.id, SANDBOX_REFUND_FAILURE), 502, 'the sandbox fails the refund');
      const refund = await refundOf(ctx, s.id);
      assert.deepEqual([refund.refundable, refund.reason, refund.manualRefundRequired], [true, 'refund_failed', false], JSON.stringify(refund));
      assert.deepEqual([refund.lastAttempt?.outcome, refund.lastAttempt?.attempts], ['failed', 1], 'the failed attempt is recorded');
      expectStatus(await refundSession(ctx, s), 200, 'the retry goes through');
      const after = (await refundOf(ctx, s.id)).lastAttempt;
      assert.deepEqual([after?.outcome, after?.attempts], ['completed', 2], 'the retry is the second attempt, completed');
    },
  ),
  scenario(
    'checkout.sessions.retrieve.refund-settled-manual',
    'Reason `settled` (already paid out to the balance) and `method_not_supported` mean manualRefundRequired true',
    RETRIEVAL,
    [...PAY_CARD, 'settleTestPayment', RETRIEVE, 'listAccounts', 'getAccountBalance', 'payInvoice', 'simulatePaymentReceived', 'listEvents'],
    async (ctx) => {
      const { s, paymentId } = await paidCardSession(ctx, 20);
      await settlePayment(ctx, paymentId);
      await emptyAvailableUsd(ctx);
      const settled = await refundOf(ctx, s.id);
      assert.deepEqual([settled.refundable, settled.reason, settled.manualRefundRequired], [false, 'settled', true], JSON.stringify(settled));
      const transfer = await receivedBankTransfer(ctx);
      const bank = await refundOf(ctx, transfer.sessionId);
      assert.deepEqual([bank.refundable, bank.reason, bank.manualRefundRequired], [false, 'method_not_supported', true], JSON.stringify(bank));
      expectRefundError(await refundPaymentWith(ctx, transfer.paymentId), 400, 'invalid_request', 'payment_not_refundable', {
        refundable: false,
        reason: 'method_not_supported',
        manualRefundRequired: true,
      });
    },
    { ownMerchant: true },
  ),
  scenario(
    'checkout.sessions.retrieve.refund-same-rule-as-endpoint',
    '`refund.refundable` agrees with the refund endpoint: refundable true exactly when a refund call would be accepted',
    RETRIEVAL,
    [...REFUND_STATE, ...ISSUE_QR],
    async (ctx) => {
      const unpaid = await newSession(ctx);
      const { s: qrShown } = await newQrSession(ctx);
      const paid = (await paidCardSession(ctx, 20)).s;
      const refunded = (await paidCardSession(ctx, 20)).s;
      expectStatus(await refundSession(ctx, refunded), 200, 'refund one in full');
      const failed = (await paidCardSession(ctx, 20)).s;
      expectStatus(await refundSessionWith(ctx, failed.id, SANDBOX_REFUND_FAILURE), 502, 'the sandbox fails a refund');
      for (const [what, s] of Object.entries({ unpaid, qrShown, paid, refunded, failed })) {
        const { refundable, reason } = await refundOf(ctx, s.id);
        const res = await refundSession(ctx, s);
        assert.equal(
          accepted(res),
          refundable,
          `${what}: refund reads refundable ${refundable} (${reason}), the refund call answered ${res.status} ${res.text.slice(0, 200)}`,
        );
      }
    },
  ),
];
