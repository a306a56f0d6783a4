// The WebSocket upgrade at `/hubs/notifications`: which connection (`id`, optional), who is
// connecting (the access token), then the upgrade, or an HTTP refusal with a JSON error body.
import { type IncomingMessage, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { RawData, WebSocket, WebSocketServer } from 'ws';
import type { Database } from '../db/schema.js';
import { AppError } from '../shared/errors.js';
import { accessFor, type HubAccess, presentedToken } from './access.js';
import type { Audience } from './audience.js';
import { type ConnectionHooks, HubConnection } from './connection.js';
import { CONNECTION_TOKEN, HUB_PATH, newConnectionToken } from './negotiate.js';

export interface UpgradeContext {
  db: Kysely<Database>;
  wss: WebSocketServer;
  audience: Audience;
  log: Logger;
  /** Takes over an accepted socket. */
  open(socket: WebSocket, id: string, access: HubAccess): void;
}

/** Answers an upgrade with an HTTP error and drops the socket. */
function refuse(socket: Duplex, error: AppError): void {
  const body = JSON.stringify({ error: { type: error.type, code: error.code, message: error.message } });
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

const isHubPath = (pathname: string) => pathname.replace(/\/+$/, '').toLowerCase() === HUB_PATH;

/** The connection token asked for: a new one without `id`; 404 for one that cannot be a token, 409 for one connected here already. */
function connectionId(query: URLSearchParams, ctx: UpgradeContext, pending: Set<string>): string {
  const id = query.get('id');
  if (id === null) return newConnectionToken();
  if (!CONNECTION_TOKEN.test(id)) throw new AppError('resource_not_found', { message: 'No such connection: negotiate again, or connect without `id`.' });
  if (ctx.audience.has(id) || pending.has(id)) {
    throw new AppError('invalid_state', { message: 'This connection already has a WebSocket. Negotiate a new connection.' });
  }
  return id;
}

/** The server's 'upgrade' listener. Every upgrade on this server is the hub's: other paths answer 404. */
export function upgradeListener(ctx: UpgradeContext) {
  /** Tokens whose access is being checked, so that two sockets cannot race for one. */
  const pending = new Set<string>();
  return (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'http://hub.invalid');
    if (!isHubPath(url.pathname))
      return refuse(socket, new AppError('route_not_found', { message: `No WebSocket endpoint at ${url.pathname}; the hub is at ${HUB_PATH}.` }));
    let id: string;
    try {
      id = connectionId(url.searchParams, ctx, pending);
    } catch (err) {
      return refuse(socket, err as AppError);
    }
    pending.add(id);
    Promise.resolve()
      .then(() => accessFor(ctx.db, presentedToken(req.headers, url.searchParams)))
      .then(
        (access) => ctx.wss.handleUpgrade(req, socket, head, (ws) => ctx.open(ws, id, access)),
        (err) => {
          if (!(err instanceof AppError)) ctx.log.error({ err }, 'hub upgrade failed');
          refuse(socket, err instanceof AppError ? err : new AppError('internal_error'));
        },
      )
      .finally(() => pending.delete(id));
  };
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data as ArrayBuffer).toString('utf8');
}

/** A connection over an accepted WebSocket: text frames in and out; the socket's close ends it. */
export function openWebSocket(socket: WebSocket, id: string, access: HubAccess, hooks: ConnectionHooks, audience: Audience): void {
  const connection = new HubConnection(
    id,
    access,
    {
      send: (text) => {
        if (socket.readyState === socket.OPEN) socket.send(text);
      },
      end: () => socket.close(1000),
    },
    hooks,
  );
  socket.on('message', (data: RawData) => connection.received(rawText(data)));
  socket.on('close', () => connection.ended());
  socket.on('error', (err) => hooks.log.debug({ err, connectionId: id }, 'hub socket error'));
  audience.join(connection);
}
