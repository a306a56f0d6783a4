// LISTEN/NOTIFY under the notification hub when its connection is lost (PostgreSQL: PGlite has no
// connection to lose): the listener listens again and says so, and the hub then tells its clients to
// reconnect and re-read, since what changed meanwhile was not heard. The rest: notifications.test.ts.
import { describe, expect, it } from 'vitest';
import { connectHub, listener, stopHubClients } from '../support/hub.js';
import { startTestServer, useTestServer } from '../support/server.js';

const t = useTestServer();

describe('TillDatabase.listen', () => {
  it('listens again after its connection is lost, and says so', async () => {
    const { channel, hears, notify, unlisten, restoredCount } = await listener(t.database);
    const { rows } = await t.database.sql.query(
      "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = 'till-listener' AND query = $1",
      [`LISTEN ${channel}`],
    );
    expect(rows).toEqual([{ ended: true }]);
    await expect.poll(restoredCount, { timeout: 5_000 }).toBe(1);
    await notify('after');
    await hears('after');
    await unlisten();
  });
});

describe('the hub after its listener was lost', () => {
  it('closes its connections with allowReconnect; reconnected clients hear changes again', async () => {
    // A database of its own, so that the listeners ended here are this server's only.
    const own = await startTestServer();
    try {
      const key = own.merchantA.keys.test.secret;
      const client = await connectHub(own.url, { key, reconnect: [0, 100, 500, 1000, 2000] });
      const reconnected = new Promise<void>((resolve) => client.connection.onreconnected(() => resolve()));
      await own.database.sql.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'till-listener'",
      );
      await reconnected;
      const invoice = await own.call('POST', '/v1/invoices', {
        key,
        body: { customer: { email: 'hub@example.com' }, currency: 'USD', lineItems: [{ name: 'Hub', quantity: 1, unitAmount: 5 }] },
      });
      await own.call('POST', `/v1/invoices/${invoice.json.id}/void`, { key });
      expect(await client.next(invoice.json.id)).toEqual({ invoiceId: invoice.json.id, status: 'Cancelled' });
    } finally {
      await stopHubClients();
      await own.close();
    }
  });
});
