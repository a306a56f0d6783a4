import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { randomToken } from '../shared/crypto.js';
import { activeTraceId } from '../shared/tracing.js';
import type { RequestContext } from './context.js';

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;

/** A customer-portal token in a path: a credential, so the request log shows only that one was there. */
const PORTAL_TOKEN_IN_PATH = /\/portal\/pt_[^/?]*/g;

/** The path as the request log shows it: without its query, and without a portal token. */
export const loggedPath = (url: string): string => url.split('?')[0]!.replace(PORTAL_TOKEN_IN_PATH, '/portal/pt_[redacted]');

/** This process's part of every request id it makes: a letter and 9 base62 characters, drawn once. */
const REQUEST_ID_PREFIX = `${randomToken(40).replace(/[0-9]/g, '').slice(0, 1) || 'R'}${randomToken(9)}`;
let requestCount = 0;

/**
 * Gives every request an id (echoed as X-Request-Id) and a logger that carries it, its trace id
 * (`trace_id`, when tracing is on) and, once known, the caller. The id is this process's prefix and a counter: unique, cheap, and never a run of
 * digits that a scan for card numbers could mistake for one. The logger is made only when
 * something logs; the closing `request` line is written without one.
 */
export function requestContext(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    const requestId = incoming && REQUEST_ID.test(incoming) ? incoming : `req_${REQUEST_ID_PREFIX}${(++requestCount).toString(36)}`;
    res.setHeader('X-Request-Id', requestId);
    req.till = requestLogContext(logger, requestId);
    const started = process.hrtime.bigint();
    req.till.started = started;
    res.on('finish', () => {
      if (!logger.isLevelEnabled('info')) return;
      logger.info(
        {
          ...req.till.bindings,
          method: req.method,
          path: loggedPath(req.originalUrl),
          operationId: req.till.route?.operationId,
          status: res.statusCode,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
        },
        'request',
      );
    });
    next();
  };
}

function requestLogContext(logger: Logger, requestId: string): RequestContext {
  let log: Logger | undefined;
  const traceId = activeTraceId();
  const bindings: Record<string, unknown> = traceId ? { requestId, trace_id: traceId } : { requestId };
  return {
    requestId,
    bindings,
    get log() {
      return (log ??= logger.child(bindings));
    },
    set log(value: Logger) {
      log = value;
    },
    bind(more: Record<string, unknown>) {
      Object.assign(bindings, more);
      if (log) log = log.child(more);
    },
  };
}
