// Server-Sent Events and long polling at `/hubs/notifications`, with HTTP POST to send, as ASP.NET
// Core SignalR serves them (TransportProtocols.md): they need a connection token this process
// negotiated (`?id=`). GET with `Accept: text/event-stream` opens the event stream; any other GET
// is a long poll (the first one opens the connection and answers 200 at once); POST carries the
// client's records; DELETE ends a long-polling connection. Unlike a WebSocket, these requests
// share state in the process that negotiated, so behind several processes they need sticky routing.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { AppError } from '../shared/errors.js';
import { TtlCache } from '../shared/ttl-cache.js';
import { accessFor, type HubAccess, presentedToken } from './access.js';
import type { Audience } from './audience.js';
import { type ConnectionHooks, HubConnection } from './connection.js';
import { LongPollWire, SseWire } from './http-wires.js';

/** A negotiated connection token waits this long for its transport. */
const NEGOTIATED_TTL_MS = 60_000;
/** The most negotiated tokens remembered (the oldest goes first). */
const NEGOTIATED_MAX = 10_000;

interface Live {
  connection: HubConnection;
  /** The long-polling half, for a long-polling connection. */
  polls?: LongPollWire;
  /** A POST is being read. */
  posting: boolean;
}

export interface HttpTransportContext {
  db: Kysely<Database>;
  audience: Audience;
  hooks: ConnectionHooks;
  /** A long poll with nothing to collect answers 200 empty after this (90 s, ASP.NET's default). */
  pollTimeoutMs: number;
  /** The most bytes one POST may carry. */
  maxMessageBytes: number;
}

const noSuchConnection = () =>
  new AppError('resource_not_found', { message: 'No connection with that id: negotiate again (POST /hubs/notifications/negotiate).' });

export class HttpTransports {
  private readonly negotiated = new TtlCache<string, true>(NEGOTIATED_TTL_MS, NEGOTIATED_MAX);
  private readonly live = new Map<string, Live>();

  constructor(private readonly ctx: HttpTransportContext) {}

  /** Negotiate handed out this connection token. */
  negotiatedToken(id: string): void {
    this.negotiated.set(id, true);
  }

  /** GET: opens the event stream, or opens or continues long polling. */
  async receive(req: IncomingMessage, res: ServerResponse, id: string, query: URLSearchParams): Promise<void> {
    const live = this.live.get(id);
    const wantsEvents = (req.headers.accept ?? '').includes('text/event-stream');
    if (live) {
      if (!live.polls || wantsEvents) throw new AppError('invalid_state', { message: 'This connection already has its transport.' });
      return live.polls.poll(res);
    }
    const access = await this.claim(id, req, query);
    if (wantsEvents) {
      const wire = new SseWire(res);
      const connection = this.open(id, access, wire);
      res.once('close', () => connection.ended());
      return;
    }
    const polls = new LongPollWire(this.ctx.pollTimeoutMs, () => connection.ended());
    const connection = this.open(id, access, polls, polls);
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': 0 }).end();
  }

  /** POST: the client's records for its connection; 409 while another POST of it is being read. */
  async send(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
    const live = this.live.get(id);
    if (!live || live.connection.isClosing) throw noSuchConnection();
    if (live.posting) throw new AppError('invalid_state', { message: 'Another send of this connection is in progress.' });
    live.posting = true;
    let text: string;
    try {
      text = await readBody(req, this.ctx.maxMessageBytes);
    } finally {
      live.posting = false;
    }
    live.connection.received(text);
    res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': 0 }).end();
  }

  /** DELETE: ends a long-polling connection (its held poll answers 204); 202. */
  end(res: ServerResponse, id: string): void {
    const live = this.live.get(id);
    if (!live) throw noSuchConnection();
    if (!live.polls)
      throw new AppError('parameter_invalid', { message: 'Only a long-polling connection is ended with DELETE; close the event stream instead.' });
    live.polls.delete();
    res.writeHead(202, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Accepted');
  }

  /** The access of whoever opens a negotiated connection (the access token is checked here, as on a WebSocket). */
  private async claim(id: string, req: IncomingMessage, query: URLSearchParams): Promise<HubAccess> {
    if (!this.negotiated.get(id) || this.ctx.audience.has(id)) throw noSuchConnection();
    this.negotiated.delete(id);
    return accessFor(this.ctx.db, presentedToken(req.headers, query));
  }

  private open(id: string, access: HubAccess, wire: SseWire | LongPollWire, polls?: LongPollWire): HubConnection {
    const connection = new HubConnection(id, access, wire, {
      ...this.ctx.hooks,
      gone: (member) => {
        this.live.delete(id);
        this.ctx.hooks.gone(member);
      },
    });
    this.live.set(id, { connection, polls, posting: false });
    this.ctx.audience.join(connection);
    return connection;
  }
}

/** A request's body as text, refused (400) past `max` bytes. */
function readBody(req: IncomingMessage, max: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= max) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > max) reject(new AppError('parameter_invalid', { message: `A message may be at most ${max} bytes.` }));
      else resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', reject);
  });
}

/** The HTTP transports of the hub attached to each listening server. */
const byServer = new WeakMap<object, HttpTransports>();

export const registerHttpTransports = (server: object, transports: HttpTransports): void => void byServer.set(server, transports);
export const unregisterHttpTransports = (server: object): void => void byServer.delete(server);

/** The HTTP transports serving a request (through the server that accepted its socket), if the hub is attached there. */
export function httpTransportsOf(req: IncomingMessage): HttpTransports | undefined {
  const server = (req.socket as { server?: object }).server;
  return server ? byServer.get(server) : undefined;
}
