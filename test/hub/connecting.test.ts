// Connecting to the notification hub `/hubs/notifications`, with the official `@microsoft/signalr`
// client and a raw WebSocket where the wire itself is the point: refusals at the upgrade, connection
// tokens, and the JSON hub protocol (handshake, pings, completions, errors).
import { afterEach, describe, expect, it } from 'vitest';
import { connectHub, newInvoice, rawHub, RS, stopHubClients } from '../support/hub.js';
import { useTestServer } from '../support/server.js';

// Pings every 200 ms so the test sees them.
const t = useTestServer({ hub: { keepAliveMs: 200 } });
afterEach(stopHubClients);

describe('connecting', () => {
  it('refuses a bad key at negotiate and at the WebSocket upgrade (401)', async () => {
    const key = 'sk_test_NotARealKeyAtAll0000000000';
    await expect(connectHub(t.url, { key })).rejects.toThrow();
    await expect(connectHub(t.url, { key, skipNegotiation: true })).rejects.toThrow();
    await expect(rawHub(t.url, `?access_token=${key}`)).rejects.toMatchObject({ status: 401, body: expect.stringContaining('invalid_api_key') });
    await expect(rawHub(t.url, '', { authorization: `Bearer ${t.merchantA.keys.live.publishable}` })).rejects.toMatchObject({ status: 401 });
  });

  it('answers 404 for an id that cannot be a connection token and 409 for one already connected', async () => {
    await expect(rawHub(t.url, '?id=not-a-token')).rejects.toMatchObject({ status: 404 });
    const { connectionToken } = await (await fetch(`${t.url}/hubs/notifications/negotiate?negotiateVersion=1`, { method: 'POST' })).json();
    const first = await rawHub(t.url, `?id=${connectionToken}`);
    await expect(rawHub(t.url, `?id=${connectionToken}`)).rejects.toMatchObject({ status: 409 });
    first.socket.close();
  });

  it('speaks the JSON hub protocol: handshake {}, pings, completions with results or errors', async () => {
    const hub = await rawHub(t.url);
    hub.send({ protocol: 'json', version: 1 });
    expect(await hub.next(() => true)).toEqual({});
    await hub.next((m) => m.type === 6);
    hub.send({ type: 1, invocationId: '1', target: 'NoSuchMethod', arguments: [] });
    expect(await hub.next((m) => m.invocationId === '1')).toEqual({
      type: 3,
      invocationId: '1',
      error: expect.stringContaining("Unknown hub method 'NoSuchMethod'"),
    });
    const invoice = await newInvoice(t);
    hub.send({ type: 1, invocationId: '2', target: 'SubscribeToInvoice', arguments: [invoice.identifier] });
    expect(await hub.next((m) => m.invocationId === '2')).toEqual({ type: 3, invocationId: '2', result: { invoiceId: invoice.id, status: 'Pending' } });
    hub.send({ type: 1, invocationId: '3', target: 'UnsubscribeFromInvoice', arguments: [invoice.identifier] });
    expect(await hub.next((m) => m.invocationId === '3')).toEqual({ type: 3, invocationId: '3' });
    hub.send({ type: 4, invocationId: '4', target: 'SubscribeToInvoice', arguments: [invoice.identifier] });
    expect(await hub.next((m) => m.invocationId === '4')).toMatchObject({ type: 3, error: expect.stringContaining('not a streaming method') });
    hub.socket.close();
  });

  it('answers an unsupported protocol with a handshake error and closes; closes with an error on a malformed message', async () => {
    const pack = await rawHub(t.url);
    pack.send({ protocol: 'messagepack', version: 1 });
    expect(await pack.next(() => true)).toEqual({ error: "Requested protocol 'messagepack' is not available." });
    await pack.closed;
    const json = await rawHub(t.url);
    json.send(`{"protocol":"json","version":1}${RS}{"type":1,"target":5}${RS}`);
    expect(await json.next((m) => m.type === 7)).toEqual({ type: 7, error: expect.stringContaining('target') });
    await json.closed;
  });
});
