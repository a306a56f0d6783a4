// Which operation or change sends which event: per-session notification URLs, events tied to operations, and each event type.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { advanceClock, secondsUntil } from '../fixtures/clock.js';
import { HOLD, PAY_CARD, PAY_QR, SESSION, SUBSCRIBE, WATCH } from '../fixtures/operations.js';
import { clocked, pending } from '../fixtures/scenario.js';
import { CREATION_RULES, EVENT_TYPES, TIED } from '../fixtures/sections.js';
import { eventsAbout, TEST_EVENT, waitForEvents, watch } from '../fixtures/deliveries.js';
import { newSession, payByCard } from '../fixtures/sessions.js';
import { withWatch } from '../fixtures/events.js';
import { drainPayouts, failNextPayout, PAYOUT_CYCLE, payAndPayOut } from '../fixtures/payouts.js';

export const perSession: Scenario[] = [
  pending(
    'webhooks.per-session.session-events',
    "With `notificationUrl`, the session's `checkout.session.completed`, `.expired` and `.cancelled` events are sent there (needs a public HTTPS receiver)",
    CREATION_RULES,
    [SESSION, 'cancelCheckoutSession', ...PAY_CARD],
  ),
  pending(
    'webhooks.per-session.payment-events',
    'The `payment.*` events of payments made through the session (refunds and holds included) are sent to its `notificationUrl` (needs a public HTTPS receiver)',
    CREATION_RULES,
    [...PAY_CARD, 'refundCheckoutSession', 'capturePayment'],
  ),
  pending(
    'webhooks.per-session.dispute-events',
    'The `dispute.*` events of payments made through the session are sent to its `notificationUrl` (no way to raise a chargeback is known yet)',
    CREATION_RULES,
    [...PAY_CARD],
  ),
  pending('webhooks.per-session.no-endpoint-needed', 'Per-session delivery needs no configured endpoint', CREATION_RULES, [...PAY_CARD]),
  pending('webhooks.per-session.also-configured-endpoints', 'Per-session events also go to the configured endpoints', CREATION_RULES, [...WATCH, ...PAY_CARD]),
  pending(
    'webhooks.per-session.normal-envelope-retries-signature',
    'Per-session events use the normal envelope, retry schedule and `X-Webhook-Signature`',
    CREATION_RULES,
    [...PAY_CARD],
  ),
  pending('webhooks.per-session.sent-secret-signs', 'A sent `notificationSecret` signs every event of the session', CREATION_RULES, [...PAY_CARD]),
  pending(
    'webhooks.per-session.generated-secret-signs',
    "Without a sent secret, the `notificationSecret` returned at creation signs the session's events",
    CREATION_RULES,
    [...PAY_CARD],
  ),
];

export const tied: Scenario[] = [
  clocked('webhooks.tied.session-expiry', 'Session expiry sends `checkout.session.expired`', TIED, [...WATCH, SESSION], {
    async run(ctx) {
      const config = await watch(ctx, ['checkout.session.expired']);
      const s = await newSession(ctx);
      await advanceClock(ctx, secondsUntil(s.expiresAt, s.createdAt) + 1);
      const sent = await eventsAbout(ctx, config.id, 'checkout.session.expired', (o) => o.id === s.id || o.sessionId === s.id);
      assert.equal(sent.length, 1, 'one checkout.session.expired for the session');
    },
  }),
  pending('webhooks.tied.cancel-session', 'Cancelling a session sends `checkout.session.cancelled` (and a repeated cancel no second one)', TIED, [
    ...WATCH,
    SESSION,
    'cancelCheckoutSession',
  ]),
  pending('webhooks.tied.hold-authorized', 'A hold authorized sends `payment.authorized`, then `checkout.session.completed`', TIED, [...WATCH, ...HOLD]),
  pending('webhooks.tied.capture', 'A capture sends `payment.captured`, then `payment.succeeded`', TIED, [...WATCH, ...HOLD, 'capturePayment']),
  pending('webhooks.tied.release', 'A release sends `payment.released`', TIED, [...WATCH, ...HOLD, 'releasePayment']),
  clocked('webhooks.tied.hold-lapse', 'A lapsed hold sends `payment.authorization_expired`', TIED, [...WATCH, ...HOLD], {
    async run(ctx) {
      const config = await watch(ctx, ['payment.authorization_expired']);
      const s = await newSession(ctx, { captureMethod: 'manual' });
      const paymentId = (await payByCard(ctx, s)).paymentResult.id;
      await advanceClock(ctx, 7 * 86_400 + 60);
      const sent = await eventsAbout(ctx, config.id, 'payment.authorization_expired', (o) => o.id === paymentId || o.paymentId === paymentId);
      assert.equal(sent.length, 1, 'one payment.authorization_expired for the lapsed hold');
    },
  }),
  pending('webhooks.tied.each-refund', 'Each successful refund sends `payment.refunded` (two partial refunds: two events)', TIED, [
    ...WATCH,
    ...PAY_CARD,
    'refundCheckoutSession',
  ]),
  pending('webhooks.tied.subscription-cancel', 'Cancelling a subscription sends `subscription.cancelled`', TIED, [
    ...WATCH,
    ...SUBSCRIBE,
    'cancelSubscription',
  ]),
  pending('webhooks.tied.subscription-pause', 'Pausing a subscription sends `subscription.paused`', TIED, [...WATCH, ...SUBSCRIBE, 'pauseSubscription']),
  pending('webhooks.tied.subscription-resume', 'Resuming a subscription sends `subscription.resumed`', TIED, [
    ...WATCH,
    ...SUBSCRIBE,
    'pauseSubscription',
    'resumeSubscription',
  ]),
  pending(
    'webhooks.tied.subscription-plan-change',
    'A plan change sends `subscription.updated` with `previousPlanId` and net `proratedAmount` (charge positive, credit negative); no API operation changes a plan yet',
    TIED,
    [...WATCH, ...SUBSCRIBE, 'createPortalSession'],
  ),
];

