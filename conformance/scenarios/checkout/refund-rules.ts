// The refund rules about money already settled, failed attempts and who may refund: a settled
// payment is refunded from the balance (refused when it is short), a retry after `refund_failed`
// never refunds twice, and only the owning merchant in the key's mode can refund.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { fundedAccount } from '../fixtures/commerce-funds.js';
import { expectEnvelopeError, expectStatus } from '../fixtures/http.js';
import { liveSecretKey, otherSecretKey } from '../fixtures/keys.js';
import { PAY_CARD, RETRIEVE, SUBSCRIBE } from '../fixtures/operations.js';
import {
  availableUsd,
  emptyAvailableUsd,
  expectRefundError,
  figures,
  paidCardSession,
  refundPaymentWith,
  refundResult,
  refundSessionWith,
  SANDBOX_REFUND_FAILURE,
  settlePayment,
  succeededPayment,
} from '../fixtures/refunds.js';
import { clocked, scenario } from '../fixtures/scenario.js';
import { advancePast, dailySubscription, subscriptionInvoices, subscriptionOf } from '../fixtures/subscriptions.js';
import { REFUND_RULES } from '../fixtures/sections.js';
import { getSession, newSession, retrieveSession } from '../fixtures/sessions.js';

const REFUND = [...PAY_CARD, 'refundCheckoutSession'];
const cents = (amount: number) => Math.round(amount * 100);

