// Verifying Till webhooks: the `X-Webhook-Signature` header (`sha256=` and the lower-case hex
// HMAC-SHA256 of the raw body, keyed with the signing secret's UTF-8 bytes), then the event's age.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './types.js';

/** Why a webhook was refused: `code` says which check failed. */
export class TillWebhookVerificationError extends Error {
  constructor(
    readonly code: 'raw_body_required' | 'signature_missing' | 'signature_mismatch' | 'event_stale' | 'invalid_payload' | 'secret_missing',
    message: string,
  ) {
    super(message);
    this.name = 'TillWebhookVerificationError';
  }
}

export interface VerifyWebhookOptions {
  /** How old (or how far in the future) `created` may be, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** The time to check against (default: now). */
  now?: Date | number;
}

const SIGNATURE = /^sha256=([0-9a-f]{64})$/;

function hexHmac(body: Uint8Array | string, secret: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body).digest('hex');
}

/**
 * The `X-Webhook-Signature` value Till would send for this body and secret: for your own tests
 * (build a request to your webhook route the way Till would).
 */
export function webhookSignatureHeader(rawBody: string | Uint8Array, secret: string): string {
  return `sha256=${hexHmac(rawBody, secret)}`;
}

/**
 * Builds a signed test delivery of an event: the raw body and the headers Till sends with it
 * (`X-Webhook-Signature`, `X-Webhook-Id`, `X-Webhook-Event`, `X-Webhook-Timestamp`).
 */
export function signTestWebhook(event: WebhookEvent, secret: string, options: { now?: Date | number } = {}): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(event);
  const now = options.now === undefined ? Date.now() : new Date(options.now).getTime();
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-webhook-signature': webhookSignatureHeader(body, secret),
      'x-webhook-id': event.id,
      'x-webhook-event': event.type,
      'x-webhook-timestamp': String(Math.floor(now / 1000)),
    },
  };
}

/**
 * Verifies a Till webhook and returns its typed event. Pass the raw request body exactly as it
 * arrived (a string or the bytes, e.g. `express.raw({ type: 'application/json' })`), the
 * `X-Webhook-Signature` header and the signing secret of that endpoint. The signature is compared
 * in constant time, then `created` must be within `toleranceSeconds` (300) of now. Throws a
 * `TillWebhookVerificationError` that says what to do otherwise. De-duplicate on the event's `id`.
 */
export function verifyWebhook(rawBody: string | Uint8Array, signatureHeader: string | string[] | null | undefined, secret: string, options: VerifyWebhookOptions = {}): WebhookEvent {
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    throw new TillWebhookVerificationError(
      'raw_body_required',
      'Pass the raw request body (a string or Buffer) exactly as received, not a parsed object: a body parsed and serialised again no longer matches its signature. In Express use express.raw({ type: "application/json" }) on the webhook route.',
    );
  }
  if (!secret) throw new TillWebhookVerificationError('secret_missing', 'Pass the signing secret of this endpoint (the whsec_... shown when the webhook configuration was created, or the session\'s notificationSecret).');
  const header = Array.isArray(signatureHeader) ? signatureHeader[0] : signatureHeader;
  if (!header) throw new TillWebhookVerificationError('signature_missing', 'The request has no X-Webhook-Signature header: it did not come from Till. Answer 400.');
  const match = SIGNATURE.exec(header.trim());
  const expected = Buffer.from(hexHmac(rawBody, secret), 'hex');
  const given = match ? Buffer.from(match[1]!, 'hex') : Buffer.alloc(expected.length);
  const same = timingSafeEqual(expected, given);
  if (!match || !same) {
    throw new TillWebhookVerificationError(
      'signature_mismatch',
      'The signature does not match: check that you use the secret of this endpoint and mode (sandbox or live, or the session\'s notificationSecret) and that you pass the raw body, unparsed. Answer 400.',
    );
  }
  let event: WebhookEvent;
  try {
    event = JSON.parse(typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8')) as WebhookEvent;
  } catch {
    throw new TillWebhookVerificationError('invalid_payload', 'The signed body is not JSON. Answer 400.');
  }
  const created = Date.parse((event as { created?: string })?.created ?? '');
  const tolerance = options.toleranceSeconds ?? 300;
  const now = options.now === undefined ? Date.now() : new Date(options.now).getTime();
  if (!Number.isFinite(created)) throw new TillWebhookVerificationError('invalid_payload', 'The event has no valid `created` time. Answer 400.');
  if (Math.abs(now - created) > tolerance * 1000) {
    throw new TillWebhookVerificationError(
      'event_stale',
      `The event was created ${Math.round((now - created) / 1000)} s from now, outside the tolerance of ${tolerance} s: it may be replayed. Answer 400; if your clock is off, fix it. A re-send from the delivery log keeps the original created time, so raise toleranceSeconds to accept late re-sends.`,
    );
  }
  return event;
}
