// The outbox raced by several dispatchers at once: each event becomes its deliveries once, in the
// order of the events (the delivery log lists them so), and each delivery is sent once. PostgreSQL only: PGlite has one connection, so
// nothing races there. The rest of the retries: retries.test.ts.
import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { findEnabledConfigurations } from '../../server/domain/webhooks/configuration.repository.js';
import { insertDeliveries } from '../../server/domain/webhooks/delivery.repository.js';
import { dispatchPendingEvents, newDeliveryId } from '../../server/domain/webhooks/fan-out.js';
import { createTestSession } from '../support/server.js';
import { useWebhookServer } from '../support/webhooks.js';

const { t, clock, receiver, deliver, configure } = useWebhookServer();

describe('retries, dead-letter and re-send', () => {
  it('two dispatchers racing on the outbox create each delivery once', async () => {
    const m = await t.newMerchant();
    const r = await receiver();
    const c = await configure(m, { sandboxUrl: r.url });
    for (let i = 0; i < 8; i++) {
      const s = await createTestSession(t, m);
      await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: m.keys.test.secret });
    }
    await Promise.all([
      dispatchPendingEvents(t.database.db, clock, 3),
      dispatchPendingEvents(t.database.db, clock, 3),
      dispatchPendingEvents(t.database.db, clock, 3),
    ]);
    await Promise.all([deliver(), deliver()]);
    const rows = await t.database.db.selectFrom('webhook_deliveries').select('event_id').where('configuration_id', '=', c.json.id).execute();
    expect(rows).toHaveLength(8);
    expect(new Set(rows.map((x) => x.event_id)).size).toBe(8);
    expect(new Set(r.received.map((h) => h.json.id)).size).toBe(8);
    expect(r.received).toHaveLength(8);
  });

  it('racing dispatchers number the deliveries in the order of their events, as the delivery log lists them', async () => {
    const m = await t.newMerchant();
    const c = await configure(m, { sandboxUrl: (await receiver()).url });
    for (let i = 0; i < 12; i++) {
      const s = await createTestSession(t, m);
      await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: m.keys.test.secret });
    }
    await Promise.all(Array.from({ length: 4 }, () => dispatchPendingEvents(t.database.db, clock, 1)));
    const db = t.database.db;
    const deliveries = await db.selectFrom('webhook_deliveries').select('event_id').where('configuration_id', '=', c.json.id).orderBy('seq').execute();
    const events = await db
      .selectFrom('events')
      .select('id')
      .where(
        'id',
        'in',
        deliveries.map((d) => d.event_id),
      )
      .orderBy('seq')
      .execute();
    expect(deliveries).toHaveLength(12);
    expect(deliveries.map((d) => d.event_id)).toEqual(events.map((e) => e.id));
  });
  it('a configuration deleted while a fan-out has read it waits for the fan-out, then takes its new deliveries along', async () => {
    const m = await t.newMerchant();
    const c = await configure(m, { sandboxUrl: (await receiver()).url });
    const s = await createTestSession(t, m);
    await t.call('POST', `/v1/checkout-sessions/${s.id}/cancel`, { key: m.keys.test.secret });
    const event = await t.database.db.selectFrom('events').select(['id', 'type']).where('merchant_id', '=', m.merchantId).executeTakeFirstOrThrow();
    let deleted = false;
    let deleting: Promise<unknown> | undefined;
    // A fan-out's transaction, as dispatchBatch runs it: the configurations read, a delete arriving, then the deliveries written.
    await t.database.db.transaction().execute(async (trx) => {
      expect((await findEnabledConfigurations(trx, [m.merchantId])).map((x) => x.id)).toEqual([c.json.id]);
      deleting = t.call('DELETE', `/v1/WebhookConfiguration/${c.json.id}`, { key: m.keys.test.secret }).then((res) => ((deleted = true), res));
      await sleep(300);
      expect(deleted).toBe(false);
      const now = new Date();
      await insertDeliveries(trx, [
        {
          id: newDeliveryId(),
          merchant_id: m.merchantId,
          livemode: false,
          event_id: event.id,
          event_type: event.type,
          status: 'pending',
          next_attempt_at: now,
          created_at: now,
          updated_at: now,
          configuration_id: c.json.id,
          session_id: null,
          url: 'https://example.com/hook',
        },
      ]);
    });
    expect(((await deleting) as { json: unknown }).json).toEqual({ id: c.json.id, object: 'webhook_configuration', deleted: true });
    expect(await t.database.db.selectFrom('webhook_deliveries').select('id').where('configuration_id', '=', c.json.id).execute()).toEqual([]);
  });
});
