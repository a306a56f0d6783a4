/**
 * @till/sdk: the typed client of the Till payment gateway, generated from its OpenAPI contracts.
 * Browser-safe: webhook verification, which needs `node:crypto`, is the `@till/sdk/webhooks` entry.
 *
 * Calls return `{ data, error, response }` and never throw an answer unless `throwOnError` is set;
 * no answer at all rejects with `TillConnectionError`.
 */
export { createCheckoutClient, createCommerceClient } from './client.js';
export type { CheckoutAuth, CheckoutClient, CheckoutClientOptions, CommerceClient, CommerceClientOptions, TillClient, TillClientOptions } from './client.js';
export type { CallOptions, RetryOptions } from './retry.js';
export type { ListItem, ListItemOf, ListPath, TillList } from './pagination.js';
export {
  TillError,
  TillInvalidRequestError,
  TillAuthenticationError,
  TillPermissionError,
  TillNotFoundError,
  TillConflictError,
  TillRateLimitError,
  TillServerError,
  TillNotImplementedError,
  TillProcessorError,
  TillConnectionError,
  errorClasses,
  tillErrorFrom,
} from './errors.js';
export type { TillConnectionErrorCode, TillErrorType, TillErrorCode, TillErrorDetails, ErrorBody, EnvelopeError } from './errors.js';
export type * from './types.js';
