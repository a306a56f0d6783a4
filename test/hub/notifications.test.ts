// LISTEN/NOTIFY under the notification hub (`TillDatabase.listen`): a notification arrives once its
// transaction commits and never for one that rolls back, on PGlite and on PostgreSQL; on
// PostgreSQL a listener whose connection is lost listens again, and the hub then tells its
// clients to reconnect and re-read, since what changed meanwhile was not heard.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Unlisten } from '../../server/db/notifications.js';
import { randomToken } from '../../server/shared/crypto.js';
import { connectHub, stopHubClients } from '../support/hub.js';
import { startTestServer, type TestServer, usingPostgres } from '../support/server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

/** A listener on a channel of its own (test files share the PostgreSQL database). */
async function listener() {
  const channel = `till_test_${randomToken(10).toLowerCase()}`;
  const heard: string[] = [];
  let restored = 0;
  const wakers = new Set<() => void>();
  const unlisten: Unlisten = await t.database.listen(channel, {
    notification: (payload) => {
      heard.push(payload);
      for (const wake of wakers) wake();
    },
    restored: () => void restored++,
  });
  /** Resolves once `payload` was heard; fails after a few seconds. */
  const hears = (payload: string) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${payload} was not heard`)), 5_000);
      const check = () => {
        if (!heard.includes(payload)) return;
        clearTimeout(timer);
        wakers.delete(check);
        resolve();
      };
      wakers.add(check);
      check();
    });
  const notify = (payload: string) => sql`SELECT pg_notify(${channel}, ${payload})`.execute(t.database.db);
  return { channel, heard, hears, notify, unlisten, restoredCount: () => restored };
}

describe('TillDatabase.listen', () => {
  it('hears a NOTIFY sent inside a transaction once it commits, and never one that rolled back', async () => {
    const { channel, heard, hears, unlisten } = await listener();
    const rolledBack = t.database.db.transaction().execute(async (trx) => {
      await sql`SELECT pg_notify(${channel}, 'rolled back')`.execute(trx);
      throw new Error('roll back');
    });
    await expect(rolledBack).rejects.toThrow('roll back');
    let heardBeforeCommit: string[] | undefined;
    await t.database.db.transaction().execute(async (trx) => {
      await sql`SELECT pg_notify(${channel}, 'committed')`.execute(trx);
      heardBeforeCommit = [...heard];
    });
    await hears('committed');
    expect(heardBeforeCommit).toEqual([]);
    // Notifications arrive in commit order: the rolled-back one would have come first.
    expect(heard).toEqual(['committed']);
    await unlisten();
  });

  it('stops hearing after unlisten', async () => {
    const first = await listener();
    const second = await listener();
    await first.unlisten();
    await first.notify('gone');
    await sql`SELECT pg_notify(${second.channel}, 'marker')`.execute(t.database.db);
    await second.hears('marker');
    expect(first.heard).toEqual([]);
    await second.unlisten();
  });

  it.runIf(usingPostgres)('listens again after its connection is lost, and says so', async () => {
    const { channel, hears, notify, unlisten, restoredCount } = await listener();
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

describe.runIf(usingPostgres)('the hub after its listener was lost', () => {
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
