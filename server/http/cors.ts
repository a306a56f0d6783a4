// CORS: which operations a web page on another origin may call, and how. A browser may hold a
// publishable key and one session's client secret, or nothing at all; never a secret key. So
// exactly the operations that accept those (the publishable-key and client-secret operations of
// the Checkout interface, the PUBLIC operations of the Commerce interface) answer preflights and
// carry CORS headers, for any origin. Secret-key operations carry none, and a secret key sent
// from a browser origin is refused with a clear error, so it is found in development rather than
// after it has leaked.
import type { RequestHandler, Response } from 'express';
import { AppError } from '../shared/errors.js';
import type { RouteOperation, RouteTable } from './routes.js';

/** Headers a page may read on a CORS response: the request id and the rate-limit state. */
export const EXPOSED_HEADERS = ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After', 'Idempotent-Replayed'];

/** How long a browser may keep a preflight answer (seconds). */
const PREFLIGHT_MAX_AGE = 600;

/** Whether a browser may call the operation: it is public, or accepts a publishable key or the client secret. */
export function browserCallable(route: RouteOperation): boolean {
  return route.security.length === 0 || route.security.some((alt) => alt.length === 0 || alt.includes('publishableKey') || alt.includes('clientSecret'));
}

/** The request headers the operation reads, and so the only ones a preflight allows. */
export function headersRead(route: RouteOperation): string[] {
  const headers: string[] = [];
  if (route.security.some((alt) => alt.includes('publishableKey'))) headers.push('Authorization');
  if (route.security.some((alt) => alt.includes('clientSecret'))) headers.push('X-Client-Secret');
  if (route.method === 'POST') headers.push('Idempotency-Key');
  if (route.operation.requestBody) headers.push('Content-Type');
  return headers;
}

/** A secret or restricted key: both belong on a server only. */
const looksSecret = (value: string | undefined) => value !== undefined && /^(Bearer\s+)?(sk|rk)_/i.test(value.trim());

/**
 * Answers preflights (`OPTIONS` with `Access-Control-Request-Method`) before any routing: 204 with
 * the allowed method and headers for an operation a browser may call, 403 with the reason for a
 * secret-key operation (without CORS headers, so the browser stops there), 404 when no operation
 * is at that path.
 */
export function preflight(routes: RouteTable): RequestHandler {
  return (req, res, next) => {
    const method = req.method === 'OPTIONS' ? req.get('access-control-request-method') : undefined;
    if (!method) return next();
    const path = req.url.split('?')[0]!;
    const found = routes.resolve(method.toUpperCase(), path);
    if (found.kind !== 'found')
      return next(new AppError('route_not_found', { message: `No operation at ${method.toUpperCase()} ${path} to allow from a browser.` }));
    if (!browserCallable(found.route)) {
      req.till.route = found.route; // its error shape
      return next(secretKeyOnly(found.route));
    }
    allowOrigin(res);
    res.setHeader('Access-Control-Allow-Methods', found.route.method);
    const headers = headersRead(found.route);
    if (headers.length > 0) res.setHeader('Access-Control-Allow-Headers', headers.join(', '));
    res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE));
    res.status(204).end();
  };
}

/**
 * On an actual request (after routing): CORS headers on every answer of a browser-callable
 * operation, errors included, so the page can read them; and a secret key sent with an `Origin`
 * (that is, from a browser) is refused on every operation.
 */
export function corsHeaders(): RequestHandler {
  return (req, res, next) => {
    const origin = req.get('origin');
    if (origin === undefined) return next();
    const route = req.till.route!;
    if (browserCallable(route)) allowOrigin(res);
    if (looksSecret(req.get('authorization')) || looksSecret(req.get('x-api-key'))) return next(new AppError('secret_key_in_browser'));
    next();
  };
}

function allowOrigin(res: Response): void {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS.join(', '));
}

function secretKeyOnly(route: RouteOperation): AppError {
  return new AppError('secret_key_in_browser', {
    message: `${route.method} ${route.template} (${route.operationId}) takes a secret key, so it cannot be called from a browser. Call it from your server.`,
  });
}
