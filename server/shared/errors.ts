import type { ErrorCode, ErrorType } from './vocabulary.generated.js';

export type { ErrorCode, ErrorType };
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface CatalogEntry {
  /** The status it answers with; `alternatives` lists the others a thrower may choose. */
  status: number;
  alternatives?: number[];
  /** Default message; a thrower may pass a more specific one. */
  message: string;
  /** How loudly the server logs it. */
  logLevel: LogLevel;
  /** Whether retrying the same request may succeed. */
  retryable?: boolean;
}

/** The one error catalog. `Record<ErrorCode, …>` makes the compiler insist on every code of the contract. */
export const catalog: Record<ErrorCode, CatalogEntry> = {
  amount_too_small: { status: 400, message: 'The amount is below the minimum of 1.00.', logLevel: 'info' },
  validation_error: { status: 400, message: 'The request breaks a rule of this operation.', logLevel: 'info' },
  parameter_missing: { status: 400, message: 'A required parameter is missing.', logLevel: 'info' },
  parameter_invalid: { status: 400, message: 'A parameter is invalid.', logLevel: 'info' },
  parameter_unknown: { status: 400, message: 'A parameter that this operation does not accept was sent.', logLevel: 'info' },
  invalid_json: { status: 400, message: 'The request body is not valid JSON.', logLevel: 'info' },
  field_immutable: { status: 400, message: 'This field cannot be changed.', logLevel: 'info' },
  session_not_payable: { status: 400, message: 'This checkout session is cancelled or expired and cannot be paid.', logLevel: 'info' },
  subscription_not_pausable: { status: 400, message: 'Only a subscription that is not paused or canceled can be paused.', logLevel: 'info' },
  subscription_not_resumable: { status: 400, message: 'Only a paused subscription can be resumed.', logLevel: 'info' },
  subscription_not_changeable: { status: 400, message: 'Only an active or trialing subscription can change plan.', logLevel: 'info' },
  subscription_item_not_metered: { status: 400, message: 'Usage can be recorded only for subscription items of a Usage plan.', logLevel: 'info' },
  card_declined: { status: 400, message: 'The card was declined.', logLevel: 'info' },
  invalid_card: { status: 400, message: 'The card number, expiry or CVC is not valid.', logLevel: 'info' },
  otp_invalid: { status: 400, message: 'The one-time code is wrong or has expired.', logLevel: 'info' },
  verification_code_invalid: { status: 400, message: 'The verification code is wrong or has expired.', logLevel: 'info' },
  partial_refund_not_supported: { status: 400, message: 'Wallet QR payments can only be refunded in full.', logLevel: 'info' },
  payment_not_refundable: { status: 400, alternatives: [409], message: 'This payment cannot be refunded through the API.', logLevel: 'info' },
  authentication_required: {
    status: 401,
    message: 'No API key was sent. Send `Authorization: Bearer sk_test_...` (or `x-api-key` on the Commerce interface).',
    logLevel: 'info',
  },
  invalid_api_key: {
    status: 401,
    message: 'The API key is not valid. Check that you copied the whole key and that it has not been revoked.',
    logLevel: 'info',
  },
  invalid_client_secret: {
    status: 401,
    message: 'The X-Client-Secret header is missing or does not belong to this checkout session. Send the clientSecret returned when the session was created.',
    logLevel: 'info',
  },
  permission_denied: { status: 403, message: 'This key does not have the scope this operation needs.', logLevel: 'info' },
  livemode_not_allowed: { status: 403, message: 'This operation is available in test mode only. Use a test secret key (sk_test_...).', logLevel: 'info' },
  secret_key_in_browser: {
    status: 403,
    message:
      "A secret key was sent from a browser. Secret keys belong on your server only: revoke this one if it was published, and call from the browser with the publishable key and the session's client secret.",
    logLevel: 'warn',
  },
  card_locked: { status: 403, message: 'Too many wrong codes for this card. Try again later or use another card.', logLevel: 'info' },
  resource_not_found: { status: 404, message: 'No such object.', logLevel: 'info' },
  route_not_found: { status: 404, message: 'No operation at this method and path.', logLevel: 'info' },
  invoice_not_found: { status: 404, message: 'No such invoice.', logLevel: 'info' },
  invoice_not_payable: { status: 409, message: 'This invoice cannot be paid.', logLevel: 'info' },
  session_already_completed: { status: 409, message: 'This checkout session is completed; refund its payment instead.', logLevel: 'info' },
  invalid_state: { status: 409, message: 'The object is in a state that does not allow this operation.', logLevel: 'info' },
  nothing_to_refund: { status: 409, message: 'This checkout session has no payment to refund.', logLevel: 'info' },
  refund_failed: { status: 409, alternatives: [502], message: 'The refund failed.', logLevel: 'warn' },
  hold_not_capturable: { status: 409, message: 'This payment is not an open card hold that can be captured.', logLevel: 'info' },
  idempotency_key_reused: {
    status: 409,
    message: 'This Idempotency-Key was already used with different parameters. Use a new key for a new request.',
    logLevel: 'info',
  },
  idempotency_request_in_progress: {
    status: 409,
    message: 'A request with this Idempotency-Key is still in progress. Retry in a moment.',
    logLevel: 'info',
    retryable: true,
  },
  idempotency_answer_lost: {
    status: 409,
    message:
      'The first request with this Idempotency-Key completed, but its answer could not be kept. It will not run again: retrieve the object to see the outcome.',
    logLevel: 'warn',
  },
  rate_limit_exceeded: {
    status: 429,
    message: 'Too many requests. Wait for the seconds in Retry-After, then retry with backoff.',
    logLevel: 'info',
    retryable: true,
  },
  internal_error: {
    status: 500,
    message: 'Something went wrong on our side. Retry with backoff and quote the request id if it persists.',
    logLevel: 'error',
    retryable: true,
  },
  service_unavailable: {
    status: 503,
    message: 'The service is briefly unavailable and nothing of this request was kept. Retry after the Retry-After seconds.',
    logLevel: 'warn',
    retryable: true,
  },
  not_implemented: { status: 501, message: 'This operation is not implemented on this server yet.', logLevel: 'info' },
  processing_error: { status: 502, message: 'The payment processor did not answer. Retrying is safe.', logLevel: 'warn', retryable: true },
  hold_operation_failed: {
    status: 502,
    message: 'The processor could not complete the capture or release. Retrying is safe.',
    logLevel: 'warn',
    retryable: true,
  },
};