export const refundRules: Scenario[] = [
  scenario(
    'checkout.refunds.rule-4-settled-from-balance',
    'A payment settled to the balance can still be refunded: the amount is taken from the balance and the settlement fee is not returned',
    REFUND_RULES,
    [...REFUND, 'settleTestPayment', 'listAccounts', 'getAccountBalance'],
    async (ctx) => {
      const account = await fundedAccount(ctx, 50); // enough available for the refund, whatever the fee
      const { s, paymentId } = await paidCardSession(ctx, 20);
      const settled = await settlePayment(ctx, paymentId);
      assert.ok(settled.feeAmount > 0, `the settlement charges a fee: ${JSON.stringify(settled)}`);
      assert.equal(cents(settled.netAmount), cents(20 - settled.feeAmount), 'the net of the fee reached the balance');
      const before = await availableUsd(ctx, account.id);
      const r = refundResult(await refundSessionWith(ctx, s.id), 'refund the settled payment');
      assert.deepEqual(figures(r), { status: 'refunded', refundAmount: 20, refundedAmount: 20, amountRefundable: 0, alreadyRefunded: false });
      const after = await availableUsd(ctx, account.id);
      assert.equal(
        cents(before - after),
        2000,
        `the whole 20.00 left the available balance, the fee (${settled.feeAmount}) not returned: ${before} → ${after}`,
      );
    },
    { ownMerchant: true },
  ),
  scenario(
    'checkout.refunds.rule-4-balance-short',
    'Refunding a settled payment when the balance is short is refused with 409 `refund_failed`',
    REFUND_RULES,
    [...REFUND, 'settleTestPayment', 'listAccounts', 'getAccountBalance', 'payInvoice', RETRIEVE],
    async (ctx) => {
      const { s, paymentId } = await paidCardSession(ctx, 20);
      await settlePayment(ctx, paymentId);
      const accountId = await emptyAvailableUsd(ctx);
      const refused = await refundSessionWith(ctx, s.id);
      expectRefundError(refused, 409, 'conflict', 'refund_failed', { refundable: false, reason: 'settled', manualRefundRequired: true, retryable: false });
      assert.equal(await availableUsd(ctx, accountId), 0, 'nothing left the balance');
      const after = await retrieveSession(ctx, s.id);
      assert.deepEqual([after.refund.refundable, after.refund.reason], [false, 'settled'], 'the session says the same: nothing was refunded');
    },
    { ownMerchant: true },
  ),
  scenario(
    'checkout.refunds.rule-5-retry-after-failure-safe',
    'A retry after `refund_failed` is safe and never refunds twice',
    REFUND_RULES,
    [...REFUND, RETRIEVE],
    async (ctx) => {
      const { s } = await paidCardSession(ctx, 20);
      expectEnvelopeError(await refundSessionWith(ctx, s.id, SANDBOX_REFUND_FAILURE), 502, 'processor_error', 'refund_failed');
      const failed = await retrieveSession(ctx, s.id);
      assert.deepEqual([failed.refund.refundable, failed.refund.reason], [true, 'refund_failed'], 'after the failure the payment is still refundable');
      const retried = refundResult(await refundSessionWith(ctx, s.id), 'retry the refund');
      assert.deepEqual(figures(retried), { status: 'refunded', refundAmount: 20, refundedAmount: 20, amountRefundable: 0, alreadyRefunded: false });
      const again = refundResult(await refundSessionWith(ctx, s.id), 'retry once more');
      assert.deepEqual(figures(again), { status: 'refunded', refundAmount: 0, refundedAmount: 20, amountRefundable: 0, alreadyRefunded: true });
    },
  ),
  scenario(
    'checkout.refunds.rule-8-retry-same-call',
    'After `refund_failed`, retrying the same call completes the refund without exceeding the amount paid',
    REFUND_RULES,
    [...REFUND, 'refundPayment'],
    async (ctx) => {
      const { paymentId } = await paidCardSession(ctx, 20);
      expectEnvelopeError(await refundPaymentWith(ctx, paymentId, { amount: 8, ...SANDBOX_REFUND_FAILURE }), 502, 'processor_error', 'refund_failed');
      const retried = refundResult(await refundPaymentWith(ctx, paymentId, { amount: 8 }), 'retry the same refund of 8.00');
      assert.deepEqual(figures(retried), { status: 'partially_refunded', refundAmount: 8, refundedAmount: 8, amountRefundable: 12, alreadyRefunded: false });
      expectEnvelopeError(await refundPaymentWith(ctx, paymentId, { amount: 12.01 }), 400, 'invalid_request', 'validation_error', 'amount');
      const rest = refundResult(await refundPaymentWith(ctx, paymentId), 'refund the rest');
      assert.deepEqual(figures(rest), { status: 'refunded', refundAmount: 12, refundedAmount: 20, amountRefundable: 0, alreadyRefunded: false });
    },
  ),
  scenario(
    'checkout.refunds.rule-6-other-merchant-404',
    "Refunding another merchant's session or payment answers 404",
    REFUND_RULES,
    [...REFUND, 'refundPayment', RETRIEVE],
    async (ctx) => {
      const other = await otherSecretKey(ctx);
      const { s, paymentId } = await paidCardSession(ctx, 20);
      expectEnvelopeError(await refundSessionWith(ctx, s.id, {}, other), 404, 'not_found');
      expectEnvelopeError(await refundPaymentWith(ctx, paymentId, {}, other), 404, 'not_found');
      expectStatus(await getSession(ctx, s.id, { key: other }), 404, "another merchant's key cannot read the session either");
      assert.equal((await retrieveSession(ctx, s.id)).refund.reason, 'refundable', 'nothing was refunded');
    },
  ),
  scenario(
    'checkout.refunds.rule-6-other-mode-404',
    'Refunding a session or payment of the other mode answers 404',
    REFUND_RULES,
    [...REFUND, 'refundPayment', RETRIEVE],
    async (ctx) => {
      const live = liveSecretKey(ctx);
      const { s, paymentId } = await paidCardSession(ctx, 20);
      expectEnvelopeError(await refundSessionWith(ctx, s.id, {}, live), 404, 'not_found');
      expectEnvelopeError(await refundPaymentWith(ctx, paymentId, {}, live), 404, 'not_found');
      assert.equal((await retrieveSession(ctx, s.id)).refund.reason, 'refundable', 'nothing was refunded');
      // And the converse: a live session is out of the test key's reach (it has no payment: nothing is charged).
      const liveSession = await newSession(ctx, {}, live);
      expectEnvelopeError(await refundSessionWith(ctx, liveSession.id), 404, 'not_found');
      expectEnvelopeError(await refundSessionWith(ctx, liveSession.id, {}, live), 409, 'conflict', 'nothing_to_refund');
    },
  ),
  clocked(
    'checkout.refunds.rule-6-payment-not-from-session-404',
    '`/v1/payments/{paymentId}/refund` of a payment not made through a checkout session (a renewal charged to the card on file) answers 404',
    REFUND_RULES,
    [...SUBSCRIBE, 'listSubscriptionInvoices', 'listEvents', 'refundPayment'],
    {
      async run(ctx) {
        const { subscriptionId } = await dailySubscription(ctx, 'refund of a renewal');
        await advancePast(ctx, (await subscriptionOf(ctx, subscriptionId)).currentPeriodEnd, 60);
        const [renewal] = await subscriptionInvoices(ctx, subscriptionId);
        const payment = await succeededPayment(ctx, (p) => p.invoiceId === renewal?.id);
        assert.ok(payment, `the renewal invoice ${renewal?.id} was paid (payment.succeeded)`);
        assert.equal(payment.sessionId, null, 'the renewal was charged to the card on file, through no session');
        expectEnvelopeError(await refundPaymentWith(ctx, payment.id), 404, 'not_found');
      },
    },
  ),
];
