// The HTTP side of the hub (`/hubs/notifications`): `POST …/negotiate` as ASP.NET Core SignalR
// answers it (dotnet/aspnetcore, src/SignalR/docs/specs/TransportProtocols.md), CORS for browsers
// on any origin, and a plain answer to a request that should have been a WebSocket.
import { type Request, type RequestHandler, type Response, Router } from 'express';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { renderError } from '../http/errors.js';
import { randomToken } from '../shared/crypto.js';
import { AppError } from '../shared/errors.js';
import { accessFor, presentedToken } from './access.js';

/** Where the hub is served: negotiate below it, the WebSocket on it. Paths match case-insensitively, as ASP.NET's do. */
export const HUB_PATH = '/hubs/notifications';

/**
 * A connection token (or id): random base62. Till's design: the token carries no right (the
 * access token is checked again on the WebSocket), so any process accepts a token another one
 * negotiated and no sticky sessions are needed.
 */
export const CONNECTION_TOKEN = /^[A-Za-z0-9]{22,64}$/;
export const newConnectionToken = (): string => randomToken(32);

/** Transports offered: WebSockets, text frames (the JSON hub protocol). */
const TRANSPORTS = [{ transport: 'WebSockets', transferFormats: ['Text'] }];

/** SignalR's browser client sends credentials: reflect the caller's origin rather than `*`. */
const cors: RequestHandler = (req, res, next) => {
  const origin = req.get('origin');
  if (origin) {
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Allow-Credentials', 'true');
  }
  res.setHeader('Vary', 'Origin');
  if (req.method === 'OPTIONS') {
    res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, X-Requested-With, X-SignalR-User-Agent');
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

/** Version 1 hands out a secret connection token besides the id; version 0 uses the id itself. */
function negotiateAnswer(version: 0 | 1) {
  const connectionId = newConnectionToken();
  if (version === 0) return { connectionId, negotiateVersion: 0, availableTransports: TRANSPORTS };
  return { connectionId, connectionToken: newConnectionToken(), negotiateVersion: 1, availableTransports: TRANSPORTS };
}

function negotiate(db: Kysely<Database>): RequestHandler {
  return async (req: Request, res: Response, next) => {
    try {
      const query = new URLSearchParams(req.url.split('?')[1] ?? '');
      await accessFor(db, presentedToken(req.headers, query));
      res.setHeader('Cache-Control', 'no-store');
      res.json(negotiateAnswer(negotiateVersion(req)));
    } catch (err) {
      if (err instanceof AppError) renderError(req, res, err);
      else next(err);
    }
  };
}

const notAWebSocket: RequestHandler = (req, res) => {
  renderError(
    req,
    res,
    new AppError('parameter_invalid', {
      message: `Open a WebSocket at ${HUB_PATH} (after POST ${HUB_PATH}/negotiate, or directly); this hub offers no other transport.`,
    }),
  );
};

/** The hub's HTTP routes, to mount at HUB_PATH before the API's routing. */
export function hubRoutes(db: Kysely<Database>): Router {
  const router = Router();
  router.use(cors);
  router.post('/negotiate', negotiate(db));
  router.all('/', notAWebSocket);
  return router;
}
