// Who hears what on the notification hub: a merchant connection hears its own invoices' changes in
// its mode, a restricted key's when its role reads invoices, a public connection only the invoices it
// follows (a limited number). "Hears nothing" is proved with a later change the connection does
// hear: notifications arrive in commit order, so an event that was going to come would have come before it.
import { afterEach, describe, expect, it } from 'vitest';
import { connectHub, heardOnly, newInvoice, payInvoice, stopHubClients, voidInvoice } from '../support/hub.js';
import { paidCardPayment } from '../support/checkout.js';
import { useTestServer } from '../support/server.js';

// A small follow limit, so a test can reach it.
const t = useTestServer({ hub: { maxFollowed: 3 } });
const skA = () => t.merchantA.keys.test.secret;
const future = new Date().getUTCFullYear() + 2;
afterEach(stopHubClients);

describe('who hears what', () => {
  it('a merchant connection hears its invoice paid (Paid) and voided (Cancelled), by numeric id', async () => {
    const client = await connectHub(t.url, { key: skA() });
    const paid = await newInvoice(t);
    await payInvoice(t, paid.id);
    expect(await client.next(paid.id)).toEqual({ invoiceId: paid.id, status: 'Paid' });
    const voided = await newInvoice(t);
    await voidInvoice(t, voided.id);
    expect(await client.next(voided.id)).toEqual({ invoiceId: voided.id, status: 'Cancelled' });
  });

  it('a merchant connection hears the invoice a one-time session raises once, Paid, when the payment commits', async () => {
    const client = await connectHub(t.url, { key: skA() });
    const { sessionId, confirmed } = await paidCardPayment(t);
    expect(confirmed.status, confirmed.text).toBe(200);
    const invoiceId = (await t.call('GET', `/v1/checkout-sessions/${sessionId}`, { key: skA() })).json.invoiceId as number;
    expect(await client.next(invoiceId)).toEqual({ invoiceId, status: 'Paid' });
    // Notifications arrive in commit order: a second one for the session's invoice would come before the control's.
    const control = await newInvoice(t);
    await voidInvoice(t, control.id);
    await client.next(control.id);
    expect(client.heard).toEqual([
      { invoiceId, status: 'Paid' },
      { invoiceId: control.id, status: 'Cancelled' },
    ]);
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
      const role = await t.call('POST', '/v1/role', { apiKey: skA(), body: { name: `Hub ${scopes.join(' ')} ${Date.now()}`, scopes } });
      expect(role.status, role.text).toBe(201);
      const made = await t.call('POST', `/v1/role/${role.json.id}/keys`, { apiKey: skA(), body: {} });
      expect(made.status, made.text).toBe(201);
      return made.json.key as string;
    };
    const reader = await connectHub(t.url, { key: await restricted(['invoice.read']) });
    const voided = await newInvoice(t);
    await voidInvoice(t, voided.id);
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
    const a = await connectHub(t.url, { key: skA() });
    const theirs = await newInvoice(t);
    await payInvoice(t, theirs.id);
    await a.next(theirs.id);
    await heardOnly(t, b, await newInvoice(t, skB), skB);
  });

  it('test and live mode are apart: each connection hears its own mode only', async () => {
    const skLive = t.merchantA.keys.live.secret;
    const test = await connectHub(t.url, { key: skA() });
    const live = await connectHub(t.url, { key: skLive });
    const liveInvoice = await newInvoice(t, skLive);
    await voidInvoice(t, liveInvoice.id, skLive);
    expect(await live.next(liveInvoice.id)).toEqual({ invoiceId: liveInvoice.id, status: 'Cancelled' });
    await heardOnly(t, test, await newInvoice(t));
    expect(live.heard).toEqual([{ invoiceId: liveInvoice.id, status: 'Cancelled' }]);
  });

  it('a public connection hears only the invoices it subscribed to, by identifier, until it unsubscribes', async () => {
    const client = await connectHub(t.url);
    const [followed, other, later] = [await newInvoice(t), await newInvoice(t), await newInvoice(t)];
    await voidInvoice(t, other.id);
    expect(await client.connection.invoke('SubscribeToInvoice', followed.identifier.toUpperCase())).toEqual({ invoiceId: followed.id, status: 'Pending' });
    await heardOnly(t, client, followed);
    await client.connection.invoke('SubscribeToInvoice', later.identifier);
    await client.connection.invoke('UnsubscribeFromInvoice', later.identifier);
    await voidInvoice(t, later.id);
    const marker = await newInvoice(t, t.merchantB.keys.test.secret);
    await client.connection.invoke('SubscribeToInvoice', marker.identifier);
    await voidInvoice(t, marker.id, t.merchantB.keys.test.secret);
    await client.next(marker.id);
    expect(client.heard.map((e) => e.invoiceId)).toEqual([followed.id, marker.id]);
  });

  it('an unknown or malformed identifier answers "not found"; a connection follows a limited number of invoices', async () => {
    const client = await connectHub(t.url);
    for (const identifier of ['00000000-0000-4000-8000-000000000000', 'INV-1', '']) {
      await expect(client.connection.invoke('SubscribeToInvoice', identifier)).rejects.toThrow(/not found/);
    }
    await expect(client.connection.invoke('SubscribeToInvoice')).rejects.toThrow(/takes one argument/);
    const invoices = [await newInvoice(t), await newInvoice(t), await newInvoice(t), await newInvoice(t)];
    for (const invoice of invoices.slice(0, 3)) await client.connection.invoke('SubscribeToInvoice', invoice.identifier);
    await client.connection.invoke('SubscribeToInvoice', invoices[0]!.identifier);
    await expect(client.connection.invoke('SubscribeToInvoice', invoices[3]!.identifier)).rejects.toThrow(/at most 3 invoices/);
    await client.connection.invoke('UnsubscribeFromInvoice', invoices[0]!.identifier);
    await client.connection.invoke('SubscribeToInvoice', invoices[3]!.identifier);
  });

  it('a change that rolls back, or an update that keeps the status, announces nothing', async () => {
    const client = await connectHub(t.url, { key: skA() });
    const invoice = await newInvoice(t);
    const rolledBack = t.database.db.transaction().execute(async (trx) => {
      await trx.updateTable('invoices').set({ status: 'paid' }).where('id', '=', invoice.id).execute();
      throw new Error('roll back');
    });
    await expect(rolledBack).rejects.toThrow('roll back');
    await t.database.db.updateTable('invoices').set({ status: 'pending' }).where('id', '=', invoice.id).execute();
    await heardOnly(t, client, invoice);
  });

  it('a client may connect its WebSocket directly, without negotiate', async () => {
    const client = await connectHub(t.url, { key: skA(), skipNegotiation: true });
    const invoice = await newInvoice(t);
    await voidInvoice(t, invoice.id);
    expect(await client.next(invoice.id)).toEqual({ invoiceId: invoice.id, status: 'Cancelled' });
  });
});
