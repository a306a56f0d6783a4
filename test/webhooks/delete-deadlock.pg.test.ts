// A configuration deleted while other work holds one of its deliveries and then wants the
// configuration (the attempt pipeline records deliveries in an order of its own): PostgreSQL breaks
// the deadlock by ending the delete's transaction, and the delete runs again rather than answering
// 500. The other side here is a second session that locks a delivery, waits until the delete waits
// for it, then asks for the configuration's row.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { useTestServer } from '../support/server.js';

const t = useTestServer();
let other: pg.Client;
beforeAll(async () => {
  other = new pg.Client({ connectionString: t.databaseUrl });
  await other.connect();
});
afterAll(async () => {
  await other?.end();
});

/** Backends of this database other than `other`'s waiting on a lock (the snapshot cleared: `other` asks inside its transaction). */
async function waiting(): Promise<number> {
  await other.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await other.query(
    `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`,
  );
  return rows[0].n as number;
}

describe('deleting a webhook configuration', () => {
  it('runs again when PostgreSQL ends it to break a deadlock, and answers 200', async () => {
    const m = await t.newMerchant();
    const key = m.keys.test.secret;
    const created = await t.call('POST', '/v1/WebhookConfiguration', { key, body: { sandboxUrl: 'https://hooks.example.org/till' } });
    expect(created.status, created.text).toBe(201);
    const configurationId = created.json.id as number;
    await other.query(
      `INSERT INTO events (id, merchant_id, livemode, type, api_version, data, created_at, dispatched_at) VALUES ('evt_deadlock_test_0000000001', $1, false, 'payment.succeeded', '2026-11-01', '{}', now(), now())`,
      [m.merchantId],
    );
    await other.query(
      `INSERT INTO webhook_deliveries (id, merchant_id, livemode, configuration_id, event_id, event_type, url, status, next_attempt_at, created_at, updated_at)
       VALUES ('whd_deadlock_test_00000001', $1, false, $2, 'evt_deadlock_test_0000000001', 'payment.succeeded', 'https://hooks.example.org/till', 'failed', now() + interval '1 day', now(), now())`,
      [m.merchantId, configurationId],
    );

    await other.query('BEGIN');
    await other.query(`SELECT id FROM webhook_deliveries WHERE id = 'whd_deadlock_test_00000001' FOR UPDATE`);
    const deleting = t.call('DELETE', `/v1/WebhookConfiguration/${configurationId}`, { key });
    // The delete holds the configuration and waits for the delivery: now this session asks for the configuration.
    await vi.waitFor(async () => expect(await waiting()).toBe(1), { timeout: 10_000, interval: 50 });
    const locked = other.query(`SELECT id FROM webhook_configurations WHERE id = $1 FOR UPDATE`, [configurationId]);
    // The delete waited first, so its deadlock check (after deadlock_timeout) finds the cycle and ends it;
    // this session then gets the row, and once it commits the delete runs again.
    await locked;
    await other.query('COMMIT');

    const deleted = await deleting;
    expect(deleted.status, deleted.text).toBe(200);
    expect(deleted.json).toMatchObject({ id: configurationId, deleted: true });
    expect((await t.call('GET', `/v1/WebhookConfiguration/${configurationId}`, { key })).status).toBe(404);
    expect((await other.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE configuration_id = $1`, [configurationId])).rows[0].n).toBe(0);
  });
});
