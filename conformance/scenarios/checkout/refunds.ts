// Refunds of a checkout session's payment: the refund result, the amount rules (all that is left,
// in part and repeatedly, never more than is left, wallets in full only), repeats, the
// `payment.refunded` webhook and the refund by payment id.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { loggedEvents, watchEvents } from '../fixtures/events.js';
import { expectEnvelopeError, expectStatus, sleep } from '../fixtures/http.js';
import { PAY_CARD, PAY_QR, RETRIEVE, WATCH } from '../fixtures/operations.js';
import { figures, paidCardSession, refundPaymentWith, refundResult, refundSessionWith } from '../fixtures/refunds.js';
import { scenario } from '../fixtures/scenario.js';
import { REFUND_RESULT, REFUND_RULES } from '../fixtures/sections.js';
import { refundSession, retrieveSession } from '../fixtures/sessions.js';
import { newQrPaidSession } from '../fixtures/wallet.js';
import { WAIT_MS } from '../fixtures/wait.js';

const REFUND = [...PAY_CARD, 'refundCheckoutSession'];

export const refunds: Scenario[] = [
  scenario(
    'checkout.refunds.result-fields',
    'A refund answers sessionId, paymentId (number), paymentReferenceNumber, status, amount (paid), currency, alreadyRefunded, refundAmount (this one), refundedAmount (so far) and amountRefundable (left)',
    REFUND_RESULT,
    REFUND,
    async (ctx) => {
      const { s, paymentId } = await paidCardSession(ctx, 20);
      const r = refundResult(await refundSessionWith(ctx, s.id, { amount: 7.5, reason: 'requested_by_customer' }), 'refund 7.50');
      assert.equal(r.sessionId, s.id, 'sessionId is the session refunded');
      assert.equal(r.paymentId, paymentId, "paymentId is the session's payment (a number)");
      assert.match(String(r.paymentReferenceNumber), /\S/, 'paymentReferenceNumber is given');
      assert.deepEqual([r.amount, r.currency], [20, 'USD'], 'amount is what was paid, in its currency');
      assert.deepEqual(figures(r), { status: 'partially_refunded', refundAmount: 7.5, refundedAmount: 7.5, amountRefundable: 12.5, alreadyRefunded: false });
      const rest = refundResult(await refundSessionWith(ctx, s.id, { amount: 2.5 }), 'refund 2.50 more');
      assert.deepEqual(figures(rest), { status: 'partially_refunded', refundAmount: 2.5, refundedAmount: 10, amountRefundable: 10, alreadyRefunded: false });
      assert.equal(rest.paymentReferenceNumber, r.paymentReferenceNumber, 'the same payment');
    },
  ),
  scenario(
    'checkout.refunds.rule-1-omit-amount-refunds-rest',
    'Omitting `amount` refunds all that is left (after a partial refund, the rest)',
    REFUND_RULES,
    REFUND,
    async (ctx) => {
      const whole = await paidCardSession(ctx, 20);
      assert.deepEqual(figures(refundResult(await refundSession(ctx, whole.s), 'refund without amount')), {
        status: 'refunded',
        refundAmount: 20,
        refundedAmount: 20,
        amountRefundable: 0,
        alreadyRefunded: false,
      });
      const { s } = await paidCardSession(ctx, 20);
      refundResult(await refundSessionWith(ctx, s.id, { amount: 6 }), 'refund 6.00');
      assert.deepEqual(figures(refundResult(await refundSession(ctx, s), 'refund the rest without amount')), {
        status: 'refunded',
        refundAmount: 14,
        refundedAmount: 20,
        amountRefundable: 0,
        alreadyRefunded: false,
      });
    },
  ),
  scenario(
    'checkout.refunds.rule-2-card-partial-repeated',
    'Card payments can be refunded in part, repeatedly, up to the amount paid: `partially_refunded` until nothing is left, then `refunded`',
    REFUND_RULES,
    REFUND,
    async (ctx) => {
      const { s } = await paidCardSession(ctx, 20);
      const seen = [];
      for (const amount of [5, 5, 9.99, 0.01]) seen.push(figures(refundResult(await refundSessionWith(ctx, s.id, { amount }), `refund ${amount}`)));
      assert.deepEqual(
        seen.map((f) => [f.status, f.refundAmount, f.refundedAmount, f.amountRefundable]),
        [
          ['partially_refunded', 5, 5, 15],
          ['partially_refunded', 5, 10, 10],
          ['partially_refunded', 9.99, 19.99, 0.01],
          ['refunded', 0.01, 20, 0],
        ],
      );
    },
  ),
  scenario(
    'checkout.refunds.rule-2-more-than-left',
    'Refunding more than is left is refused with 400 `validation_error`',
    REFUND_RULES,
    [...REFUND, RETRIEVE],
    async (ctx) => {
      const { s } = await paidCardSession(ctx, 20);
      expectEnvelopeError(await refundSessionWith(ctx, s.id, { amount: 20.01 }), 400, 'invalid_request', 'validation_error', 'amount');
      refundResult(await refundSessionWith(ctx, s.id, { amount: 15 }), 'refund 15.00');
      expectEnvelopeError(await refundSessionWith(ctx, s.id, { amount: 5.01 }), 400, 'invalid_request', 'validation_error', 'amount');
      assert.equal((await retrieveSession(ctx, s.id)).refund.reason, 'refundable', 'the refused calls refunded nothing: 5.00 is still left');
      assert.deepEqual(figures(refundResult(await refundSessionWith(ctx, s.id, { amount: 5 }), 'refund exactly what is left')).refundedAmount, 20);
    },
  ),
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
  scenario(
    'checkout.refunds.rule-5-repeat-already-refunded',
    'Repeating a refund returns `alreadyRefunded` true without refunding again',
    REFUND_RULES,
    [...REFUND, 'refundPayment'],
    async (ctx) => {
      const { s, paymentId } = await paidCardSession(ctx, 20);
      const first = refundResult(await refundSession(ctx, s), 'refund in full');
      assert.equal(first.alreadyRefunded, false, 'the first refund is a refund');
      for (const [what, res] of [
        ['the same call again', await refundSession(ctx, s)],
        ['again with an amount', await refundSessionWith(ctx, s.id, { amount: 5 })],
        ['again by payment id', await refundPaymentWith(ctx, paymentId)],
      ] as const) {
        assert.deepEqual(
          figures(refundResult(res, what)),
          { status: 'refunded', refundAmount: 0, refundedAmount: 20, amountRefundable: 0, alreadyRefunded: true },
          `${what}: alreadyRefunded, nothing more refunded`,
        );
      }
    },
  ),
  scenario(
    'checkout.refunds.rule-7-partial-stays-success',
    'After a partial refund the payment stays Success and `payment.refunded` carries refundAmount and refundedAmount',
    REFUND_RULES,
    [...REFUND, ...WATCH],
    async (ctx) => {
      const w = await watchEvents(ctx, ['payment.refunded']);
      const { s, paymentId } = await paidCardSession(ctx, 20);
      refundResult(await refundSessionWith(ctx, s.id, { amount: 5 }), 'refund 5.00');
      refundResult(await refundSession(ctx, s), 'refund the rest');
      const ofPayment = async () => (await loggedEvents(ctx, w, 'payment.refunded')).filter((e) => e.data?.object?.id === paymentId);
      const deadline = Date.now() + WAIT_MS;
      let events = await ofPayment();
      while (events.length < 2 && Date.now() < deadline) {
        await sleep(250);
        events = await ofPayment();
      }
      assert.equal(events.length, 2, `one payment.refunded per refund of payment ${paymentId} within ${WAIT_MS / 1000} s, got ${events.length}`);
      const shown = events.map((e) => [e.data.object.status, e.data.object.refundAmount, e.data.object.refundedAmount]);
      assert.deepEqual(shown, [
        ['Success', 5, 5],
        ['Refunded', 15, 20],
      ]);
    },
  ),
  scenario(
    'checkout.refunds.by-payment-id',
    '`POST /v1/payments/{paymentId}/refund` refunds like the session refund, with the same result',
    REFUND_RULES,
    [...REFUND, RETRIEVE, 'refundPayment'],
    async (ctx) => {
      const bySession = await paidCardSession(ctx, 20);
      const byPayment = await paidCardSession(ctx, 20);
      expectStatus(await refundSessionWith(ctx, bySession.s.id, { amount: 5 }), 200, 'refund 5.00 by session');
      const viaPayment = refundResult(await refundPaymentWith(ctx, byPayment.paymentId, { amount: 5 }), 'refund 5.00 by payment id');
      assert.equal(viaPayment.sessionId, byPayment.s.id, "the result names the payment's session");
      assert.equal(viaPayment.paymentId, byPayment.paymentId);
      const restBySession = refundResult(await refundSession(ctx, bySession.s), 'refund the rest by session');
      const restByPayment = refundResult(await refundPaymentWith(ctx, byPayment.paymentId), 'refund the rest by payment id');
      const same = (r: any) => ({ ...figures(r), amount: r.amount, currency: r.currency, fields: Object.keys(r).sort() });
      assert.deepEqual(same(restByPayment), same(restBySession), 'the same result either way');
      assert.equal((await retrieveSession(ctx, byPayment.s.id)).refund.reason, 'already_refunded', 'the session shows the refund made by payment id');
    },
  ),
];
