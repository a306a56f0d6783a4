// Which events a configuration is sent: delivery selection by subscribed event types, and the sandbox and live URLs.
import assert from 'node:assert/strict';
import type { ConformanceContext, Scenario } from '../../types.js';
import { call, expectError, expectStatus } from '../fixtures/http.js';
import { liveSecretKey, secretKey, tag } from '../fixtures/keys.js';
import { PAY_CARD, SESSION, WATCH } from '../fixtures/operations.js';
import { clocked, scenario } from '../fixtures/scenario.js';
import { EVENT_TYPES, SELECTION } from '../fixtures/sections.js';
import { deliveryLog, newConfiguration, waitForLogged } from '../fixtures/deliveries.js';
import { withWatch } from '../fixtures/events.js';
import { PAYOUT_CYCLE, payAndPayOut, payoutEvents } from '../fixtures/payouts.js';
import { loggedRequests, receivedEvent, receivingConfiguration, signedWith } from '../fixtures/receiver.js';
import { cancelSession, newSession, refundSession } from '../fixtures/sessions.js';
import { aboutSession, paidSession, settledEvents, waitForDelivery, waitForTypes, watchWith } from './observe.js';

/** A live URL that never resolves. */
const liveUrlOf = (ctx: ConformanceContext) => `https://conformance-${tag(ctx).toLowerCase()}-live.till.invalid/hooks`;

/** Pays a session (refunding part of it) and cancels another, under a watch with `filter`; answers the settled log, and the events about the two sessions. */
async function selectionRun(ctx: ConformanceContext, filter: string[] | undefined, expected: string[]): Promise<{ all: any[]; ours: any[] }> {
  const w = await watchWith(ctx, filter);
  const paid = await paidSession(ctx);
  expectStatus(await refundSession(ctx, paid, { amount: 5 }), 200, 'refund part of the payment');
  const cancelled = await newSession(ctx);
  expectStatus(await cancelSession(ctx, cancelled.id), 204, 'cancel a session');
  const ours = (e: any) => aboutSession(paid.id)(e) || aboutSession(cancelled.id)(e);
  await waitForTypes(ctx, w, ours, expected, `a configuration with subscribedEvents ${JSON.stringify(filter ?? 'absent')}`);
  const all = await settledEvents(ctx, w);
  return { all, ours: all.filter(ours) };
}

const PAID_AND_CANCELLED = ['payment.succeeded', 'payment.refunded', 'checkout.session.completed', 'checkout.session.cancelled'];
const SELECTION_OPS = [...WATCH, ...PAY_CARD, 'refundCheckoutSession', 'cancelCheckoutSession'];

