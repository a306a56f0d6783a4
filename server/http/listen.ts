// The HTTP server Till listens with: Node's, with requests and responses born with the Express
// app's prototypes.
//
// `app.listen` (Express 5.3) hands Express plain `IncomingMessage`/`ServerResponse` objects, and
// `app.handle` then calls `Object.setPrototypeOf` on both for every request. Changing the
// prototype of a live object moves it to a fresh hidden class, so every later property access on
// it, in Node's own HTTP code as in ours, misses V8's inline caches. Measured on a 2-core machine
// (one JSON answer after one PostgreSQL query, 50 connections): about 90 µs of CPU per request,
// of ~230. Built with the app's own prototypes, the objects already have the prototype Express
// sets, so that call changes nothing.
import http from 'node:http';
import type { ErrorRequestHandler, Express, NextFunction, Request, RequestHandler, Response } from 'express';

type Listener = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** The API entries of apps (see `serveApiDirectly`). */
const apiEntries = new WeakMap<Express, { isApi: (url: string) => boolean; entry: Listener }>();

/**
 * Has the server hand the requests `isApi` picks straight to `pipeline`, and its errors to
 * `errorHandlers`, as the app itself would run them but without Express's `app.handle` and
 * router (about 40 µs of CPU per request on a 2-core machine). The app still serves everything
 * else, and the same requests when it is mounted some other way.
 */
export function serveApiDirectly(app: Express, isApi: (url: string) => boolean, pipeline: RequestHandler, errorHandlers: ErrorRequestHandler[]): void {
  apiEntries.set(app, { isApi, entry: (req, res) => runDirectly(req as Request, res as Response, pipeline, errorHandlers) });
}

function runDirectly(req: Request, res: Response, pipeline: RequestHandler, errorHandlers: ErrorRequestHandler[]): void {
  // What app.handle and the router set up (the prototypes are already the app's: see below).
  req.res = res;
  res.req = req;
  res.locals = Object.create(null) as Response['locals'];
  req.originalUrl = req.url;
  req.baseUrl = '';
  req.params = {};
  const fail = (err: unknown, i: number): void => {
    const handler = errorHandlers[i];
    if (!handler) return lastResort(res);
    const next: NextFunction = (later?: unknown) => fail(later ?? err, i + 1);
    try {
      handler(err, req, res, next);
    } catch (thrown) {
      fail(thrown, i + 1);
    }
  };
  pipeline(req, res, (err?: unknown) => (err === undefined || err === null || err === 'route' ? lastResort(res, 404) : fail(err, 0)));
}

/** What Express's final handler does when nothing answered: a bare status, or the connection closed once an answer began. */
function lastResort(res: Response, status = 500): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.statusCode = status;
  res.end();
}

/** Node's HTTP server for `app`; `app.listen` with the prototype fix above. */
export function createHttpServer(app: Express): http.Server {
  // Node's classes are plain constructor functions (they must be: Express's prototypes are
  // objects, not classes), so a subclass is a function whose prototype is the app's.
  function AppRequest(this: http.IncomingMessage, socket: import('node:net').Socket) {
    http.IncomingMessage.call(this, socket);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: http.ServerResponse, req: http.IncomingMessage, options?: unknown) {
    (http.ServerResponse as unknown as (this: http.ServerResponse, req: http.IncomingMessage, options?: unknown) => void).call(this, req, options);
  }
  AppResponse.prototype = app.response;
  const api = apiEntries.get(app);
  const listener: Listener = api
    ? (req, res) => {
        if (api.isApi(req.url ?? '')) api.entry(req, res);
        else app(req, res);
      }
    : app;
  return http.createServer(
    { IncomingMessage: AppRequest as unknown as typeof http.IncomingMessage, ServerResponse: AppResponse as unknown as typeof http.ServerResponse },
    listener,
  );
}

/** Listens on `port` (and `host`, when given); resolves with the listening server. */
export function listenApp(app: Express, port: number, host?: string): Promise<http.Server> {
  const server = createHttpServer(app);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const listening = () => {
      server.off('error', reject);
      resolve(server);
    };
    if (host === undefined) server.listen(port, listening);
    else server.listen(port, host, listening);
  });
}
