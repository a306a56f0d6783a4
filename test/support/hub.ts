// Clients of the notification hub for tests: the official `@microsoft/signalr` client (as merchants
// use it) and a raw `ws` socket speaking the JSON hub protocol by hand (to see the wire itself); the
// invoice changes they hear; and LISTEN/NOTIFY listeners under the hub.
import { HttpTransportType, type HubConnection, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import { sql } from 'kysely';
import { expect } from 'vitest';
import WebSocket from 'ws';
import type { TillDatabase } from '../../server/db/database.js';
import type { Unlisten } from '../../server/db/notifications.js';
import { randomToken } from '../../server/shared/crypto.js';
import type { TestServer } from './server.js';

export interface InvoiceUpdated {
  invoiceId: number;
  status: string;
}

/** Resolves with what `seen` finds, looking again on each wake-up; fails after `ms`, naming `what`. */
function waitFor<T>(seen: () => T | undefined, subscribe: (wake: () => void) => () => void, what: string, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    let unsubscribe = () => {};
    const timer = setTimeout(() => {
      done();
      reject(new Error(`Nothing arrived within ${ms} ms: ${what}`));
    }, ms);
    const done = () => {
      clearTimeout(timer);
      unsubscribe();
    };
    const check = () => {
      const found = seen();
      if (found === undefined) return;
      done();
      resolve(found);
    };
    unsubscribe = subscribe(check);
    check();
  });
}

export interface HubClient {
  connection: HubConnection;
  /** Every InvoiceUpdated heard, in order. */
  heard: InvoiceUpdated[];
  /** The first event heard (or still to come) for this invoice; fails after a few seconds. */
  next(invoiceId: number, ms?: number): Promise<InvoiceUpdated>;
}

export interface ConnectOptions {
  key?: string;
  /** Connect the WebSocket directly, without negotiate. */
  skipNegotiation?: boolean;
  /** Reconnect automatically (retry delays in ms). */
  reconnect?: number[];
  /** The transport the client is forced onto (WebSockets unless told). */
  transport?: HttpTransportType;
  /** Headers the client sends on every request (e.g. `x-api-key`). */
  headers?: Record<string, string>;
}

const clients = new Set<HubConnection>();

/** Opens a hub connection with the official client, over WebSockets (or the transport given), and records what it hears. */
export async function connectHub(baseUrl: string, options: ConnectOptions = {}): Promise<HubClient> {
  const { key } = options;
  let builder = new HubConnectionBuilder()
    .withUrl(`${baseUrl}/hubs/notifications`, {
      transport: options.transport ?? HttpTransportType.WebSockets,
      skipNegotiation: options.skipNegotiation ?? false,
      ...(options.headers ? { headers: options.headers } : {}),
      ...(key ? { accessTokenFactory: () => key } : {}),
    })
    .configureLogging(LogLevel.None);
  if (options.reconnect) builder = builder.withAutomaticReconnect(options.reconnect);
  const connection = builder.build();
  const heard: InvoiceUpdated[] = [];
  const wakers = new Set<() => void>();
  connection.on('InvoiceUpdated', (event: InvoiceUpdated) => {
    heard.push(event);
    for (const wake of wakers) wake();
  });
  await connection.start();
  clients.add(connection);
  const next = (invoiceId: number, ms = 5_000) =>
    waitFor(
      () => heard.find((e) => e.invoiceId === invoiceId),
      (wake) => (wakers.add(wake), () => wakers.delete(wake)),
      `InvoiceUpdated for invoice ${invoiceId}`,
      ms,
    );
  return { connection, heard, next };
}

/** Stops every client `connectHub` opened (call it after each test). */
export async function stopHubClients(): Promise<void> {
  await Promise.all([...clients].map((c) => c.stop()));
  clients.clear();
}

export const RS = '\u001e';

export interface RawHub {
  socket: WebSocket;
  /** Every record received, parsed. */
  received: Record<string, unknown>[];
  send(message: object | string): void;
  /** The first received record that matches; fails after a few seconds. */
  next(match: (m: Record<string, unknown>) => boolean, ms?: number): Promise<Record<string, unknown>>;
  closed: Promise<void>;
}

