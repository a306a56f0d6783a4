// The operation's span, between the HTTP server span (the HTTP instrumentation's) and the SQL
// statements the operation runs. Installed only when tracing is on (server/tracing.ts).
import { context, type Context, SpanStatusCode, trace } from '@opentelemetry/api';
import type { RequestHandler } from 'express';
import { tracingEnabled } from '../shared/tracing.js';

/**
 * After the operation is resolved: names the server span by the route (`POST /v1/plans`) and runs
 * the rest of the request in a span named by its operationId, ended when the answer is done.
 */
export function traceOperation(): RequestHandler {
  const tracer = trace.getTracer('till');
  return (req, res, next) => {
    const route = req.till.route;
    if (!route) return next();
    const server = trace.getActiveSpan();
    server?.updateName(`${req.method} ${route.template}`);
    server?.setAttribute('http.route', route.template);
    const span = tracer.startSpan(route.operationId, { attributes: { 'till.operation_id': route.operationId, 'till.api': route.api } });
    res.once('close', () => {
      span.setAttribute('http.response.status_code', res.statusCode);
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    context.with(trace.setSpan(context.active(), span), next);
  };
}

/**
 * `handler` (one that reads the body) calls on in the trace context it was called in: the body's
 * stream events would otherwise bring back the HTTP server span's, and the operation's statements
 * would lose their operation. Unchanged when tracing is off.
 */
export function keepTraceContext(handler: RequestHandler): RequestHandler {
  if (!tracingEnabled()) return handler;
  return (req, res, next) => {
    const active: Context = context.active();
    return handler(req, res, (err?: unknown) => context.with(active, () => next(err)));
  };
}
