import type { components } from '../../generated/checkout.js';

/** The class of an error, as the contract's `ErrorType` enumerates it. */
export type TillErrorType = components['schemas']['ErrorType'];
/** A stable error code from the contract's one error catalog (`ErrorCode`). */
export type TillErrorCode = components['schemas']['ErrorCode'];
/** The general error body: `{ error: { type, code, message, param } }`. */
export type ErrorBody = components['schemas']['ErrorBody'];
/** The envelope form used by subscription, plan and customer endpoints and by refund failures. */
export type EnvelopeError = components['schemas']['EnvelopeError'];

/** What a Till error carries, whichever of the two body shapes the server answered with. */
export interface TillErrorDetails {
  type: TillErrorType;
  code: TillErrorCode | string;
  message: string;
  param?: string | undefined;
  statusCode: number;
  requestId?: string | undefined;
  retryable?: boolean | undefined;
  /** The `data` of an envelope error (refund failures carry `refundable`, `reason`, ...). */
  data?: EnvelopeError['data'] | undefined;
  /** The body exactly as received. */
  raw: unknown;
}

/**
 * Base class of every error the SDK throws: an answer of the server (when `throwOnError` is on,
 * and always from the list iterators) or, as `TillConnectionError`, no answer at all.
 */
export class TillError extends Error {
  readonly type: TillErrorType | 'connection_error';
  readonly code: TillErrorCode | string;
  readonly param: string | undefined;
  /** The HTTP status of the answer (the same as `statusCode`). */
  readonly status: number;
  readonly statusCode: number;
  readonly requestId: string | undefined;
  readonly retryable: boolean | undefined;
  readonly data: EnvelopeError['data'] | undefined;
  readonly raw: unknown;

  constructor(details: TillErrorDetails) {
    super(details.message);
    this.name = new.target.name;
    this.type = details.type;
    this.code = details.code;
    this.param = details.param;
    this.status = details.statusCode;
    this.statusCode = details.statusCode;
    this.requestId = details.requestId;
    this.retryable = details.retryable;
    this.data = details.data;
    this.raw = details.raw;
  }
}

/** 400: a parameter is missing or invalid; `param` names it. */
export class TillInvalidRequestError extends TillError {}
/** 401: the key is missing or invalid. */
export class TillAuthenticationError extends TillError {}
/** 403: the key lacks the scope the operation needs. */
export class TillPermissionError extends TillError {}
/** 404: no such object for this merchant and mode. */
export class TillNotFoundError extends TillError {}
/** 409: the object's state does not allow the operation. */
export class TillConflictError extends TillError {}
/** 429: too many requests; wait `Retry-After` seconds. */
export class TillRateLimitError extends TillError {}
/** 500: unexpected server error; retry with backoff. */
export class TillServerError extends TillError {}
/** 501: the operation is not available on this server. */
export class TillNotImplementedError extends TillError {}
/** 502: the processor or wallet failed; retrying the same request is safe. */
export class TillProcessorError extends TillError {}

/** Why no answer came: the connection failed, or the attempt ran past `timeoutMs`. */
export type TillConnectionErrorCode = 'connection_failed' | 'timeout';

/**
 * No answer from the server: the connection was refused or reset, DNS failed, or an attempt ran
 * past `timeoutMs`, on every attempt the retries allowed. `status` is 0; `cause` is the last
 * underlying error. Whether a POST took effect is unknown: repeat it with the same
 * `idempotencyKey` to find out safely.
 */
export class TillConnectionError extends TillError {
  declare readonly type: 'connection_error';
  declare readonly code: TillConnectionErrorCode;

  constructor(code: TillConnectionErrorCode, message: string, options: { cause?: unknown } = {}) {
    super({ type: 'connection_error' as TillErrorType, code, message, statusCode: 0, raw: undefined });
    if (options.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}

/** One class per error type. `Record` makes the compiler insist on every type of the contract. */
export const errorClasses: Record<TillErrorType, typeof TillError> = {
  invalid_request: TillInvalidRequestError,
  authentication: TillAuthenticationError,
  permission_denied: TillPermissionError,
  not_found: TillNotFoundError,
  conflict: TillConflictError,
  rate_limit: TillRateLimitError,
  server_error: TillServerError,
  not_implemented: TillNotImplementedError,
  processor_error: TillProcessorError,
};

const typeByStatus: Record<number, TillErrorType> = {
  400: 'invalid_request',
  401: 'authentication',
  403: 'permission_denied',
  404: 'not_found',
  409: 'conflict',
  429: 'rate_limit',
  500: 'server_error',
  501: 'not_implemented',
  502: 'processor_error',
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const asString = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * Builds the typed error for a failed response from its status and body, accepting both the
 * general body and the envelope form. Unknown shapes still give a useful error.
 */
export function tillErrorFrom(statusCode: number, body: unknown, requestId?: string | null): TillError {
  const fallbackType: TillErrorType = typeByStatus[statusCode] ?? (statusCode >= 500 ? 'server_error' : 'invalid_request');
  let details: TillErrorDetails;
  if (isRecord(body) && isRecord(body.error)) {
    const err = body.error;
    details = {
      type: (asString(err.type) as TillErrorType | undefined) ?? fallbackType,
      code: asString(err.code) ?? 'unknown_error',
      message: asString(err.message) ?? `Request failed with status ${statusCode}.`,
      param: asString(err.param),
      retryable: typeof err.retryable === 'boolean' ? err.retryable : undefined,
      requestId: asString(err.requestId) ?? requestId ?? undefined,
      statusCode,
      raw: body,
    };
  } else if (isRecord(body) && body.success === false) {
    const data = isRecord(body.data) ? (body.data as EnvelopeError['data']) : undefined;
    details = {
      type: (data?.type as TillErrorType | undefined) ?? fallbackType,
      code: asString(body.errorCode) ?? 'unknown_error',
      message: asString(body.errorMessage) ?? `Request failed with status ${statusCode}.`,
      param: data?.param,
      retryable: data?.retryable,
      requestId: data?.requestId ?? requestId ?? undefined,
      data,
      statusCode,
      raw: body,
    };
  } else {
    details = {
      type: fallbackType,
      code: 'unknown_error',
      message: `Request failed with status ${statusCode} and a body that is not a Till error.`,
      requestId: requestId ?? undefined,
      statusCode,
      raw: body,
    };
  }
  const ErrorClass = errorClasses[details.type] ?? TillError;
  return new ErrorClass(details);
}