/** A WebSocket to the hub speaking the protocol by hand; resolves once open (or rejects with the refusal's status). */
export function rawHub(baseUrl: string, query = '', headers: Record<string, string> = {}): Promise<RawHub> {
  const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/hubs/notifications${query}`, { headers });
  const received: Record<string, unknown>[] = [];
  const wakers = new Set<() => void>();
  socket.on('message', (data) => {
    for (const text of data.toString().split(RS).filter(Boolean)) received.push(JSON.parse(text));
    for (const wake of wakers) wake();
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const hub: RawHub = {
    socket,
    received,
    closed,
    send: (message) => socket.send(typeof message === 'string' ? message : JSON.stringify(message) + RS),
    next: (match, ms = 5_000) =>
      waitFor(
        () => received.find(match),
        (wake) => (wakers.add(wake), () => wakers.delete(wake)),
        'a matching hub message',
        ms,
      ),
  };
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(hub));
    socket.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => reject(Object.assign(new Error(`refused with ${res.statusCode}`), { status: res.statusCode, body })));
    });
    socket.once('error', reject);
  });
}

/** A new invoice of merchant A (or of `key`'s merchant): its id and public identifier. */
export async function newInvoice(t: TestServer, key = t.merchantA.keys.test.secret): Promise<{ id: number; identifier: string }> {
  const res = await t.call('POST', '/v1/invoices', {
    key,
    body: { customer: { email: 'hub@example.com' }, currency: 'USD', lineItems: [{ name: 'Hub', quantity: 1, unitAmount: 20 }] },
  });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

/** Voids an invoice (it is then Cancelled), through the server at `baseUrl`. */
export async function voidInvoice(t: TestServer, id: number, key = t.merchantA.keys.test.secret, baseUrl = t.url) {
  const res = await fetch(`${baseUrl}/v1/invoices/${id}/void`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
}

/** Pays an invoice of merchant A as a payer does: a checkout session for it, a test card, confirm. */
export async function payInvoice(t: TestServer, invoiceId: number) {
  const session = await t.call('POST', '/v1/checkout-sessions', {
    key: t.merchantA.keys.test.secret,
    body: { mode: 'embedded', paymentType: 'oneTime', invoiceId },
  });
  expect(session.status, session.text).toBe(201);
  const client = { key: t.merchantA.keys.test.publishable, clientSecret: session.json.clientSecret };
  const pm = await t.call('POST', `/v1/checkout-sessions/${session.json.id}/tokenize`, {
    ...client,
    body: { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 2, cvc: '123' },
  });
  const confirmed = await t.call('POST', `/v1/checkout-sessions/${session.json.id}/confirm`, { ...client, body: { paymentMethodId: pm.json.id } });
  expect(confirmed.status, confirmed.text).toBe(200);
}

/**
 * Voids `control` (an invoice `client` hears) and checks that its event is all the client heard:
 * notifications arrive in commit order, so anything else it was going to hear would have come first.
 */
export async function heardOnly(t: TestServer, client: HubClient, control: { id: number }, key = t.merchantA.keys.test.secret) {
  await voidInvoice(t, control.id, key);
  await client.next(control.id);
  expect(client.heard).toEqual([{ invoiceId: control.id, status: 'Cancelled' }]);
}

/** A listener of `database.listen` on a channel of its own (test files share a PostgreSQL server), with what it heard. */
export async function listener(database: TillDatabase) {
  const channel = `till_test_${randomToken(10).toLowerCase()}`;
  const heard: string[] = [];
  let restored = 0;
  const wakers = new Set<() => void>();
  const unlisten: Unlisten = await database.listen(channel, {
    notification: (payload) => {
      heard.push(payload);
      for (const wake of wakers) wake();
    },
    restored: () => void restored++,
  });
  /** Resolves once `payload` was heard; fails after a few seconds. */
  const hears = (payload: string) =>
    waitFor(
      () => (heard.includes(payload) ? true : undefined),
      (wake) => (wakers.add(wake), () => wakers.delete(wake)),
      `NOTIFY ${payload}`,
      5_000,
    );
  const notify = (payload: string) => sql`SELECT pg_notify(${channel}, ${payload})`.execute(database.db);
  return { channel, heard, hears, notify, unlisten, restoredCount: () => restored };
}
