// The hub over every transport the official client falls back to: WebSockets, Server-Sent Events
// and long polling, each with `@microsoft/signalr` forced onto it. On each: a merchant connection
// (its key in `x-api-key` or as the access token) hears an invoice change, a public one follows an
// invoice by identifier, and a revoked key's connection is closed (keys are checked every 100 ms here).
import { HttpTransportType } from '@microsoft/signalr';
import { afterEach, describe, expect, it } from 'vitest';
import { connectHub, newInvoice, stopHubClients, voidInvoice } from '../support/hub.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer({ hub: { keyCheckMs: 100, pollTimeoutMs: 1_000 } });
const skA = () => t.merchantA.keys.test.secret;
afterEach(stopHubClients);

/** A restricted key of merchant A whose role reads invoices, and how to revoke it. */
async function revocableKey() {
  const role = await t.call('POST', '/v1/role', {
    apiKey: skA(),
    body: { name: `Hub reader ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`, scopes: ['invoice.read'] },
  });
  expect(role.status, role.text).toBe(201);
  const made = await t.call('POST', `/v1/role/${role.json.id}/keys`, { apiKey: skA(), body: {} });
  expect(made.status, made.text).toBe(201);
  const revoke = async () => expect((await t.call('DELETE', `/v1/role/${role.json.id}/keys/${made.json.id}`, { apiKey: skA() })).status).toBe(204);
  return { key: made.json.key as string, revoke };
}

const transports = [
  ['WebSockets', HttpTransportType.WebSockets],
  ['ServerSentEvents', HttpTransportType.ServerSentEvents],
  ['LongPolling', HttpTransportType.LongPolling],
] as const;

describe.each(transports)('over %s', (_name, transport) => {
  it('a merchant connection with its key in x-api-key hears its invoice voided; one with the access token too', async () => {
    const viaHeader = await connectHub(t.url, { transport, headers: { 'x-api-key': skA() } });
    const viaToken = await connectHub(t.url, { transport, key: skA() });
    const invoice = await newInvoice(t);
    await voidInvoice(t, invoice.id);
    expect(await viaHeader.next(invoice.id)).toEqual({ invoiceId: invoice.id, status: 'Cancelled' });
    expect(await viaToken.next(invoice.id)).toEqual({ invoiceId: invoice.id, status: 'Cancelled' });
  });

  it('a public connection subscribes to an invoice (the completion comes back over the transport) and hears it', async () => {
    const client = await connectHub(t.url, { transport });
    const invoice = await newInvoice(t);
    expect(await client.connection.invoke('SubscribeToInvoice', invoice.identifier)).toEqual({ invoiceId: invoice.id, status: 'Pending' });
    await voidInvoice(t, invoice.id);
    expect(await client.next(invoice.id)).toEqual({ invoiceId: invoice.id, status: 'Cancelled' });
  });

  it('closes a connection whose key is revoked, saying why', async () => {
    const { key, revoke } = await revocableKey();
    const client = await connectHub(t.url, { transport, key });
    const closed = new Promise<Error | undefined>((resolve) => client.connection.onclose(resolve));
    await revoke();
    expect((await closed)?.message).toContain('was revoked');
    await expect(connectHub(t.url, { transport, key })).rejects.toThrow();
  });
});

describe('the HTTP transports', () => {
  const hub = `/hubs/notifications`;
  const negotiate = async () => (await (await fetch(`${t.url}${hub}/negotiate?negotiateVersion=1`, { method: 'POST' })).json()).connectionToken as string;

  it('answer 400 without an id, 404 for a token this server did not negotiate, and a long poll 200 empty after the poll timeout', async () => {
    expect((await fetch(`${t.url}${hub}`, { method: 'POST', body: '{}' })).status).toBe(400);
    const unknown = 'A'.repeat(43);
    expect((await fetch(`${t.url}${hub}?id=${unknown}`)).status).toBe(404);
    expect((await fetch(`${t.url}${hub}?id=${unknown}`, { method: 'POST', body: '{}' })).status).toBe(404);
    const id = await negotiate();
    const first = await fetch(`${t.url}${hub}?id=${id}`);
    expect([first.status, await first.text()]).toEqual([200, '']);
    const started = Date.now();
    const timedOut = await fetch(`${t.url}${hub}?id=${id}`);
    expect([timedOut.status, await timedOut.text()]).toEqual([200, '']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect((await fetch(`${t.url}${hub}?id=${id}`, { method: 'DELETE' })).status).toBe(202);
    expect((await fetch(`${t.url}${hub}?id=${id}`)).status).toBe(404);
  });
});
