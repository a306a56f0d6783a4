// The notification hub `/hubs/notifications`, driven by the official `@microsoft/signalr` client
// (and a raw WebSocket where the wire itself is the point) against the real app on a real database.
// "Hears nothing" is proved with a later change the connection does hear: notifications arrive in
// commit order, so an event that was going to come would have come before it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectHub, type HubClient, rawHub, RS, stopHubClients } from '../support/hub.js';
import { startTestServer, type TestServer } from '../support/server.js';

let t: TestServer;
let skA: string;
beforeAll(async () => {
  // Pings every 200 ms so the test sees them; a small follow limit so it can reach it.
  t = await startTestServer({ hub: { keepAliveMs: 200, maxFollowed: 3 } });
  skA = t.merchantA.keys.test.secret;
});
afterEach(stopHubClients);
afterAll(async () => {
  await t?.close();
});

const future = new Date().getUTCFullYear() + 2;

async function newInvoice(key = skA): Promise<{ id: number; identifier: string }> {
  const res = await t.call('POST', '/v1/invoices', {
    key,
    body: { customer: { email: 'hub@example.com' }, currency: 'USD', lineItems: [{ name: 'Hub', quantity: 1, unitAmount: 20 }] },
  });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

async function voidInvoice(id: number, key = skA, baseUrl = t.url) {
  const res = await fetch(`${baseUrl}/v1/invoices/${id}/void`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
}

/** Pays an invoice as a payer does: a checkout session for it, a test card, confirm. */
async function payInvoice(invoiceId: number) {
  const session = await t.call('POST', '/v1/checkout-sessions', { key: skA, body: { mode: 'embedded', paymentType: 'oneTime', invoiceId } });
  expect(session.status, session.text).toBe(201);
  const client = { key: t.merchantA.keys.test.publishable, clientSecret: session.json.clientSecret };
  const pm = await t.call('POST', `/v1/checkout-sessions/${session.json.id}/tokenize`, {
    ...client,
    body: { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: future, cvc: '123' },
  });
  const confirmed = await t.call('POST', `/v1/checkout-sessions/${session.json.id}/confirm`, { ...client, body: { paymentMethodId: pm.json.id } });
  expect(confirmed.status, confirmed.text).toBe(200);
}

/** Voids `control` (an invoice `client` hears) and checks that its event is all the client heard. */
async function heardOnly(client: HubClient, control: { id: number }, key = skA) {
  await voidInvoice(control.id, key);
  await client.next(control.id);
  expect(client.heard).toEqual([{ invoiceId: control.id, status: 'Cancelled' }]);
}

describe('negotiate', () => {
  const negotiate = (query = '?negotiateVersion=1', headers: Record<string, string> = {}) =>
    fetch(`${t.url}/hubs/notifications/negotiate${query}`, { method: 'POST', headers });

  it('answers version 1 with a connection id and token and the WebSockets transport; version 0 with the id alone', async () => {
    const res = await negotiate('?negotiateVersion=1', { authorization: `Bearer ${skA}` });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({
      negotiateVersion: 1,
      connectionId: expect.any(String),
      connectionToken: expect.any(String),
      availableTransports: [{ transport: 'WebSockets', transferFormats: ['Text'] }],
    });
    expect(body.connectionToken).not.toBe(body.connectionId);
    const v0 = await (await negotiate('')).json();
    expect(v0).toEqual({
      negotiateVersion: 0,
      connectionId: expect.any(String),
      availableTransports: [{ transport: 'WebSockets', transferFormats: ['Text'] }],
    });
  });

  it('refuses an unknown key, a publishable key and a malformed Authorization with 401 and a JSON error', async () => {
    for (const authorization of ['Bearer sk_test_NotARealKeyAtAll0000000000', `Bearer ${t.merchantA.keys.test.publishable}`, `Basic ${skA}`]) {
      const res = await negotiate('?negotiateVersion=1', { authorization });
      expect(res.status, authorization).toBe(401);
      expect((await res.json()).error).toMatchObject({ type: 'authentication', code: 'invalid_api_key', message: expect.any(String) });
    }
  });

  it('answers CORS for any origin with credentials, and preflights with 204', async () => {
    const origin = 'https://shop.example';
    const preflight = await fetch(`${t.url}/hubs/notifications/negotiate?negotiateVersion=1`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, x-signalr-user-agent' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type, X-Requested-With, X-SignalR-User-Agent');
    const res = await negotiate('?negotiateVersion=1', { origin, authorization: `Bearer ${t.merchantA.keys.test.publishable}` });
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBe(origin);
  });

  it('refuses a secret key sent from a browser (with an Origin) at negotiate and at the upgrade, with 403 secret_key_in_browser', async () => {
    const origin = 'https://shop.example';
    const res = await negotiate('?negotiateVersion=1', { origin, authorization: `Bearer ${skA}` });
    expect(res.status).toBe(403);
    expect((await res.json()).error.code).toBe('secret_key_in_browser');
    expect(res.headers.get('access-control-allow-origin')).toBe(origin);
    await expect(rawHub(t.url, `?access_token=${skA}`, { origin })).rejects.toMatchObject({
      status: 403,
      body: expect.stringContaining('secret_key_in_browser'),
    });
    expect((await negotiate('?negotiateVersion=1', { origin })).status).toBe(200);
  });

  it('answers a plain GET of the hub with 400: it is a WebSocket endpoint', async () => {
    const res = await fetch(`${t.url}/hubs/notifications`);
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toContain('WebSocket');
  });
});

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
    const invoice = await newInvoice();
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

describe('who hears what', () => {
  it('a merchant connection hears its invoice paid (Paid) and voided (Cancelled), by numeric id', async () => {
    const client = await connectHub(t.url, { key: skA });
    const paid = await newInvoice();
    await payInvoice(paid.id);
    expect(await client.next(paid.id)).toEqual({ invoiceId: paid.id, status: 'Paid' });
    const voided = await newInvoice();
    await voidInvoice(voided.id);
    expect(await client.next(voided.id)).toEqual({ invoiceId: voided.id, status: 'Cancelled' });
  });

  it('hears a Commerce invoice through its life: Sent, PartiallyPaid, Paid by payinvoice; Overdue, then Expired on the sandbox clock', async () => {
    const m = await t.newMerchant('Hub Commerce');
    const key = m.keys.test.secret;
    const client = await connectHub(t.url, { key });
    const create = async (extra: Record<string, unknown> = {}) => {
      const res = await t.call('POST', '/v1/invoice', {
        apiKey: key,
        body: { currencyCode: 'USD', sourceInfo: { email: 'hub.commerce@example.com' }, items: [{ name: 'Hub', unitCost: 300, quantity: 1 }], ...extra },
      });
      expect(res.status, res.text).toBe(201);
      return res.json as { id: number };
    };
    const card = { name: 'Ana Lopez', cardNumber: '4242424242424242', expiryDate: `12/${future % 100}`, cvv: '123' };
    const pay = (id: number, extra: Record<string, unknown> = {}) =>
      t.call('POST', '/api/payment/payinvoice', { apiKey: key, body: { invoiceId: id, paymentOptionId: 1, card, ...extra } });
    const statuses = (id: number) => expect.poll(() => client.heard.filter((e) => e.invoiceId === id).map((e) => e.status), { timeout: 5_000 });
    const paid = await create();
    expect((await t.call('POST', `/v1/invoice/${paid.id}/send`, { apiKey: key })).status).toBe(200);
    await statuses(paid.id).toEqual(['Sent']);
    expect((await pay(paid.id, { amount: 100 })).json.isSuccess).toBe(true);
    await statuses(paid.id).toEqual(['Sent', 'PartiallyPaid']);
    expect((await pay(paid.id)).json.isSuccess).toBe(true);
    await statuses(paid.id).toEqual(['Sent', 'PartiallyPaid', 'Paid']);
    const hour = 3_600_000;
    const late = await create({ paymentDueDate: new Date(Date.now() + hour).toISOString(), validTo: new Date(Date.now() + 24 * hour).toISOString() });
    const advance = (seconds: number) => t.call('POST', '/v1/test-helpers/clock/advance', { key, body: { seconds } });
    expect((await advance(2 * 3600)).status).toBe(200);
    await statuses(late.id).toEqual(['Overdue']);
    expect((await advance(24 * 3600)).status).toBe(200);
    await statuses(late.id).toEqual(['Overdue', 'Expired']);
    expect(client.heard.map((e) => e.status)).toEqual(['Sent', 'PartiallyPaid', 'Paid', 'Overdue', 'Expired']);
  });

  it('a restricted key whose role reads invoices opens a merchant connection; one without invoice.read gets 403 naming it; none may come from a browser', async () => {
    const restricted = async (scopes: string[]) => {
      const role = await t.call('POST', '/v1/role', { apiKey: skA, body: { name: `Hub ${scopes.join(' ')} ${Date.now()}`, scopes } });
      expect(role.status, role.text).toBe(201);
      const made = await t.call('POST', `/v1/role/${role.json.id}/keys`, { apiKey: skA, body: {} });
      expect(made.status, made.text).toBe(201);
      return made.json.key as string;
    };
    const reader = await connectHub(t.url, { key: await restricted(['invoice.read']) });
    const voided = await newInvoice();
    await voidInvoice(voided.id);
    expect(await reader.next(voided.id)).toEqual({ invoiceId: voided.id, status: 'Cancelled' });
    const other = await restricted(['account.read']);
    const refused = await fetch(`${t.url}/hubs/notifications/negotiate?negotiateVersion=1`, { method: 'POST', headers: { authorization: `Bearer ${other}` } });
    expect(refused.status).toBe(403);
    expect((await refused.json()).error).toMatchObject({ code: 'permission_denied', message: expect.stringContaining('`invoice.read`') });
    const fromBrowser = await fetch(`${t.url}/hubs/notifications/negotiate?negotiateVersion=1`, {
      method: 'POST',
      headers: { authorization: `Bearer ${other}`, origin: 'https://shop.example.com' },
    });
    expect(fromBrowser.status).toBe(403);
    expect((await fromBrowser.json()).error.code).toBe('secret_key_in_browser');
  });

  it("merchant B's connection hears nothing of merchant A's invoices", async () => {
    const skB = t.merchantB.keys.test.secret;
    const b = await connectHub(t.url, { key: skB });
    const a = await connectHub(t.url, { key: skA });
    const theirs = await newInvoice();
    await payInvoice(theirs.id);
    await a.next(theirs.id);
    await heardOnly(b, await newInvoice(skB), skB);
  });

  it('test and live mode are apart: each connection hears its own mode only', async () => {
    const skLive = t.merchantA.keys.live.secret;
    const test = await connectHub(t.url, { key: skA });
    const live = await connectHub(t.url, { key: skLive });
    const liveInvoice = await newInvoice(skLive);
    await voidInvoice(liveInvoice.id, skLive);
    expect(await live.next(liveInvoice.id)).toEqual({ invoiceId: liveInvoice.id, status: 'Cancelled' });
    await heardOnly(test, await newInvoice());
    expect(live.heard).toEqual([{ invoiceId: liveInvoice.id, status: 'Cancelled' }]);
  });

  it('a public connection hears only the invoices it subscribed to, by identifier, until it unsubscribes', async () => {
    const client = await connectHub(t.url);
    const [followed, other, later] = [await newInvoice(), await newInvoice(), await newInvoice()];
    await voidInvoice(other.id);
    expect(await client.connection.invoke('SubscribeToInvoice', followed.identifier.toUpperCase())).toEqual({ invoiceId: followed.id, status: 'Pending' });
    await heardOnly(client, followed);
    await client.connection.invoke('SubscribeToInvoice', later.identifier);
    await client.connection.invoke('UnsubscribeFromInvoice', later.identifier);
    await voidInvoice(later.id);
    const marker = await newInvoice(t.merchantB.keys.test.secret);
    await client.connection.invoke('SubscribeToInvoice', marker.identifier);
    await voidInvoice(marker.id, t.merchantB.keys.test.secret);
    await client.next(marker.id);
    expect(client.heard.map((e) => e.invoiceId)).toEqual([followed.id, marker.id]);
  });

  it('an unknown or malformed identifier answers "not found"; a connection follows a limited number of invoices', async () => {
    const client = await connectHub(t.url);
    for (const identifier of ['00000000-0000-4000-8000-000000000000', 'INV-1', '']) {
      await expect(client.connection.invoke('SubscribeToInvoice', identifier)).rejects.toThrow(/not found/);
    }
    await expect(client.connection.invoke('SubscribeToInvoice')).rejects.toThrow(/takes one argument/);
    const invoices = [await newInvoice(), await newInvoice(), await newInvoice(), await newInvoice()];
    for (const invoice of invoices.slice(0, 3)) await client.connection.invoke('SubscribeToInvoice', invoice.identifier);
    await client.connection.invoke('SubscribeToInvoice', invoices[0]!.identifier);
    await expect(client.connection.invoke('SubscribeToInvoice', invoices[3]!.identifier)).rejects.toThrow(/at most 3 invoices/);
    await client.connection.invoke('UnsubscribeFromInvoice', invoices[0]!.identifier);
    await client.connection.invoke('SubscribeToInvoice', invoices[3]!.identifier);
  });

  it('a change that rolls back, or an update that keeps the status, announces nothing', async () => {
    const client = await connectHub(t.url, { key: skA });
    const invoice = await newInvoice();
    const rolledBack = t.database.db.transaction().execute(async (trx) => {
      await trx.updateTable('invoices').set({ status: 'paid' }).where('id', '=', invoice.id).execute();
      throw new Error('roll back');
    });
    await expect(rolledBack).rejects.toThrow('roll back');
    await t.database.db.updateTable('invoices').set({ status: 'pending' }).where('id', '=', invoice.id).execute();
    await heardOnly(client, invoice);
  });

  it('a client may connect its WebSocket directly, without negotiate', async () => {
    const client = await connectHub(t.url, { key: skA, skipNegotiation: true });
    const invoice = await newInvoice();
    await voidInvoice(invoice.id);
    expect(await client.next(invoice.id)).toEqual({ invoiceId: invoice.id, status: 'Cancelled' });
  });
});

describe('several processes', () => {
  it('a change made through one server reaches clients connected to another', async () => {
    const sibling = await t.startSibling();
    const merchant = await connectHub(sibling.url, { key: skA });
    const invoice = await newInvoice();
    const visitor = await connectHub(sibling.url);
    await visitor.connection.invoke('SubscribeToInvoice', invoice.identifier);
    await payInvoice(invoice.id);
    expect(await merchant.next(invoice.id)).toEqual({ invoiceId: invoice.id, status: 'Paid' });
    expect(await visitor.next(invoice.id)).toEqual({ invoiceId: invoice.id, status: 'Paid' });
    await stopHubClients();
    await sibling.close();
  });
});
