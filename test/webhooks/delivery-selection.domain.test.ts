// "Delivery selection" (checkout-billing-api.md, Events, "signed webhooks"): which endpoints an
// event goes to, called directly on the fan-out (server/domain/webhooks/fan-out.ts) and the test
// send (delivery-log.ts) on a database of its own. The fan-out reads an event's type, mode and
// merchant only, so the events here carry a test subject. No request leaves this machine: the
// fan-out sends nothing, and the test sends go to loopback URLs these settings refuse before
// connecting. The HTTP tests of the same rules: delivery.test.ts and test-events.test.ts.
import { describe, expect, it } from 'vitest';
import { deliverySettings } from '../../server/api/kit.js';
import { writeEvent } from '../../server/domain/events/event.service.js';
import { createMerchant } from '../../server/domain/merchants/merchant.service.js';
import { createConfiguration, type NewWebhookConfiguration } from '../../server/domain/webhooks/configuration.service.js';
import { sendTestEvent } from '../../server/domain/webhooks/delivery-log.js';
import { claimDeliveries } from '../../server/domain/webhooks/delivery.js';
import { EVENT_TYPES, type EventType } from '../../server/domain/webhooks/event-types.js';
import { dispatchPendingEvents } from '../../server/domain/webhooks/fan-out.js';
import { ManualClock } from '../../server/shared/clock.js';
import { randomToken } from '../../server/shared/crypto.js';
import { useTestDatabase } from '../support/domain.js';

const clock = new ManualClock('2026-05-04T09:00:00Z');
/** Loopback targets refused: a test send fails at once, before any connection. */
const settings = deliverySettings({ config: { allowLoopbackWebhooks: false, webhookTimeoutMs: 1000 } });
const database = useTestDatabase();

/** A merchant of its own for each test (the outbox is the file's). */
const newMerchant = async () => (await createMerchant(database.db, clock, { name: `Selection ${randomToken(6)}` })).merchant.id;
/** A webhook configuration of the merchant (sandbox URLs may be loopback here, as with TILL_ALLOW_LOOPBACK_WEBHOOKS). */
const endpoint = (merchantId: number, input: NewWebhookConfiguration) =>
  createConfiguration(database.db, clock, { allowLoopback: true }, { merchantId }, input);
/** An event of the merchant in a mode, in the outbox. */
const event = (merchantId: number, type: EventType, livemode = false) =>
  writeEvent(database.db, clock, {
    tenant: { merchantId, livemode },
    type,
    subject: { kind: 'test', id: `test_${randomToken(8)}`, eventType: type, live: livemode, created_at: clock.now() },
  });
/** Fans out the outbox: the new deliveries, each as [configuration id, event type, URL, livemode], sorted. */
async function fanOut(): Promise<Array<[number | null, string, string, boolean]>> {
  const ids = await dispatchPendingEvents(database.db, clock);
  if (ids.length === 0) return [];
  const rows = await database.db
    .selectFrom('webhook_deliveries')
    .select(['configuration_id', 'event_type', 'url', 'livemode'])
    .where('id', 'in', ids)
    .execute();
  return rows.map((r) => [r.configuration_id, r.event_type, r.url, r.livemode] as [number | null, string, string, boolean]).sort();
}

