// Refunds of a checkout session's payment: the refund rules, the named error codes and the refund
// states.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { advanceClock } from '../fixtures/clock.js';
import { call, expectEnvelopeError, expectStatus } from '../fixtures/http.js';
import { secretKey, tag } from '../fixtures/keys.js';
import { ISSUE_QR, PAY_CARD, PAY_QR, RETRIEVE, SESSION, STATUS } from '../fixtures/operations.js';
import { clocked, pending, pendingBecause } from '../fixtures/scenario.js';
import { ERRORS, REFUND_RESULT, REFUND_RULES, REFUND_STATES } from '../fixtures/sections.js';
import { refundSession, retrieveSession } from '../fixtures/sessions.js';
import { newQrPaidSession, newQrSession } from '../fixtures/wallet.js';

export const refunds: Scenario[] = [
  pending(
    'checkout.refunds.result-fields',
    'A refund answers sessionId, paymentId (number), paymentReferenceNumber, status, amount (paid), currency, alreadyRefunded, refundAmount (this one), refundedAmount (so far) and amountRefundable (left)',
    REFUND_RESULT,
    [...PAY_CARD, 'refundCheckoutSession'],
  ),
  pending('checkout.refunds.rule-1-omit-amount-refunds-rest', 'Omitting `amount` refunds all that is left (after a partial refund, the rest)', REFUND_RULES, [
    ...PAY_CARD,
    'refundCheckoutSession',
  ]),
  pending(
    'checkout.refunds.rule-2-card-partial-repeated',
    'Card payments can be refunded in part, repeatedly, up to the amount paid: `partially_refunded` until nothing is left, then `refunded`',
    REFUND_RULES,
    [...PAY_CARD, 'refundCheckoutSession'],
  ),
  pending('checkout.refunds.rule-2-more-than-left', 'Refunding more than is left is refused with 400 `validation_error`', REFUND_RULES, [
    ...PAY_CARD,
    'refundCheckoutSession',
  ]),
  {
    id: 'checkout.refunds.rule-3-wallet-full-only',
    title: 'Wallet QR payments refund in full only: a smaller amount is refused with 400 `partial_refund_not_supported`',
    source: REFUND_RULES,
    requires: [...PAY_QR, 'refundCheckoutSession'],
    serverOnly: true,
    async run(ctx) {
      const s = await newQrPaidSession(ctx);
      expectEnvelopeError(await refundSession(ctx, s, { amount: 1 }), 400, 'invalid_request', 'partial_refund_not_supported');
    },
  },
  pending(
    'checkout.refunds.rule-4-settled-from-balance',
    'A payment settled to the balance can still be refunded: the amount is taken from the balance and the settlement fee is not returned',
    REFUND_RULES,
    [...PAY_CARD, 'settleTestPayment', 'refundCheckoutSession', 'listAccounts', 'getAccountBalance'],
  ),
  pending('checkout.refunds.rule-4-balance-short', 'Refunding a settled payment when the balance is short is refused with 409 `refund_failed`', REFUND_RULES, [
    ...PAY_CARD,
    'settleTestPayment',
    'listAccounts',
    'createTransfer',
    'refundCheckoutSession',
  ]),
  pending('checkout.refunds.rule-5-repeat-already-refunded', 'Repeating a refund returns `alreadyRefunded` true without refunding again', REFUND_RULES, [
    ...PAY_CARD,
    'refundCheckoutSession',
  ]),
  pending(
    'checkout.refunds.rule-5-retry-after-failure-safe',
    'A retry after `refund_failed` is safe and never refunds twice (cannot provoke a processor failure yet)',
    REFUND_RULES,
    [...PAY_CARD, 'refundCheckoutSession'],
  ),
  pending('checkout.refunds.rule-6-other-merchant-404', "Refunding another merchant's session or payment answers 404", REFUND_RULES, [
    ...PAY_CARD,
    'refundCheckoutSession',
    'refundPayment',
    RETRIEVE,
  ]),
  pending('checkout.refunds.rule-6-other-mode-404', 'Refunding a session or payment of the other mode answers 404', REFUND_RULES, [
    ...PAY_CARD,
    'refundCheckoutSession',
    'refundPayment',
  ]),
  pending(
    'checkout.refunds.rule-6-payment-not-from-session-404',
    '`/v1/payments/{paymentId}/refund` of a payment not made through a checkout session answers 404',
    REFUND_RULES,
    ['createCommercePayment', 'refundPayment'],
  ),
  pending(
    'checkout.refunds.rule-7-partial-stays-success',
    'After a partial refund the payment stays Success and `payment.refunded` carries refundAmount and refundedAmount',
    REFUND_RULES,
    [...PAY_CARD, 'refundCheckoutSession', 'createWebhookConfiguration', 'listWebhookDeliveries'],
  ),
  pending(
    'checkout.refunds.rule-8-retry-same-call',
    'After `refund_failed`, retrying the same call completes the refund without exceeding the amount paid (cannot provoke a failure yet)',
    REFUND_RULES,
    [...PAY_CARD, 'refundCheckoutSession', 'refundPayment'],
  ),
  pending('checkout.refunds.by-payment-id', '`POST /v1/payments/{paymentId}/refund` refunds like the session refund, with the same result', REFUND_RULES, [
    ...PAY_CARD,
    STATUS,
    RETRIEVE,
    'refundPayment',
  ]),
  pending('checkout.refunds.nothing-to-refund', 'Refunding a session with no payment answers 409 `nothing_to_refund`', ERRORS, [
    SESSION,
    'refundCheckoutSession',
  ]),
  {
    id: 'checkout.refunds.not-yet-paid',
    title: 'Refunding a payment not yet paid (a QR code shown, 3-D Secure pending) answers 400 `payment_not_refundable`',
    source: ERRORS,
    requires: [...ISSUE_QR, 'refundCheckoutSession'],
    serverOnly: true,
    async run(ctx) {
      const { s } = await newQrSession(ctx);
      expectEnvelopeError(await refundSession(ctx, s), 400, 'invalid_request', 'payment_not_refundable');
    },
  },
  {
    id: 'checkout.refunds.in-progress-409',
    title: 'Refunding while another refund is under way answers 409 `payment_not_refundable`, reason `refund_pending`, manualRefundRequired false',
    source: ERRORS,
    requires: [...PAY_QR, 'refundCheckoutSession'],
    serverOnly: true,
    async run(ctx) {
      const s = await newQrPaidSession(ctx);
      const first = await refundSession(ctx, s);
      expectStatus(first, 200, 'refund the wallet payment');
      if (first.json.status !== 'pending_reversal') pendingBecause(`the wallet refund finished at once (${first.json.status}), so none is under way`);
      const again = await refundSession(ctx, s);
      expectEnvelopeError(again, 409, 'conflict', 'payment_not_refundable');
      assert.equal(again.json.data.reason, 'refund_pending');
      assert.equal(again.json.data.manualRefundRequired, false);
    },
  },
  pending('checkout.refunds.failed-502', 'A processing error answers 502 `refund_failed` with data.retryable (cannot be provoked yet)', ERRORS, [
    ...PAY_CARD,
    'refundCheckoutSession',
  ]),
  pending(
    'checkout.refunds.error-data',
    'The `data` of `refund_failed` and `payment_not_refundable` errors holds refundable, reason, manualRefundRequired and, for `refund_failed`, retryable',
    ERRORS,
    [SESSION, ...ISSUE_QR, 'refundCheckoutSession'],
  ),
  pending('checkout.refunds.errors-in-envelope', 'Refund failures answer in the envelope form', ERRORS, [SESSION, 'refundCheckoutSession']),
  pending('checkout.refund-states.paid-partial', 'paid → partial refund (card only) → `partially_refunded`, the payment stays Success', REFUND_STATES, [
    ...PAY_CARD,
    'refundCheckoutSession',
  ]),
  pending('checkout.refund-states.partial-rest', '`partially_refunded` → refund of the rest → `refunded`', REFUND_STATES, [
    ...PAY_CARD,
    'refundCheckoutSession',
  ]),
  pending('checkout.refund-states.paid-full', 'paid → full refund → `refunded`', REFUND_STATES, [...PAY_CARD, 'refundCheckoutSession']),
  clocked(
    'checkout.refund-states.wallet-pending-reversal',
    'paid → wallet refund accepted but not finished → `pending_reversal`, which completes on its own; `payment.refunded` signals it',
    REFUND_STATES,
    [...PAY_QR, 'refundCheckoutSession', RETRIEVE, 'createWebhookConfiguration', 'listWebhookDeliveries'],
    {
      async run(ctx) {
        const watch = await call(ctx, 'checkout', 'createWebhookConfiguration', {
          method: 'POST',
          path: '/v1/WebhookConfiguration',
          key: secretKey(ctx),
          body: {
            sandboxUrl: `https://conformance-${tag(ctx)}.till.invalid/hooks`,
            subscribedEvents: ['payment.refunded'],
            description: `Conformance ${tag(ctx)}`,
          },
        });
        expectStatus(watch, 201, 'watch payment.refunded');
        ctx.onCleanup(() =>
          ctx.request('checkout', 'deleteWebhookConfiguration', { method: 'DELETE', path: `/v1/WebhookConfiguration/${watch.json.id}`, key: secretKey(ctx) }),
        );
        const s = await newQrPaidSession(ctx);
        const first = await refundSession(ctx, s);
        expectStatus(first, 200, 'refund the wallet payment');
        if (first.json.status !== 'pending_reversal') pendingBecause(`the wallet refund finished at once (${first.json.status})`);
        assert.equal((await retrieveSession(ctx, s.id)).refund?.reason, 'refund_pending', 'while it is under way the session reads refund_pending');
        await advanceClock(ctx, 24 * 3600);
        assert.equal((await retrieveSession(ctx, s.id)).refund?.reason, 'already_refunded', 'it completed on its own');
        const log = await call(ctx, 'checkout', 'listWebhookDeliveries', {
          method: 'GET',
          path: `/v1/WebhookConfiguration/${watch.json.id}/deliveries`,
          key: secretKey(ctx),
        });
        expectStatus(log, 200, 'the delivery log');
        const refunded = log.json.data.filter((d: any) => d.eventType === 'payment.refunded' && d.event?.data?.object?.id === first.json.paymentId);
        assert.equal(refunded.length, 1, 'payment.refunded signals the completed refund, once');
      },
    },
  ),
];
