import express, { type Express, type Request, type RequestHandler, type Response, Router } from 'express';
import { checkoutHandlers, commerceHandlers } from './api/registry.js';
import type { AppDeps, CheckoutHandlers, CommerceHandlers, HandlerInput, ServerDeps, StreamWriter } from './api/types.js';
import { withBeforeCommit } from './db/commit-hook.js';
import { SANDBOX_CLOCK_CHANNEL, SandboxOffsets, tenantClock } from './domain/clocks/tenant-clock.js';
import { authenticate } from './http/auth.js';
import { chain } from './http/chain.js';
import { corsHeaders, preflight } from './http/cors.js';
import type { AuthContext } from './http/context.js';
import { requestContext } from './http/request-context.js';
import { recordRequests } from './http/request-log.js';
import { RequestLogWriter } from './domain/request-logs/request-log.writer.js';
import { keepTraceContext, traceOperation } from './http/tracing.js';
import { tracingEnabled } from './shared/tracing.js';
import { errorMiddleware, lastResortErrorHandler } from './http/errors.js';
import { idempotency } from './http/idempotency.js';
import { validateAgainstContract } from './http/validation.js';
import { refuseDeepNesting } from './http/body-depth.js';
import { refuseNulCharacters } from './http/nul-guard.js';
import { serveApiDirectly } from './http/listen.js';
import { RateLimits, rateLimit, setDefaultRateLimitHeaders } from './http/rate-limit.js';
import { type Api, type RouteOperation, RouteTable } from './http/routes.js';
import { loadContracts } from './openapi/contracts.js';
import { HUB_PATH, hubRoutes } from './hub/index.js';
import { dueWork } from './jobs/due-work-registry.js';
import { checkoutPages } from './pages/checkout/routes.js';
import { invoicePages } from './pages/invoice/routes.js';
import { bankTransferPages } from './pages/bank-transfer/routes.js';
import { linkPages } from './pages/link/routes.js';
import { docsPages } from './pages/docs.js';
import { PORTAL_PATH, portalPages } from './pages/portal/routes.js';
import { DASHBOARD_PATH, dashboardPages } from './pages/dashboard/routes.js';
import { pageAssets } from './pages/kit/assets.js';
import { qrImage } from './pages/qr-image.js';
import { threeDSecurePages } from './pages/challenge-page.js';
import { CHALLENGE_PATH } from './rails/issuer-challenge.js';
import { reactToEvents } from './domain/events/event.service.js';
import { linkPaymentReactor } from './domain/links/link-payments.js';
import { watchDatabase } from './metrics/database.js';
import { metricsEndpoint } from './metrics/endpoint.js';
import { measureRequests } from './metrics/http.js';
import { collectProcessMetrics } from './metrics/registry.js';
import { AppError } from './shared/errors.js';
import type { Tenant } from './shared/tenant.js';

export interface CreateAppOptions {
  /** Replace or add handlers (tests). */
  checkoutHandlers?: CheckoutHandlers;
  commerceHandlers?: CommerceHandlers;
}

/** Any operation's answer, as `runHandler` reads it (every operation's `HandlerResult` is one). */
interface AnyAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  stream?: StreamWriter;
}
type AnyHandler = (input: HandlerInput<any>) => Promise<AnyAnswer>;
/** The validator's account of the request, when it has matched the operation. */
type ValidatedRequest = Request & { openapi?: { pathParams?: Record<string, string> } };
type HandlerTable = Record<Api, Record<string, AnyHandler | undefined>>;

/**
 * The Till HTTP app: both contracts on one Express app. It does not listen; `main.ts` does, and
 * tests drive it directly. The pipeline, in order: request id; the pages outside the API; which
 * operation (both contracts); JSON body; caller; rate limit; test helpers in test mode only; 501
 * for operations without a handler; validation against the contract; idempotency; the handler;
 * one error renderer.
 */
