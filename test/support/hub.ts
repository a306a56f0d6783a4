// Clients of the notification hub for tests: the official `@microsoft/signalr` client (as merchants
// use it) and a raw `ws` socket speaking the JSON hub protocol by hand (to see the wire itself).
import { HttpTransportType, type HubConnection, HubConnectionBuilder, LogLevel } from '@microsoft/signalr';
import WebSocket from 'ws';

export interface InvoiceUpdated {
  invoiceId: number;
  status: string;
}

/** Resolves with what `seen` finds, looking again on each wake-up; fails after `ms`, naming `what`. */
function waitFor<T>(seen: () => T | undefined, subscribe: (wake: () => void) => () => void, what: string, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    let unsubscribe = () => {};
    let timer: NodeJS.Timeout | undefined;
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
    timer = setTimeout(() => {
      done();
      reject(new Error(`Nothing arrived within ${ms} ms: ${what}`));
    }, ms);
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
}

const clients = new Set<HubConnection>();

/** Opens a hub connection with the official client, over WebSockets, and records what it hears. */
export async function connectHub(baseUrl: string, options: ConnectOptions = {}): Promise<HubClient> {
  const { key } = options;
  let builder = new HubConnectionBuilder()
    .withUrl(`${baseUrl}/hubs/notifications`, {
      transport: HttpTransportType.WebSockets,
      skipNegotiation: options.skipNegotiation ?? false,
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
