// The events a checkout session sends: expired, cancelled, and completed when paid (by card on an
// embedded or hosted session, or by a wallet QR code), each read back from a watch's delivery log.
import assert from 'node:assert/strict';
import type { ConformanceContext, Scenario } from '../../types.js';
import { advanceClock, secondsUntil } from '../fixtures/clock.js';
import { withWatch } from '../fixtures/events.js';
import { expectStatus } from '../fixtures/http.js';
import { PAY_CARD, PAY_QR, SESSION, WATCH } from '../fixtures/operations.js';
import { clocked, scenario } from '../fixtures/scenario.js';
import { EVENT_TYPES, TIED } from '../fixtures/sections.js';
import { cancelSession, newSession, payByCard } from '../fixtures/sessions.js';
import { aboutSession, orderOf, settledTypes, waitForObjects, waitForTied } from '../fixtures/tied.js';
import { newQrPaidSession } from '../fixtures/wallet.js';

/** Checks a `checkout.session.completed` object against the session it is about, paid by `paymentId`. */
function assertCompleted(ctx: ConformanceContext, completed: any, s: any, paymentId: number): void {
  assert.equal(completed.object, 'checkout_session');
  assert.equal(completed.id, s.id);
  assert.equal(completed.status, 'Completed', 'statuses inside data.object are PascalCase');
  assert.equal(completed.paymentId, paymentId, 'it names the payment that paid it');
  assert.deepEqual([completed.amount, completed.currency], [s.amount, s.currency]);
  assert.equal(completed.metadata?.conformanceRun, ctx.runId, "it carries the session's metadata");
}

export const tiedSessions: Scenario[] = [
  clocked('webhooks.tied.session-expiry', 'Session expiry sends `checkout.session.expired`', TIED, [...WATCH, SESSION], {
    async run(ctx) {
      await withWatch(ctx, ['checkout.session.*'], async (w) => {
        const s = await newSession(ctx);
        await advanceClock(ctx, secondsUntil(s.expiresAt, s.createdAt) + 1);
        const [expired] = await waitForObjects(ctx, w, aboutSession(s.id), ['checkout.session.expired'], 'the expiry');
        assert.equal(expired.status, 'Expired');
        assert.deepEqual(await settledTypes(ctx, w, aboutSession(s.id)), ['checkout.session.expired'], 'one event, and nothing else');
      });
    },
  }),
  scenario(
    'webhooks.tied.cancel-session',
    'Cancelling a session sends `checkout.session.cancelled` (and a repeated cancel no second one)',
    TIED,
    [...WATCH, SESSION, 'cancelCheckoutSession'],
    async (ctx) => {
      await withWatch(ctx, ['checkout.session.*'], async (w) => {
        const s = await newSession(ctx);
        expectStatus(await cancelSession(ctx, s.id), 204, 'cancel the session');
        const [cancelled] = await waitForObjects(ctx, w, aboutSession(s.id), ['checkout.session.cancelled'], 'the cancel');
        assert.equal(cancelled.status, 'Cancelled');
        expectStatus(await cancelSession(ctx, s.id), 204, 'cancel it again');
        assert.deepEqual(await settledTypes(ctx, w, aboutSession(s.id)), ['checkout.session.cancelled'], 'the repeated cancel sent no second event');
      });
    },
  ),
  scenario(
    'webhooks.events.checkout-session-completed',
    '`checkout.session.completed` is sent when a hosted or embedded session is paid',
    EVENT_TYPES,
    [...WATCH, ...PAY_CARD],
    async (ctx) => {
      await withWatch(ctx, ['checkout.session.*', 'payment.succeeded'], async (w) => {
        const embedded = await newSession(ctx, { amount: 14 });
        const hosted = await newSession(ctx, {
          amount: 16,
          mode: 'hosted',
          successUrl: 'https://shop.example.com/thanks',
          cancelUrl: 'https://shop.example.com/cart',
        });
        for (const s of [embedded, hosted]) {
          const paymentId = (await payByCard(ctx, s)).paymentResult.id;
          const events = await waitForTied(ctx, w, aboutSession(s.id), ['payment.succeeded', 'checkout.session.completed'], `the ${s.mode} session paid`);
          assertCompleted(ctx, events.find((e) => e.type === 'checkout.session.completed')!.object, s, paymentId);
          assert.equal(events.filter((e) => e.type === 'checkout.session.completed').length, 1, 'one checkout.session.completed');
        }
      });
    },
  ),
  scenario(
    'webhooks.events.checkout-session-completed-by-qr',
    '`payment.succeeded` and `checkout.session.completed` are sent when a wallet QR code is paid',
    EVENT_TYPES,
    [...WATCH, ...PAY_QR],
    async (ctx) => {
      await withWatch(ctx, ['checkout.session.*', 'payment.*'], async (w) => {
        const s = await newQrPaidSession(ctx, { amount: 18 });
        const events = await waitForTied(ctx, w, aboutSession(s.id), ['payment.succeeded', 'checkout.session.completed'], 'the QR code paid');
        assert.deepEqual(orderOf(events, ['payment.succeeded', 'checkout.session.completed']), ['payment.succeeded', 'checkout.session.completed']);
        const succeeded = events.find((e) => e.type === 'payment.succeeded')!.object;
        assert.equal(succeeded.status, 'Success');
        assert.equal(succeeded.amount, 18);
        assertCompleted(ctx, events.find((e) => e.type === 'checkout.session.completed')!.object, s, succeeded.id);
      });
    },
  ),
];
