// The refund states of a paid session (checkout-billing-api.md › States and transitions › Refund
// status): partially_refunded, refunded and the wallet's pending_reversal.
import assert from 'node:assert/strict';
import type { ConformanceContext, Scenario } from '../../types.js';
import { advanceClock } from '../fixtures/clock.js';
import { apiKey } from '../fixtures/keys.js';
import { loggedEvents, watchEvents } from '../fixtures/events.js';
import { call, expectStatus } from '../fixtures/http.js';
import { PAY_CARD, PAY_QR, RETRIEVE, WATCH } from '../fixtures/operations.js';
import { figures, paidCardSession, refundResult, refundSessionWith } from '../fixtures/refunds.js';
import { clocked, pendingBecause, scenario } from '../fixtures/scenario.js';
import { REFUND_STATES } from '../fixtures/sections.js';
import { refundSession, retrieveSession } from '../fixtures/sessions.js';
import { newQrPaidSession } from '../fixtures/wallet.js';

const REFUND = [...PAY_CARD, 'refundCheckoutSession', RETRIEVE];

/** The payment's status as the Commerce interface reads it (`GET /v1/payment/{id}`). */
async function paymentStatus(ctx: ConformanceContext, paymentId: number): Promise<string> {
  const res = await call(ctx, 'commerce', 'getCommercePayment', { method: 'GET', path: `/v1/payment/${paymentId}`, apiKey: apiKey(ctx) });
  expectStatus(res, 200, `read payment ${paymentId}`);
  return res.json.status;
}

export const refundStates: Scenario[] = [
  scenario(
    'checkout.refund-states.paid-partial',
    'paid → partial refund (card only) → `partially_refunded`, the payment stays Success',
    REFUND_STATES,
    [...REFUND, 'getCommercePayment'],
    async (ctx) => {
      const { s, paymentId } = await paidCardSession(ctx, 20);
      assert.equal(await paymentStatus(ctx, paymentId), 'Success', 'paid');
      assert.equal(refundResult(await refundSessionWith(ctx, s.id, { amount: 4 }), 'refund 4.00').status, 'partially_refunded');
      assert.equal(await paymentStatus(ctx, paymentId), 'Success', 'after a partial refund the payment stays Success');
      const after = await retrieveSession(ctx, s.id);
      assert.deepEqual([after.status, after.refund.refundable, after.refund.reason], ['completed', true, 'refundable'], 'the rest can still be refunded');
    },
  ),
  scenario('checkout.refund-states.partial-rest', '`partially_refunded` → refund of the rest → `refunded`', REFUND_STATES, REFUND, async (ctx) => {
    const { s } = await paidCardSession(ctx, 20);
    assert.equal(refundResult(await refundSessionWith(ctx, s.id, { amount: 4 }), 'refund 4.00').status, 'partially_refunded');
    const rest = refundResult(await refundSessionWith(ctx, s.id, { amount: 16 }), 'refund the 16.00 left');
    assert.deepEqual(figures(rest), { status: 'refunded', refundAmount: 16, refundedAmount: 20, amountRefundable: 0, alreadyRefunded: false });
    assert.equal((await retrieveSession(ctx, s.id)).refund.reason, 'already_refunded');
  }),
  scenario('checkout.refund-states.paid-full', 'paid → full refund → `refunded`', REFUND_STATES, REFUND, async (ctx) => {
    const { s } = await paidCardSession(ctx, 20);
    const full = refundResult(await refundSessionWith(ctx, s.id, { amount: 20 }), 'refund all 20.00');
    assert.deepEqual(figures(full), { status: 'refunded', refundAmount: 20, refundedAmount: 20, amountRefundable: 0, alreadyRefunded: false });
    const after = await retrieveSession(ctx, s.id);
    assert.deepEqual([after.refund.refundable, after.refund.reason], [false, 'already_refunded'], 'nothing is left to refund');
  }),
  clocked(
    'checkout.refund-states.wallet-pending-reversal',
    'paid → wallet refund accepted but not finished → `pending_reversal`, which completes on its own; `payment.refunded` signals it',
    REFUND_STATES,
    [...PAY_QR, 'refundCheckoutSession', RETRIEVE, ...WATCH],
    {
      async run(ctx) {
        const w = await watchEvents(ctx, ['payment.refunded']);
        const s = await newQrPaidSession(ctx);
        const first = await refundSession(ctx, s);
        expectStatus(first, 200, 'refund the wallet payment');
        if (first.json.status !== 'pending_reversal') pendingBecause(`the wallet refund finished at once (${first.json.status})`);
        assert.equal((await retrieveSession(ctx, s.id)).refund?.reason, 'refund_pending', 'while it is under way the session reads refund_pending');
        await advanceClock(ctx, 24 * 3600);
        assert.equal((await retrieveSession(ctx, s.id)).refund?.reason, 'already_refunded', 'it completed on its own');
        const refunded = (await loggedEvents(ctx, w, 'payment.refunded')).filter((e) => e.data?.object?.id === first.json.paymentId);
        assert.equal(refunded.length, 1, 'payment.refunded signals the completed refund, once');
      },
    },
  ),
];