/** The error type each status belongs to. */
export const typeForStatus: Record<number, ErrorType> = {
  400: 'invalid_request',
  401: 'authentication',
  403: 'permission_denied',
  404: 'not_found',
  409: 'conflict',
  429: 'rate_limit',
  500: 'server_error',
  501: 'not_implemented',
  502: 'processor_error',
  503: 'server_error',
};

/**
 * Detail carried by envelope errors: refund failures say whether the payment can still be refunded
 * and why. (The edge renders it as the contract's `EnvelopeErrorData`; the compiler checks there
 * that this fits.)
 */
/** Why a payment can or cannot be refunded now. */
export type RefundReason =
  'refundable' | 'no_payment' | 'not_paid' | 'already_refunded' | 'refund_pending' | 'refund_failed' | 'settled' | 'method_not_supported' | 'disputed';

export interface ErrorData {
  refundable?: boolean;
  reason?: RefundReason;
  manualRefundRequired?: boolean;
  retryable?: boolean;
}

/** A failure that domain code throws; the error middleware renders it in the interface's shape. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: ErrorType;
  readonly param: string | undefined;
  readonly data: ErrorData | undefined;
  readonly retryable: boolean | undefined;
  readonly logLevel: LogLevel;
  /** Seconds to wait before retrying (the `Retry-After` header), when the thrower knows them. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCode,
    options: { message?: string; param?: string; status?: number; data?: ErrorData; retryable?: boolean; retryAfterSeconds?: number } = {},
  ) {
    const entry = catalog[code];
    super(options.message ?? entry.message);
    this.name = 'AppError';
    const status = options.status ?? entry.status;
    if (status !== entry.status && !entry.alternatives?.includes(status)) {
      throw new Error(`Error code ${code} cannot answer with status ${status}.`);
    }
    this.code = code;
    this.status = status;
    this.type = typeForStatus[status] ?? 'server_error';
    this.param = options.param;
    this.data = options.data;
    this.retryable = options.retryable ?? entry.retryable;
    this.logLevel = entry.logLevel;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export const isAppError = (err: unknown): err is AppError => err instanceof AppError;
