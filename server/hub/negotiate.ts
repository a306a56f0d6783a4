// The HTTP side of the hub (`/hubs/notifications`): `POST …/negotiate` as ASP.NET Core SignalR
// answers it (dotnet/aspnetcore, src/SignalR/docs/specs/TransportProtocols.md), the Server-Sent
// Events and long-polling transports' requests (GET, POST, DELETE with `?id=`, handed to the hub
// attached to the listening server), and CORS for browsers on any origin.
import { type Request, type RequestHandler, type Response, Router } from 'express';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { renderError } from '../http/errors.js';
import { randomToken } from '../shared/crypto.js';
import { AppError } from '../shared/errors.js';
import { accessFor, presentedToken } from './access.js';
import { type HttpTransports, httpTransportsOf } from './http-transports.js';

/** Where the hub is served: negotiate below it, the WebSocket on it. Paths match case-insensitively, as ASP.NET's do. */
export const HUB_PATH = '/hubs/notifications';

/**
 * A connection token (or id): random base62. Till's design: the token carries no right (the
 * access token is checked again on the WebSocket), so any process accepts a token another one
 * negotiated and no sticky sessions are needed.
 */
export const CONNECTION_TOKEN = /^[A-Za-z0-9]{22,64}$/;
export const newConnectionToken = (): string => randomToken(32);

/** Transports offered, each with text (the JSON hub protocol): every one the official client falls back to, in its order. */
export const TRANSPORTS = [
  { transport: 'WebSockets', transferFormats: ['Text'] },
  { transport: 'ServerSentEvents', transferFormats: ['Text'] },
  { transport: 'LongPolling', transferFormats: ['Text'] },
];

/** SignalR's browser client sends credentials: reflect the caller's origin rather than `*`. */
const cors: RequestHandler = (req, res, next) => {
  const origin = req.get('origin');
  if (origin) {
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Allow-Credentials', 'true');
  }
  res.setHeader('Vary', 'Origin');
  if (req.method === 'OPTIONS') {
    res.setHeader('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, X-Requested-With, X-SignalR-User-Agent, X-Api-Key');
    res.setHeader('Access-Control-Max-Age', '600');
    res.status(204).end();
    return;
  }
  next();
};

/** The negotiate version both sides use: the client's, at most 1 (an absent or unreadable one is 0). */
function negotiateVersion(req: Request): 0 | 1 {
  const asked = Number(req.query.negotiateVersion);
  return Number.isInteger(asked) && asked >= 1 ? 1 : 0;
}

/**
 * Version 1 hands out a secret connection token besides the id; version 0 uses the id itself. The
 * token is remembered for the HTTP transports (a WebSocket takes any token).
 */
function negotiateAnswer(version: 0 | 1, transports: HttpTransports | undefined) {
  const connectionId = newConnectionToken();
  const connectionToken = version === 0 ? connectionId : newConnectionToken();
  transports?.negotiatedToken(connectionToken);
  if (version === 0) return { connectionId, negotiateVersion: 0, availableTransports: TRANSPORTS };
  return { connectionId, connectionToken, negotiateVersion: 1, availableTransports: TRANSPORTS };
}

function negotiate(db: Kysely<Database>): RequestHandler {
  return async (req: Request, res: Response, next) => {
    try {
      const query = new URLSearchParams(req.url.split('?')[1] ?? '');
      await accessFor(db, presentedToken(req.headers, query));
      res.setHeader('Cache-Control', 'no-store');
      res.json(negotiateAnswer(negotiateVersion(req), httpTransportsOf(req)));
    } catch (err) {
      if (err instanceof AppError) renderError(req, res, err);
      else next(err);
    }
  };
}

type TransportStep = (transports: HttpTransports, req: Request, res: Response, id: string, query: URLSearchParams) => Promise<void> | void;

/** A request of the HTTP transports: it needs `?id=` (the connection token from negotiate). */
function transportRequest(step: TransportStep): RequestHandler {
  return async (req, res, next) => {
    try {
      const query = new URLSearchParams(req.url.split('?')[1] ?? '');
      const id = query.get('id');
      if (id === null) {
        throw new AppError('parameter_missing', {
          message: `Open a WebSocket at ${HUB_PATH}, or negotiate (POST ${HUB_PATH}/negotiate) and pass its connection token as \`id\` for Server-Sent Events or long polling.`,
        });
      }
      const transports = httpTransportsOf(req);
      if (!transports || !CONNECTION_TOKEN.test(id)) throw new AppError('resource_not_found', { message: 'No connection with that id: negotiate again.' });
      await step(transports, req, res, id, query);
    } catch (err) {
      if (err instanceof AppError) renderError(req, res, err);
      else next(err);
    }
  };
}

/** The hub's HTTP routes, to mount at HUB_PATH before the API's routing. */
export function hubRoutes(db: Kysely<Database>): Router {
  const router = Router();
  router.use(cors);
  router.post('/negotiate', negotiate(db));
  router.get(
    '/',
    transportRequest((transports, req, res, id, query) => transports.receive(req, res, id, query)),
  );
  router.post(
    '/',
    transportRequest((transports, req, res, id) => transports.send(req, res, id)),
  );
  router.delete(
    '/',
    transportRequest((transports, _req, res, id) => transports.end(res, id)),
  );
  return router;
}