export const selection: Scenario[] = [
  scenario('webhooks.selection.default-every-event', 'By default (no `subscribedEvents`) every event is delivered', SELECTION, SELECTION_OPS, async (ctx) => {
    const { ours } = await selectionRun(ctx, undefined, PAID_AND_CANCELLED);
    assert.deepEqual([...new Set(ours.map((e) => e.type))].sort(), [...PAID_AND_CANCELLED].sort(), 'every event of the two sessions, of both families');
  }),
  scenario(
    'webhooks.selection.exact-name',
    '`subscribedEvents` with an event name delivers that event and not others',
    SELECTION,
    SELECTION_OPS,
    async (ctx) => {
      const { all, ours } = await selectionRun(ctx, ['payment.succeeded'], ['payment.succeeded']);
      assert.equal(ours.length, 1, 'the one payment.succeeded of the paid session');
      const others = all.filter((e) => e.type !== 'payment.succeeded').map((e) => e.type);
      assert.deepEqual(others, [], 'no event of another type was delivered');
    },
  ),
  scenario(
    'webhooks.selection.family-wildcard',
    'A family with a trailing wildcard (`payment.*`) delivers every event of that family and no other',
    SELECTION,
    SELECTION_OPS,
    async (ctx) => {
      const { all, ours } = await selectionRun(ctx, ['payment.*'], ['payment.succeeded', 'payment.refunded']);
      assert.deepEqual(ours.map((e) => e.type).sort(), ['payment.refunded', 'payment.succeeded'], 'both payment events of the paid session');
      const others = all.filter((e) => !e.type.startsWith('payment.')).map((e) => e.type);
      assert.deepEqual(others, [], 'no event of another family was delivered');
    },
  ),
  scenario('webhooks.selection.star', '`*` delivers every event', SELECTION, SELECTION_OPS, async (ctx) => {
    const { ours } = await selectionRun(ctx, ['*'], PAID_AND_CANCELLED);
    assert.deepEqual([...new Set(ours.map((e) => e.type))].sort(), [...PAID_AND_CANCELLED].sort(), 'every event of the two sessions, of both families');
  }),
  {
    id: 'webhooks.selection.full-event-list',
    title: 'Every event name of the full list (and each family wildcard) is accepted in `subscribedEvents`, later additions included',
    source: EVENT_TYPES,
    requires: ['createWebhookConfiguration', 'retrieveWebhookConfiguration', 'deleteWebhookConfiguration'],
    serverOnly: true,
    async run(ctx) {
      const names = [
        'payment.succeeded',
        'payment.failed',
        'payment.refunded',
        'payment.authorized',
        'payment.captured',
        'payment.released',
        'payment.authorization_expired',
        'checkout.session.completed',
        'checkout.session.expired',
        'checkout.session.cancelled',
        'invoice.paid',
        'invoice.payment_failed',
        'invoice.past_due',
        'invoice.expired',
        'invoice.sent',
        'invoice.voided',
        'invoice.refunded',
        'subscription.created',
        'subscription.activated',
        'subscription.renewed',
        'subscription.payment_failed',
        'subscription.past_due',
        'subscription.unpaid',
        'subscription.paused',
        'subscription.resumed',
        'subscription.cancelled',
        'subscription.updated',
        'payout.completed',
        'payout.failed',
        'dispute.opened',
        'dispute.updated',
        'dispute.closed',
        'webhook.test',
      ];
      const families = ['payment.*', 'checkout.session.*', 'checkout.*', 'invoice.*', 'subscription.*', 'payout.*', 'dispute.*', 'webhook.*'];
      const config = await newConfiguration(ctx, { subscribedEvents: [...names, ...families] });
      const got = await call(ctx, 'checkout', 'retrieveWebhookConfiguration', {
        method: 'GET',
        path: `/v1/WebhookConfiguration/${config.id}`,
        key: secretKey(ctx),
      });
      expectStatus(got, 200, 'retrieve the configuration');
      assert.deepEqual(got.json.subscribedEvents, [...names, ...families]);
      const unknown = await ctx.request('checkout', 'createWebhookConfiguration', {
        method: 'POST',
        path: '/v1/WebhookConfiguration',
        key: secretKey(ctx),
        body: { sandboxUrl: 'https://x.till.invalid/h', subscribedEvents: ['payment.exploded'] },
      });
      expectError(unknown, 400, 'invalid_request', 'parameter_invalid');
    },
  },
  scenario(
    'webhooks.selection.sandbox-url',
    'Test-mode events go to the sandbox URL, signed with the sandbox secret (delivery `livemode` false, `url` the sandbox URL)',
    SELECTION,
    [...WATCH, SESSION, 'cancelCheckoutSession'],
    async (ctx) => {
      const body = { enabled: true, liveUrl: liveUrlOf(ctx), subscribedEvents: ['checkout.session.cancelled'] };
      const receiving = await receivingConfiguration(ctx, body);
      const config: any = receiving?.config ?? (await newConfiguration(ctx, body));
      const s = await newSession(ctx);
      expectStatus(await cancelSession(ctx, s.id), 204, 'cancel a test-mode session');
      const d = await waitForDelivery(
        ctx,
        config.id,
        (x) => x.event?.data?.object?.id === s.id && x.attempts.length > 0,
        "the cancelled session's event, attempted",
      );
      assert.equal(d.livemode, false, 'a test-mode delivery');
      assert.equal(d.event.livemode, false, 'a test-mode event');
      assert.equal(d.url, config.sandboxUrl, 'sent to the sandbox URL, not the live one');
      // At the receiver when there is one; else as the delivery log records the request.
      const hook = receiving ? await receivedEvent(receiving.receiver, d.eventId) : loggedRequests(d)[0];
      assert.ok(hook, 'the request is seen');
      assert.ok(signedWith(hook, config.sandboxSecret), 'signed with the sandbox secret');
      assert.ok(!signedWith(hook, config.liveSecret), 'not with the live secret');
    },
  ),
  scenario(
    'webhooks.selection.live-url',
    'Live-mode events go to the live URL, signed with the live secret (needs a live key)',
    SELECTION,
    [...WATCH, SESSION, 'cancelCheckoutSession'],
    async (ctx) => {
      // A live session cancelled unpaid: a live-mode event without any money moving. Live deliveries never
      // reach a receiver on this machine (loopback is for test mode), so what the log shows is checked.
      const live = liveSecretKey(ctx);
      const liveUrl = liveUrlOf(ctx);
      const config = await newConfiguration(ctx, { enabled: true, liveUrl, subscribedEvents: ['checkout.session.cancelled'] });
      const s = await newSession(ctx, {}, live);
      expectStatus(await cancelSession(ctx, s.id, { key: live }), 204, 'cancel a live session');
      const d = await waitForDelivery(ctx, config.id, (x) => x.event?.data?.object?.id === s.id, "the cancelled live session's event", live);
      assert.equal(d.livemode, true, 'a live delivery');
      assert.equal(d.event.livemode, true, 'a live event');
      assert.equal(d.event.data.object.isLive, true, 'a live session');
      assert.equal(d.url, liveUrl, 'sent to the live URL');
      assert.ok(!(await deliveryLog(ctx, config.id)).some((x) => x.eventId === d.eventId), 'not delivered to the sandbox URL');
    },
  ),
  clocked(
    'webhooks.selection.payouts-always-live',
    "Payout events always go to the live URL, whatever the mode: a test payout's event is not delivered to the sandbox URL of a configuration that has a live URL (a configuration without one gets it at its sandbox URL)",
    SELECTION,
    [...WATCH, 'listEvents', ...PAYOUT_CYCLE],
    {
      async run(ctx) {
        const both = await newConfiguration(ctx, {
          liveUrl: `https://conformance-${tag(ctx).toLowerCase()}-live.till.invalid/hooks`,
          enabled: true,
          subscribedEvents: ['payout.*'],
        });
        await withWatch(ctx, ['payout.*'], async (sandboxOnly) => {
          await payAndPayOut(ctx);
          const [event] = await payoutEvents(ctx, 'payout.completed');
          assert.ok(event, 'a payout.completed event was written');
          assert.equal(event.livemode, false, "a test-mode payout's event says livemode false");
          const logged = await waitForLogged(ctx, sandboxOnly, event.id);
          assert.equal(logged.data.object.isLive, false, 'a sandbox payout is not live money');
          const testLog = await deliveryLog(ctx, both.id);
          assert.ok(!testLog.some((d) => d.eventId === event.id), 'the event did not go to the sandbox URL of a configuration with a live URL');
        });
      },
    },
  ),
];
