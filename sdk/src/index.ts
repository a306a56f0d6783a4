/**
 * @till/sdk: the typed client of the Till payment gateway, generated from its OpenAPI contracts.
 *
 * Calls return `{ data, error, response }` and never throw, unless `throwOnError` is set.
 */
export { createCheckoutClient, createCommerceClient } from './client.js';
export type {
  CheckoutAuth,
  CheckoutClient,
  CheckoutClientOptions,
  CommerceClient,
  CommerceClientOptions,
  TillClientOptions,
} from './client.js';
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
  errorClasses,
  tillErrorFrom,
} from './errors.js';
export type { TillErrorType, TillErrorCode, TillErrorDetails, ErrorBody, EnvelopeError } from './errors.js';
export { verifyWebhook, webhookSignatureHeader, signTestWebhook, TillWebhookVerificationError } from './webhooks.js';
export type { VerifyWebhookOptions, WebhookHeaders, TillWebhookVerificationErrorCode } from './webhooks.js';
export type * from './types.js';
