import type { ErrorRequestHandler, Request, Response } from 'express';
import type { components } from '../../generated/checkout.js';
import { isConnectionFailure } from '../db/errors.js';
import { AppError, type ErrorCode } from '../shared/errors.js';

/** A validator error item: where (`/body/amount`, `/query/limit`, `/path/id`) and what. */
interface ValidationItem {
  path?: string;
  message?: string;
  errorCode?: string;
  /** Ajv's parameters of the error: the property an `additionalProperties` error names. */
  params?: { additionalProperty?: string };
}

/** Turns `/body/lineItems/0/name` into `lineItems.0.name`, `/headers/idempotency-key` into `Idempotency-Key`. */
function paramOf(path: string | undefined): string | undefined {
  if (!path) return undefined;
  const parts = path.replace(/^[./]/, '').split(/[./]/).filter(Boolean);
  const [where, ...rest] = parts;
  if (rest.length === 0) return where === 'body' ? undefined : where;
  if (where === 'headers') return rest.join('-').replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => `${dash}${c.toUpperCase()}`);
  return rest.join('.');
}

/** Maps an express-openapi-validator request error to the catalog, naming the field. */
function fromValidator(err: { status: number; message: string; errors?: ValidationItem[] }): AppError {
  const first = err.errors?.[0] ?? {};
  const kind = first.errorCode ?? '';
  let param = paramOf(first.path);
  let code: ErrorCode = 'parameter_invalid';
  let message = first.message ?? err.message;
  if (kind.startsWith('required')) {
    code = 'parameter_missing';
    // The validator names the object; the message names the property.
    const missing = /must have required property '([^']+)'/.exec(message)?.[1];
    if (missing && param !== missing && !param?.endsWith(`.${missing}`)) param = param ? `${param}.${missing}` : missing;
    message = `${param ?? 'A required parameter'} is required.`;
  } else if (kind.startsWith('additionalProperties')) {
    code = 'parameter_unknown';
    const extra = /must NOT have additional properties|additional properties/.test(message) ? first.params?.additionalProperty : undefined;
    if (extra && param !== extra && !param?.endsWith(`.${extra}`)) param = param ? `${param}.${extra}` : extra;
    message = `${param ?? 'A field'} is not accepted by this operation.`;
  } else if (err.status === 415) {
    message = 'Send the body as JSON with `Content-Type: application/json`.';
  } else if (param) {
    message = `${param} ${message}.`;
  }
  if (param === 'amount' && kind.startsWith('minimum')) {
    // The operation's own minimum (1.00 for a session, 0.01 for a refund), as the contract sets it.
    const limit = Number(/>=?\s*(-?[\d.]+)/.exec(first.message ?? '')?.[1]);
    const least = Number.isFinite(limit) ? limit.toFixed(2) : 'the minimum';
    return new AppError('amount_too_small', { param: 'amount', message: `amount must be at least ${least} in the currency.` });
  }
  return new AppError(code, { param, message });
}