export function createApp(server: ServerDeps, options: CreateAppOptions = {}): Express {
  const deps: AppDeps = { ...server, dueWork: dueWork(server), sandboxOffsets: watchedSandboxOffsets(server) };
  // A paid invoice of a payment link counts on the link (the invoices never import the links).
  reactToEvents(linkPaymentReactor);
  const routes = new RouteTable(loadContracts());
  const limits = new RateLimits(deps.database, deps.config.rateLimitScale);
  const handlers: HandlerTable = {
    checkout: { ...checkoutHandlers, ...options.checkoutHandlers },
    commerce: { ...commerceHandlers, ...options.commerceHandlers },
  };
  const requestLog = new RequestLogWriter(deps.database.db, deps.logger);
  // Metrics cost only where they are read: without a token no /metrics, and no request is measured.
  const metricsOn = deps.config.metricsToken !== undefined;
  if (metricsOn) collectProcessMetrics();
  watchDatabase(deps.database);

  const app = express();
  requestLogs.set(app, requestLog);
  app.disable('x-powered-by');
  // API answers carry no ETag: nothing in the contracts uses one, and hashing every body costs.
  // (The page assets set their own.)
  app.set('etag', false);
  app.set('query parser', 'extended');
  // The whole pipeline is one layer: Express's router matches no path per step.
  const pipeline = chain([
    ...(metricsOn ? [measureRequests()] : []),
    requestContext(deps.logger),
    outsideTheApi(pages(deps)),
    preflight(routes),
    resolveOperation(routes),
    ...(tracingEnabled() ? [traceOperation()] : []),
    corsHeaders(),
    authenticate(deps.database.db),
    ...(deps.config.requestLogs ? [recordRequests(requestLog, deps.clock)] : []),
    rateLimit(limits),
    testHelpersInTestModeOnly,
    notImplementedWithoutHandler(handlers, routes),
    // The body is read only for an operation that will run.
    keepTraceContext(express.json({ limit: '1mb', type: ['application/json', 'application/*+json'] })),
    refuseDeepNesting,
    refuseNulCharacters,
    validateAgainstContract(routes, deps.config.env !== 'production'),
    idempotency(deps.database.db, deps.clock, deps.sandboxOffsets),
    runHandler(handlers, deps),
  ]);
  const defaultHeaders = (res: Response) => setDefaultRateLimitHeaders(res, limits);
  const errorHandlers = [errorMiddleware(defaultHeaders), lastResortErrorHandler(defaultHeaders)];
  app.use(pipeline);
  app.use(errorHandlers);
  // A server made by listen.ts runs API requests straight into the pipeline.
  serveApiDirectly(app, isApiPath, pipeline, errorHandlers);
  return app;
}

/** Each app's request-log writer (`closeRequestLog` writes what it still holds). */
const requestLogs = new WeakMap<Express, RequestLogWriter>();

/** Writes what the app's request log still queues and stops it: call before closing the database. */
export async function closeRequestLog(app: Express): Promise<void> {
  await requestLogs.get(app)?.close();
}

/**
 * What is served outside the API: the health check, the 3-D Secure challenge page, the image of a
 * wallet QR code, the hosted checkout and invoice pages and their assets, the customer portal (no key; their own errors), the
 * API references (`/docs`, `/openapi/*.json`), and the notification hub's negotiate and HTTP transports (served by the hub `attachHub` attached to the listening server, as is its WebSocket).
 */
function pages(deps: AppDeps): Router {
  const app = Router();
  app.get('/healthz', async (_req, res, next) => {
    try {
      await deps.database.sql.query('SELECT 1');
      res.json({ status: 'ok' });
    } catch (err) {
      next(err);
    }
  });
  if (deps.config.metricsToken) app.get('/metrics', metricsEndpoint(deps.config.metricsToken));
  app.use(CHALLENGE_PATH, threeDSecurePages(deps));
  app.use(pageAssets());
  app.use(checkoutPages(deps));
  app.use(invoicePages(deps));
  app.use(bankTransferPages(deps));
  app.use(linkPages(deps));
  app.use(PORTAL_PATH, portalPages(deps));
  app.use(DASHBOARD_PATH, dashboardPages(deps));
  app.get('/qr/:file', qrImage(deps.database.db, deps.clock));
  app.use(HUB_PATH, hubRoutes(deps.database.db));
  app.use(docsPages());
  return app;
}

/** Every API path starts with `/v1/` or `/api/`. */
const isApiPath = (url: string): boolean => url.startsWith('/v1/') || url.startsWith('/api/');

/** Only requests outside the API go through `handler` (the pages). */
function outsideTheApi(handler: RequestHandler): RequestHandler {
  return (req, res, next) => (isApiPath(req.path) ? next() : handler(req, res, next));
}

/** Test-clock offsets that every process forgets when the database announces a change to one. */
function watchedSandboxOffsets(server: ServerDeps): SandboxOffsets {
  const offsets = new SandboxOffsets();
  server.database
    .listen(SANDBOX_CLOCK_CHANNEL, {
      notification: (merchantId) => offsets.forget(Number(merchantId)),
      restored: () => offsets.forgetAll(),
      error: (err) => server.logger.warn({ err }, 'test-clock notices: connection error (offsets are trusted 30 s at most meanwhile)'),
    })
    .catch((err: unknown) => server.logger.warn({ err }, 'test-clock notices unavailable; offsets are trusted 30 s at most'));
  return offsets;
}

