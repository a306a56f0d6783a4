// The events payments send: approved or declined, card holds (authorized, captured, released, lapsed),
// each refund, chargebacks, payouts and the test event. Each check watches the event family on an
// `.invalid` URL and reads what was delivered about its own payment from the delivery log.
import assert from 'node:assert/strict';
import type { ConformanceContext, Scenario } from '../../types.js';
import { advanceClock } from '../fixtures/clock.js';
import { eventsAbout, sendTest, TEST_EVENT, waitForEvents, watch } from '../fixtures/deliveries.js';
import { withWatch } from '../fixtures/events.js';
import { call, expectStatus } from '../fixtures/http.js';
import { secretKey } from '../fixtures/keys.js';
import { HOLD, PAY_CARD, WATCH } from '../fixtures/operations.js';
import { drainPayouts, failNextPayout, madeOnPayoutDay, PAYOUT_CYCLE, payAndPayOut } from '../fixtures/payouts.js';
import { clocked, scenario } from '../fixtures/scenario.js';
import { EVENT_TYPES, TIED } from '../fixtures/sections.js';
import { confirmWith, newHoldSession, newSession, payByCard, refundSession, tokenizeOn } from '../fixtures/sessions.js';
import { aboutDisputeOf, disputeHelper, aboutPayment, aboutSession, holdAction, orderOf, settledTypes, waitForObjects, waitForTied } from '../fixtures/tied.js';

/** A hold session authorized by card: the session and its payment id. */
async function authorizedHold(ctx: ConformanceContext): Promise<{ s: any; paymentId: number }> {
  const s = await newHoldSession(ctx);
  return { s, paymentId: (await payByCard(ctx, s)).paymentResult.id };
}

/** Pays a new session of `amount` by card; answers the payment id. */
const paidPayment = async (ctx: ConformanceContext, amount: number): Promise<number> =>
  (await payByCard(ctx, await newSession(ctx, { amount }))).paymentResult.id;

const DISPUTE = [...WATCH, ...PAY_CARD, 'openTestDispute'];

/** Opens a dispute on a new paid payment (as the cardholder's bank would); answers the payment id and the dispute. */
async function openDispute(ctx: ConformanceContext, amount: number): Promise<{ paymentId: number; dispute: any }> {
  const paymentId = await paidPayment(ctx, amount);
  const res = await disputeHelper(ctx, 'openTestDispute', `payments/${paymentId}/dispute`, { reason: 'fraudulent' });
  expectStatus(res, 201, 'open a dispute (openTestDispute)');
  return { paymentId, dispute: res.json };
}