describe('delivery selection', () => {
  it('by default every event is delivered: a configuration without subscribedEvents gets every type', async () => {
    const m = await newMerchant();
    const c = await endpoint(m, { sandboxUrl: 'https://203.0.113.10/all' });
    expect(c.subscribed_events).toEqual(['*']);
    const types = EVENT_TYPES.filter((type) => type !== 'webhook.test'); // sent only to the configuration that asks for it
    for (const type of types) await event(m, type);
    expect(await fanOut()).toEqual(types.map((type) => [c.id, type, 'https://203.0.113.10/all', false]).sort());
  });

  it('subscribedEvents names events; a family is named with a trailing wildcard (payment.*), and * means all', async () => {
    const m = await newMerchant();
    const byName = await endpoint(m, { sandboxUrl: 'https://203.0.113.11/name', subscribedEvents: ['payment.succeeded'] });
    const byFamily = await endpoint(m, { sandboxUrl: 'https://203.0.113.12/family', subscribedEvents: ['checkout.session.*'] });
    const both = await endpoint(m, { sandboxUrl: 'https://203.0.113.13/both', subscribedEvents: ['invoice.*', 'payment.failed'] });
    const all = await endpoint(m, { sandboxUrl: 'https://203.0.113.14/all', subscribedEvents: ['*'] });
    const written: EventType[] = ['payment.succeeded', 'payment.failed', 'checkout.session.completed', 'checkout.session.expired', 'invoice.paid'];
    for (const type of written) await event(m, type);
    const typesOf = (id: number, deliveries: Awaited<ReturnType<typeof fanOut>>) =>
      deliveries
        .filter(([c]) => c === id)
        .map(([, type]) => type)
        .sort();
    const deliveries = await fanOut();
    expect(typesOf(byName.id, deliveries)).toEqual(['payment.succeeded']);
    expect(typesOf(byFamily.id, deliveries)).toEqual(['checkout.session.completed', 'checkout.session.expired']);
    expect(typesOf(both.id, deliveries)).toEqual(['invoice.paid', 'payment.failed']);
    expect(typesOf(all.id, deliveries)).toEqual([...written].sort());
  });

  it('live-mode events go to the live URL signed with the live secret; test-mode events to the sandbox URL signed with the sandbox secret', async () => {
    const m = await newMerchant();
    const c = await endpoint(m, { sandboxUrl: 'https://203.0.113.20/sandbox', liveUrl: 'https://203.0.113.21/live' });
    const sandboxOnly = await endpoint(m, { sandboxUrl: 'https://203.0.113.22/sandbox-only' });
    await event(m, 'payment.succeeded', true);
    await event(m, 'payment.refunded', false);
    expect(await fanOut()).toEqual(
      [
        [c.id, 'payment.succeeded', 'https://203.0.113.21/live', true],
        [c.id, 'payment.refunded', 'https://203.0.113.20/sandbox', false],
        // No live URL: the live event has nowhere to go there.
        [sandboxOnly.id, 'payment.refunded', 'https://203.0.113.22/sandbox-only', false],
      ].sort(),
    );
    // The secret is read when an attempt is made: the one of the delivery's mode.
    const rows = await database.db.selectFrom('webhook_deliveries').select(['id', 'livemode']).where('configuration_id', '=', c.id).execute();
    const claimed = await claimDeliveries(
      database.db,
      clock,
      settings,
      rows.map((r) => r.id),
    );
    expect(claimed.map((x) => [x.delivery.livemode, x.target]).sort()).toEqual([
      [false, { url: 'https://203.0.113.20/sandbox', secret: c.sandbox_secret }],
      [true, { url: 'https://203.0.113.21/live', secret: c.live_secret }],
    ]);
    expect(c.live_secret).not.toBe(c.sandbox_secret);
  });

  it('payouts are always live: a payout event goes to the live URL even from test mode (an endpoint without one, a sandbox merchant’s, gets it at its sandbox URL)', async () => {
    const m = await newMerchant();
    const c = await endpoint(m, { sandboxUrl: 'https://203.0.113.30/sandbox', liveUrl: 'https://203.0.113.31/live' });
    const sandboxOnly = await endpoint(m, { sandboxUrl: 'https://203.0.113.32/sandbox-only' });
    await event(m, 'payout.completed', false);
    await event(m, 'payout.failed', true);
    expect(await fanOut()).toEqual(
      [
        [c.id, 'payout.completed', 'https://203.0.113.31/live', true],
        [c.id, 'payout.failed', 'https://203.0.113.31/live', true],
        [sandboxOnly.id, 'payout.completed', 'https://203.0.113.32/sandbox-only', false],
      ].sort(),
    );
  });

  it('webhook.test ignores the subscription filter and goes to the sandbox URL unless live is requested', async () => {
    const m = await newMerchant();
    const c = await endpoint(m, {
      sandboxUrl: 'https://127.0.0.1:9/sandbox',
      liveUrl: 'https://203.0.113.40/live',
      subscribedEvents: ['invoice.*'],
      enabled: false,
    });
    const other = await endpoint(m, { sandboxUrl: 'https://127.0.0.1:9/other' });
    // On loopback, so that the send is refused before any connection (a live URL cannot be set to one).
    await database.db.updateTable('webhook_configurations').set({ live_url: 'https://127.0.0.1:9/live' }).where('id', '=', c.id).execute();
    const sandbox = await sendTestEvent(database.db, clock, settings, { merchantId: m }, c.id, { eventType: 'payment.succeeded' });
    expect(sandbox).toMatchObject({ url: 'https://127.0.0.1:9/sandbox', livemode: false });
    const live = await sendTestEvent(database.db, clock, settings, { merchantId: m }, c.id, { live: true });
    expect(live).toMatchObject({ url: 'https://127.0.0.1:9/live', livemode: true });
    const sent = await database.db
      .selectFrom('webhook_deliveries')
      .select(['configuration_id', 'event_type', 'event_id'])
      .where('merchant_id', '=', m)
      .orderBy('seq')
      .execute();
    expect(sent).toEqual([
      { configuration_id: c.id, event_type: 'webhook.test', event_id: sandbox.eventId },
      { configuration_id: c.id, event_type: 'webhook.test', event_id: live.eventId },
    ]);
    // Only the configuration that asked gets it: the fan-out never sends a test event on.
    expect((await fanOut()).filter(([id]) => id === other.id)).toEqual([]);
  });

  it("every event is delivered to its merchant's enabled configurations only: none to a disabled one, none to another merchant's", async () => {
    const m = await newMerchant();
    const someoneElse = await newMerchant();
    const enabled = await endpoint(m, { sandboxUrl: 'https://203.0.113.50/on' });
    await endpoint(m, { sandboxUrl: 'https://203.0.113.51/off', enabled: false });
    await endpoint(someoneElse, { sandboxUrl: 'https://203.0.113.52/theirs' });
    await event(m, 'invoice.sent');
    expect(await fanOut()).toEqual([[enabled.id, 'invoice.sent', 'https://203.0.113.50/on', false]]);
  });
});