/** Finds the operation a request is for, then hands the validator its internal path. */
function resolveOperation(routes: RouteTable): RequestHandler {
  return (req, _res, next) => {
    const [path, query] = splitUrl(req.url);
    const found = routes.resolve(req.method, path);
    if (found.kind === 'not_found')
      return next(
        new AppError('route_not_found', { message: `No operation at ${req.method} ${path}. Check the path and the method against the API reference.` }),
      );
    if (found.kind === 'method_not_allowed') {
      return next(new AppError('route_not_found', { message: `${req.method} is not an operation of ${path}; it supports ${found.allowed.join(', ')}.` }));
    }
    req.till.route = found.route;
    if (found.invalid) return next(found.invalid);
    req.till.params = found.params;
    req.url = routes.internalPath(found.route, found.params) + (query ? `?${query}` : '');
    next();
  };
}

const testHelpersInTestModeOnly: RequestHandler = (req, _res, next) => {
  if (req.till.route?.operation.tags?.includes('Test Helpers') && req.till.auth?.livemode) return next(new AppError('livemode_not_allowed'));
  next();
};

/**
 * An operation without a handler answers 501 once the caller is known, whatever its input, so a
 * client (or the conformance suite) can tell "not implemented" from "invalid".
 */
function notImplementedWithoutHandler(handlers: HandlerTable, routes: RouteTable): RequestHandler {
  const answered = new Set(routes.operations.filter((r) => handlers[r.api][r.operationId] && !neverSucceeds(r)).map((r) => r.operationId));
  return (req, _res, next) => {
    const route = req.till.route!;
    if (answered.has(route.operationId)) return next();
    const handler = handlers[route.api][route.operationId];
    // One that never succeeds answers its own 501 (its message says what to use instead), before the body is read.
    if (handler) return void handler({} as HandlerInput<any>).then(() => next(notImplemented(route)), next);
    next(notImplemented(route));
  };
}

/** Gives a handler's input its tenant: the caller's merchant and mode. Reading it on a public operation (no merchant) is a bug of that handler. */
function withTenant<T extends object>(input: T, auth: AuthContext): T & { tenant: Tenant } {
  const tenant = auth.merchantId === null ? undefined : { merchantId: auth.merchantId, livemode: auth.livemode };
  return Object.defineProperty(input, 'tenant', {
    enumerable: true,
    get: () => {
      if (!tenant) throw new Error('This operation is public: it has no tenant.');
      return tenant;
    },
  }) as T & { tenant: Tenant };
}

/** Runs the operation's handler, by operationId, and writes its answer. A test-mode caller reads its merchant's sandbox clock. */
function runHandler(handlers: HandlerTable, deps: AppDeps): RequestHandler {
  return async (req: Request, res: Response, next) => {
    const route = req.till.route!;
    try {
      const auth = req.till.auth!;
      const clock =
        auth.merchantId === null
          ? deps.clock
          : await tenantClock(deps.database.db, deps.clock, { merchantId: auth.merchantId, livemode: auth.livemode }, deps.sandboxOffsets);
      const input = withTenant(
        {
          path: { ...req.till.params, ...((req as ValidatedRequest).openapi?.pathParams ?? {}), ...req.params },
          query: req.query,
          // Validated against the operation's schema: the handler reads it as its operation's body type.
          body: req.body as HandlerInput<any>['body'],
          headers: req.headers,
          auth,
          db: req.till.beforeCommit ? withBeforeCommit(deps.database.db, req.till.beforeCommit) : deps.database.db,
          deps: clock === deps.clock ? deps : { ...deps, clock },
          // The request's logger is made only when a handler logs (a pino child per request costs).
          get log() {
            return req.till.log;
          },
          requestId: req.till.requestId,
        },
        auth,
      );
      const result = await handlers[route.api][route.operationId]!(input);
      // A stream answers by itself; what fails once it has begun is its own to end.
      if (result.stream) return void result.stream(req, res).catch((err: unknown) => req.till.log.error({ err }, 'stream failed'));
      for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
      if (result.status === 204) res.status(204).send();
      // A file (its handler set its Content-Type): sent as it is, not as JSON.
      else if (Buffer.isBuffer(result.body)) res.status(result.status).send(result.body);
      else res.status(result.status).json(result.body);
    } catch (err) {
      next(err);
    }
  };
}

/**
 * An operation whose contract documents 501 as its only answer (client-token): always 501, whatever
 * the request. (The server-error test helper has no success either, but runs through the pipeline
 * like any operation: its 500 is the error path's.)
 */
function neverSucceeds(route: RouteOperation): boolean {
  const codes = Object.keys(route.operation.responses ?? {});
  return codes.length > 0 && codes.every((code) => code === '501');
}

function notImplemented(route: RouteOperation): AppError {
  return new AppError('not_implemented', { message: `${route.method} ${route.template} (${route.operationId}) is not implemented on this server yet.` });
}

function splitUrl(url: string): [string, string] {
  const i = url.indexOf('?');
  return i === -1 ? [url, ''] : [url.slice(0, i), url.slice(i + 1)];
}
