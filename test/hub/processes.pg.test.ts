// The notification hub across real processes on one PostgreSQL database: a second Till started
// as `npm start` does (its own process, its own LISTEN connection). A change made through either
// reaches clients connected to the other. PostgreSQL only: PGlite admits one process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHub, stopHubClients } from '../support/hub.js';
import { mustListen, useProcesses } from '../support/processes.js';
import { useTestServer } from '../support/server.js';

// A database of its own: the second process runs the background jobs.
const t = useTestServer();
const processes = useProcesses();
let childUrl: string;

describe('two Till processes on one PostgreSQL database', () => {
  beforeAll(async () => {
    const env = { ...process.env, DATABASE_URL: t.databaseUrl, PORT: '0', TILL_DATA_DIR: await processes.tempDir(), LOG_LEVEL: 'silent', NODE_ENV: 'test' };
    childUrl = (await mustListen(processes.spawnTill(env))).url;
  }, 90_000);

  afterAll(() => stopHubClients());

  const key = () => t.merchantA.keys.test.secret;

  async function invoice(baseUrl: string): Promise<{ id: number; identifier: string }> {
    const res = await fetch(`${baseUrl}/v1/invoices`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ customer: { email: 'two@example.com' }, currency: 'USD', lineItems: [{ name: 'Two', quantity: 1, unitAmount: 20 }] }),
    });
    expect(res.status).toBe(201);
    return res.json();
  }

  const voidAt = async (baseUrl: string, id: number) =>
    expect((await fetch(`${baseUrl}/v1/invoices/${id}/void`, { method: 'POST', headers: { authorization: `Bearer ${key()}` } })).status).toBe(200);

  it('a change made in one process reaches merchant and public clients connected to the other, both ways', async () => {
    const onChild = await connectHub(childUrl, { key: key() });
    const onTest = await connectHub(t.url, { key: key() });
    const first = await invoice(t.url);
    const visitor = await connectHub(childUrl);
    await visitor.connection.invoke('SubscribeToInvoice', first.identifier);
    await voidAt(t.url, first.id);
    expect(await onChild.next(first.id)).toEqual({ invoiceId: first.id, status: 'Cancelled' });
    expect(await visitor.next(first.id)).toEqual({ invoiceId: first.id, status: 'Cancelled' });
    const second = await invoice(childUrl);
    await voidAt(childUrl, second.id);
    expect(await onTest.next(second.id)).toEqual({ invoiceId: second.id, status: 'Cancelled' });
  });
});