export const tiedPayments: Scenario[] = [
  scenario(
    'webhooks.tied.hold-authorized',
    'A hold authorized sends `payment.authorized`, then `checkout.session.completed`',
    TIED,
    [...WATCH, ...HOLD],
    async (ctx) => {
      await withWatch(ctx, ['payment.*', 'checkout.session.*'], async (w) => {
        const { s, paymentId } = await authorizedHold(ctx);
        const events = await waitForTied(ctx, w, aboutSession(s.id), ['payment.authorized', 'checkout.session.completed'], 'the hold');
        assert.deepEqual(orderOf(events, ['payment.authorized', 'checkout.session.completed']), ['payment.authorized', 'checkout.session.completed']);
        const authorized = events.find((e) => e.type === 'payment.authorized')!.object;
        assert.equal(authorized.id, paymentId);
        assert.equal(authorized.status, 'Authorized');
        assert.equal(authorized.capturedAmount, null, 'nothing captured yet');
        assert.ok(!(await settledTypes(ctx, w, aboutSession(s.id))).includes('payment.succeeded'), 'nothing is paid until capture: no payment.succeeded');
      });
    },
  ),
  scenario(
    'webhooks.tied.capture',
    'A capture sends `payment.captured`, then `payment.succeeded`',
    TIED,
    [...WATCH, ...HOLD, 'capturePayment'],
    async (ctx) => {
      await withWatch(ctx, ['payment.*'], async (w) => {
        const { s, paymentId } = await authorizedHold(ctx);
        expectStatus(await holdAction(ctx, paymentId, 'capture', { amount: 10 }), 200, 'capture 10.00 of the hold');
        const events = await waitForTied(ctx, w, aboutPayment(paymentId), ['payment.captured', 'payment.succeeded'], 'the capture');
        assert.deepEqual(orderOf(events, ['payment.captured', 'payment.succeeded']), ['payment.captured', 'payment.succeeded']);
        const captured = events.find((e) => e.type === 'payment.captured')!.object;
        assert.equal(captured.capturedAmount, 10, 'the event carries the amount captured');
        assert.equal(captured.amount, s.amount, 'and the amount authorized');
      });
    },
  ),
  scenario('webhooks.tied.release', 'A release sends `payment.released`', TIED, [...WATCH, ...HOLD, 'releasePayment'], async (ctx) => {
    await withWatch(ctx, ['payment.*'], async (w) => {
      const { paymentId } = await authorizedHold(ctx);
      expectStatus(await holdAction(ctx, paymentId, 'release'), 200, 'release the hold');
      const [released] = await waitForObjects(ctx, w, aboutPayment(paymentId), ['payment.released'], 'the release');
      assert.equal(released.status, 'Released');
      const types = await settledTypes(ctx, w, aboutPayment(paymentId));
      assert.deepEqual(
        types.filter((t) => t !== 'payment.authorized'),
        ['payment.released'],
        'nothing charged: no payment.captured or payment.succeeded',
      );
    });
  }),
  clocked('webhooks.tied.hold-lapse', 'A lapsed hold sends `payment.authorization_expired`', TIED, [...WATCH, ...HOLD], {
    async run(ctx) {
      const config = await watch(ctx, ['payment.authorization_expired']);
      const { paymentId } = await authorizedHold(ctx);
      await advanceClock(ctx, 7 * 86_400 + 60);
      const sent = await eventsAbout(ctx, config.id, 'payment.authorization_expired', (o) => o.id === paymentId || o.paymentId === paymentId);
      assert.equal(sent.length, 1, 'one payment.authorization_expired for the lapsed hold');
    },
  }),
  scenario(
    'webhooks.tied.each-refund',
    'Each successful refund sends `payment.refunded` (two partial refunds: two events)',
    TIED,
    [...WATCH, ...PAY_CARD, 'refundCheckoutSession'],
    async (ctx) => {
      await withWatch(ctx, ['payment.refunded'], async (w) => {
        const s = await newSession(ctx, { amount: 30 });
        const paymentId = (await payByCard(ctx, s)).paymentResult.id;
        for (const amount of [10, 5]) expectStatus(await refundSession(ctx, s, { amount, reason: 'requested_by_customer' }), 200, `refund ${amount}`);
        const events = await waitForTied(ctx, w, aboutPayment(paymentId), ['payment.refunded', 'payment.refunded'], 'two refunds');
        assert.deepEqual(
          events.map((e) => [e.object.refundAmount, e.object.refundedAmount, e.object.status]),
          [
            [10, 10, 'Success'],
            [5, 15, 'Success'],
          ],
          'one event per refund, each with its refundAmount and the refundedAmount so far; a partly refunded payment stays Success',
        );
        assert.equal((await settledTypes(ctx, w, aboutPayment(paymentId))).length, 2, 'no more than one event per refund');
      });
    },
  ),
  scenario('webhooks.events.payment-succeeded', '`payment.succeeded` is sent when a payment is approved', EVENT_TYPES, [...WATCH, ...PAY_CARD], async (ctx) => {
    await withWatch(ctx, ['payment.succeeded'], async (w) => {
      const s = await newSession(ctx, { amount: 21.4 });
      const paymentId = (await payByCard(ctx, s)).paymentResult.id;
      const [succeeded] = await waitForObjects(ctx, w, aboutSession(s.id), ['payment.succeeded'], 'the payment');
      assert.equal(succeeded.id, paymentId);
      assert.equal(succeeded.status, 'Success');
      assert.deepEqual([succeeded.amount, succeeded.currency], [21.4, 'USD']);
      assert.equal(succeeded.metadata?.conformanceRun, ctx.runId, "it carries the session's metadata");
    });
  }),
  scenario(
    'webhooks.events.payment-failed',
    '`payment.failed` is sent when a payment is declined or errors',
    EVENT_TYPES,
    [...WATCH, ...PAY_CARD],
    async (ctx) => {
      await withWatch(ctx, ['payment.*'], async (w) => {
        const s = await newSession(ctx);
        // A decline answers 400, a processor error 502 (retryable); the session stays payable after both.
        for (const [cardNumber, status] of [
          ['4000000000009995', 400],
          ['4000000000000119', 502],
        ] as const)
          expectStatus(await confirmWith(ctx, s, await tokenizeOn(ctx, s, cardNumber)), status, `a payment with ${cardNumber} is refused`);
        const events = await waitForTied(ctx, w, aboutSession(s.id), ['payment.failed', 'payment.failed'], 'a decline and an error');
        assert.deepEqual(
          events.map((e) => [e.type, e.object.status, e.object.failureCode]),
          [
            ['payment.failed', 'Failed', 'insufficient_funds'],
            ['payment.failed', 'Failed', 'processing_error'],
          ],
        );
        assert.equal(events[0]!.object.metadata?.conformanceRun, ctx.runId, 'payment.failed carries the session metadata, to tie it to an order');
        await payByCard(ctx, s);
        assert.equal(
          (await settledTypes(ctx, w, aboutSession(s.id))).filter((t) => t === 'payment.failed').length,
          2,
          'an approved payment sends no payment.failed',
        );
      });
    },
  ),
  scenario(
    'webhooks.events.dispute-opened',
    '`dispute.opened` is sent when a chargeback is raised (informational, no funds moved)',
    EVENT_TYPES,
    DISPUTE,
    async (ctx) => {
      await withWatch(ctx, ['dispute.*'], async (w) => {
        const { paymentId, dispute } = await openDispute(ctx, 40);
        const [opened] = await waitForObjects(ctx, w, aboutDisputeOf(paymentId), ['dispute.opened'], 'the chargeback');
        assert.equal(opened.id, dispute.id);
        assert.deepEqual([opened.status, opened.amount, opened.reason], ['Open', 40, 'fraudulent']);
      });
    },
  ),
  scenario(
    'webhooks.events.dispute-updated',
    '`dispute.updated` is sent when a chargeback changes status or deadline, with `previousStatus`',
    EVENT_TYPES,
    [...DISPUTE, 'updateTestDispute'],
    async (ctx) => {
      await withWatch(ctx, ['dispute.*'], async (w) => {
        const { paymentId, dispute } = await openDispute(ctx, 35);
        expectStatus(
          await disputeHelper(ctx, 'updateTestDispute', `disputes/${dispute.id}/update`, { status: 'UnderReview' }),
          200,
          'move the dispute to UnderReview',
        );
        const [updated] = await waitForObjects(ctx, w, aboutDisputeOf(paymentId), ['dispute.updated'], 'the status change');
        assert.deepEqual([updated.status, updated.previousStatus], ['UnderReview', 'Open']);
      });
    },
  ),
  scenario(
    'webhooks.events.dispute-closed',
    '`dispute.closed` is sent when a chargeback closes as Won, Lost or Accepted, with `invoiceReopened` true when the amount went back on the invoice as owed',
    EVENT_TYPES,
    [...DISPUTE, 'closeTestDispute', 'retrieveInvoice'],
    async (ctx) => {
      await withWatch(ctx, ['dispute.*'], async (w) => {
        for (const outcome of ['Won', 'Lost', 'Accepted']) {
          const { paymentId, dispute } = await openDispute(ctx, 25);
          expectStatus(await disputeHelper(ctx, 'closeTestDispute', `disputes/${dispute.id}/close`, { outcome }), 200, `close the dispute as ${outcome}`);
          const [closed] = await waitForObjects(ctx, w, aboutDisputeOf(paymentId), ['dispute.closed'], `the dispute closed ${outcome}`);
          assert.equal(closed.status, outcome);
          const invoice = await call(ctx, 'checkout', 'retrieveInvoice', { method: 'GET', path: `/v1/invoices/${closed.invoiceId}`, key: secretKey(ctx) });
          expectStatus(invoice, 200, "the payment's invoice");
          const owedAgain = invoice.json.amountDue === 25;
          assert.equal(
            closed.invoiceReopened,
            owedAgain,
            `${outcome}: invoiceReopened says whether the 25.00 is owed again (amountDue ${invoice.json.amountDue})`,
          );
          assert.equal(owedAgain, outcome !== 'Won', `${outcome}: the amount goes back on the invoice only when the merchant loses or accepts`);
        }
      });
    },
  ),
  scenario('webhooks.events.webhook-test', '`webhook.test` is sent for a test delivery triggered from the API', EVENT_TYPES, TEST_EVENT, async (ctx) => {
    await withWatch(ctx, ['webhook.test'], async (w) => {
      const sent = await sendTest(ctx, w.id);
      expectStatus(sent, 200, 'send a test event');
      const [event] = await waitForEvents(ctx, w, (e) => e.id === sent.json.eventId);
      assert.equal(event.type, 'webhook.test');
      assert.equal(event.data.object.object, 'test');
    });
  }),
  clocked(
    'webhooks.events.payout-completed',
    '`payout.completed` is sent when a payout to a bank account or wallet settles',
    EVENT_TYPES,
    [...WATCH, ...PAYOUT_CYCLE],
    {
      async run(ctx) {
        await withWatch(ctx, ['payout.completed'], async (w) => {
          const cycle = await payAndPayOut(ctx);
          const events = await waitForEvents(ctx, w, (e) => e.type === 'payout.completed' && madeOnPayoutDay(cycle, e.data.object.createdAt));
          const payout = events[0].data.object;
          assert.equal(payout.object, 'payout');
          assert.match(payout.id, /^po_/);
          assert.equal(payout.status, 'Completed');
          assert.equal(payout.failureReason, null);
          assert.ok(payout.amount >= 96.8, `the payout carries the payment's 96.80 net at least (got ${payout.amount})`);
          const transit = Date.parse(payout.arrivalDate) - Date.parse(payout.createdAt);
          assert.ok(transit >= 86_400_000 && transit < 86_400_000 + 60_000, `it arrives 24 hours after it leaves (${transit} ms)`);
        });
      },
    },
  ),
  clocked(
    'webhooks.events.payout-failed',
    '`payout.failed` is sent when a payout is rejected, cancelled or fails; its money is paid out again the next day',
    EVENT_TYPES,
    [...WATCH, ...PAYOUT_CYCLE, 'failNextTestPayout'],
    {
      async run(ctx) {
        await withWatch(ctx, ['payout.*'], async (w) => {
          await failNextPayout(ctx, 'The bank account is closed.');
          await payAndPayOut(ctx);
          // The next payout made fails: this one, or an earlier one carrying other clock scenarios' settled money.
          const [failed] = await waitForEvents(ctx, w, (e) => e.type === 'payout.failed');
          assert.equal(failed.data.object.status, 'Failed');
          assert.equal(failed.data.object.failureReason, 'The bank account is closed.');
          assert.equal(failed.data.object.arrivalDate, null);
          await drainPayouts(ctx);
          const later = await waitForEvents(
            ctx,
            w,
            (e) => e.type === 'payout.completed' && Date.parse(e.data.object.createdAt) > Date.parse(failed.data.object.createdAt),
          );
          const paidLater = later.reduce((sum, e) => sum + Math.round(e.data.object.amount * 100), 0);
          assert.ok(paidLater >= Math.round(failed.data.object.amount * 100), "the failed payout's money was paid out again later");
        });
      },
    },
  ),
];