/** Any thrown value as an AppError; unexpected ones become `internal_error`. */
export function toAppError(err: unknown): { error: AppError; unexpected: boolean } {
  if (err instanceof AppError) return { error: err, unexpected: false };
  const e = err as { status?: number; type?: string; errors?: ValidationItem[]; message?: string };
  if (e?.type === 'entity.parse.failed')
    return { error: new AppError('invalid_json', { message: 'The request body is not valid JSON. Check quotes, commas and brackets.' }), unexpected: false };
  if (e?.type === 'entity.too.large')
    return { error: new AppError('parameter_invalid', { message: 'The request body is larger than 1 MiB.' }), unexpected: false };
  if (e?.type === 'encoding.unsupported' || e?.type === 'charset.unsupported') {
    return { error: new AppError('parameter_invalid', { message: 'Send the body as UTF-8 JSON.' }), unexpected: false };
  }
  // The database refused a value the contract lets through (a number out of its column's range,
  // text it cannot read): the caller's input, so a 400, never a 500.
  const dbCode = (err as { code?: unknown })?.code;
  if (dbCode === '22003' || dbCode === '22P02' || dbCode === '22008') {
    return {
      error: new AppError('parameter_invalid', { message: 'A value in the request is out of range or not readable. Check numbers, ids and dates.' }),
      unexpected: false,
    };
  }
  // The database dropped the connection or cannot be reached: the transaction rolled back, so the
  // caller may retry; 503, not an unexpected 500.
  if (isConnectionFailure(err)) return { error: new AppError('service_unavailable'), unexpected: false };
  if (Array.isArray(e?.errors) && typeof e.status === 'number' && (e.status === 400 || e.status === 415)) {
    return { error: fromValidator(e as { status: number; message: string; errors: ValidationItem[] }), unexpected: false };
  }
  // Express's own refusals of the request line (a path segment that is not valid percent-encoding).
  if (err instanceof URIError && e.status === 400) {
    return {
      error: new AppError('parameter_invalid', { message: 'The request URL could not be read: a part of its path is not valid percent-encoding.' }),
      unexpected: false,
    };
  }
  return { error: new AppError('internal_error'), unexpected: true };
}

/** The body of an AppError in the shape the operation documents (general, or the envelope). */
function errorBody(req: Request, error: AppError): components['schemas']['EnvelopeError'] | components['schemas']['ErrorBody'] {
  const requestId = req.till?.requestId;
  if (req.till?.route?.errorShape === 'envelope') {
    // Typed by the contract: the catalog's codes and the domain's ErrorData must fit it.
    return {
      success: false,
      errorCode: error.code,
      errorMessage: error.message,
      data: {
        type: error.type,
        ...(error.param !== undefined ? { param: error.param } : {}),
        ...(error.data ?? {}),
        ...(error.retryable !== undefined && error.data?.retryable === undefined ? { retryable: error.retryable } : {}),
        ...(requestId ? { requestId } : {}),
      },
    };
  }
  return {
    error: {
      type: error.type,
      code: error.code,
      message: error.message,
      ...(error.param !== undefined ? { param: error.param } : {}),
      ...(error.retryable !== undefined ? { retryable: error.retryable } : {}),
      ...(requestId ? { requestId } : {}),
    },
  };
}

/** Writes an AppError in the shape the operation documents (through the validating `res.json`). */
export function renderError(req: Request, res: Response, error: AppError): void {
  res.status(error.status).json(errorBody(req, error));
}

/** How long a caller should wait before retrying after `service_unavailable`. */
const SERVICE_RETRY_AFTER_SECONDS = 1;

/**
 * The last middleware: every failure leaves here in the documented shape. Nothing internal
 * (stack, SQL, keys) reaches the body; an unexpected error is logged with the request id.
 */
export function errorMiddleware(beforeRender: (res: Response) => void): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) return next(err);
    const { error, unexpected } = toAppError(err);
    const log = req.till?.log;
    if (unexpected) log?.error({ err, requestId: req.till?.requestId }, 'unexpected error');
    else
      log?.[error.logLevel === 'error' ? 'error' : error.logLevel === 'warn' ? 'warn' : 'debug']({ code: error.code, status: error.status }, 'request failed');
    beforeRender(res);
    if (error.code === 'service_unavailable') res.setHeader('Retry-After', String(SERVICE_RETRY_AFTER_SECONDS));
    else if (error.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(error.retryAfterSeconds));
    renderError(req, res, error);
  };
}

/**
 * After `errorMiddleware`: an error raised while writing an error (in tests and development, a
 * response that breaks the contract) lands here. It writes a plain 500 `internal_error` without
 * going through the validating `res.json`, so Express's HTML error page never answers.
 */
export function lastResortErrorHandler(beforeRender: (res: Response) => void): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) return next(err);
    req.till?.log.error({ err, requestId: req.till?.requestId }, 'the response broke the contract or could not be written');
    beforeRender(res);
    const body = errorBody(req, new AppError('internal_error'));
    res.status(500).type('application/json').send(JSON.stringify(body));
  };
}