/** Event types whose trigger is not already a row of the operations table above. */
export const eventTypes: Scenario[] = [
  pending('webhooks.events.payment-succeeded', '`payment.succeeded` is sent when a payment is approved', EVENT_TYPES, [...WATCH, ...PAY_CARD]),
  pending('webhooks.events.payment-failed', '`payment.failed` is sent when a payment is declined or errors', EVENT_TYPES, [...WATCH, ...PAY_CARD]),
  pending('webhooks.events.checkout-session-completed', '`checkout.session.completed` is sent when a hosted or embedded session is paid', EVENT_TYPES, [
    ...WATCH,
    ...PAY_CARD,
  ]),
  pending(
    'webhooks.events.checkout-session-completed-by-qr',
    '`payment.succeeded` and `checkout.session.completed` are sent when a wallet QR code is paid',
    EVENT_TYPES,
    [...WATCH, ...PAY_QR],
  ),
  pending('webhooks.events.invoice-paid', '`invoice.paid` is sent when an invoice is paid in full', EVENT_TYPES, [...WATCH, 'createInvoice', ...PAY_CARD]),
  pending('webhooks.events.invoice-payment-failed', '`invoice.payment_failed` is sent when a payment against an invoice fails', EVENT_TYPES, [
    ...WATCH,
    'createInvoice',
    ...PAY_CARD,
  ]),
  clocked('webhooks.events.invoice-past-due', '`invoice.past_due` is sent when an invoice passes its due date unpaid', EVENT_TYPES, [
    ...WATCH,
    'createInvoice',
  ]),
  pending('webhooks.events.invoice-sent', '`invoice.sent` is sent when an invoice is emailed to its customer', EVENT_TYPES, [
    ...WATCH,
    'createInvoice',
    'sendInvoice',
  ]),
  pending('webhooks.events.invoice-voided', '`invoice.voided` is sent when an unpaid invoice is voided', EVENT_TYPES, [
    ...WATCH,
    'createInvoice',
    'voidInvoice',
  ]),
  pending('webhooks.events.invoice-refunded', '`invoice.refunded` is sent when a payment on an invoice is refunded', EVENT_TYPES, [
    ...WATCH,
    'createInvoice',
    ...PAY_CARD,
    'refundInvoice',
  ]),
  pending('webhooks.events.subscription-created', '`subscription.created` is sent when a subscription is created', EVENT_TYPES, [...WATCH, ...SUBSCRIBE]),
  pending(
    'webhooks.events.subscription-activated',
    '`subscription.activated` is sent when a subscription becomes active (first payment, trial end, recovery from past due)',
    EVENT_TYPES,
    [...WATCH, ...SUBSCRIBE],
  ),
  clocked(
    'webhooks.events.subscription-renewed',
    '`subscription.renewed` is sent when a subscription rolls into a new period and its invoice is raised',
    EVENT_TYPES,
    [...WATCH, ...SUBSCRIBE],
  ),
  clocked('webhooks.events.subscription-payment-failed', '`subscription.payment_failed` is sent once per failed dunning attempt', EVENT_TYPES, [
    ...WATCH,
    ...SUBSCRIBE,
  ]),
  clocked('webhooks.events.subscription-past-due', '`subscription.past_due` is sent when a subscription becomes past due', EVENT_TYPES, [
    ...WATCH,
    ...SUBSCRIBE,
  ]),
  clocked('webhooks.events.subscription-unpaid', '`subscription.unpaid` is sent when dunning is exhausted', EVENT_TYPES, [...WATCH, ...SUBSCRIBE]),
  clocked(
    'webhooks.events.subscription-cancelled-twice',
    '`subscription.cancelled` is sent when cancellation is scheduled (status active, `cancelAtPeriodEnd` true, `cancelAt` = period end) and again when it takes effect (status `Canceled`, `canceledAt` set)',
    EVENT_TYPES,
    [...WATCH, ...SUBSCRIBE, 'cancelSubscription'],
  ),
  clocked(
    'webhooks.events.payout-completed',
    '`payout.completed` is sent when a payout to a bank account or wallet settles',
    EVENT_TYPES,
    [...WATCH, ...PAYOUT_CYCLE],
    {
      async run(ctx) {
        await withWatch(ctx, ['payout.completed'], async (w) => {
          const { payoutDay } = await payAndPayOut(ctx);
          const events = await waitForEvents(ctx, w, (e) => e.type === 'payout.completed' && e.data.object.createdAt.startsWith(payoutDay));
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
  pending(
    'webhooks.events.dispute-opened',
    '`dispute.opened` is sent when a chargeback is raised (informational, no funds moved); no way to raise one is known yet',
    EVENT_TYPES,
    [...WATCH, ...PAY_CARD],
  ),
  pending('webhooks.events.dispute-updated', '`dispute.updated` is sent when a chargeback changes status or deadline, with `previousStatus`', EVENT_TYPES, [
    ...WATCH,
    ...PAY_CARD,
  ]),
  pending(
    'webhooks.events.dispute-closed',
    '`dispute.closed` is sent when a chargeback closes as Won, Lost or Accepted, with `invoiceReopened` true when the amount went back on the invoice as owed',
    EVENT_TYPES,
    [...WATCH, ...PAY_CARD],
  ),
  pending('webhooks.events.webhook-test', '`webhook.test` is sent for a test delivery triggered from the API', EVENT_TYPES, TEST_EVENT),
];
