// The outbox raced by several dispatchers at once: each event becomes its deliveries once, in the
// order of the events (the delivery log lists them so), and each delivery is sent once. PostgreSQL only: PGlite has one connection, so
// nothing races there. The rest of the retries: retries.test.ts.
import { describe, expect, it } from 'vitest';
import { dispatchPendingEvents } from '../../server/domain/webhooks/fan-out.js';
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
});
