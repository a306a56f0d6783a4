// The `@till/sdk/webhooks` entry (Node only: it needs `node:crypto`). Import it only where webhooks
// are received; the main entry stays browser-safe.
//
// Verifying Till webhooks. The primary signature is `X-Webhook-Signature`: `sha256=` and the
// lower-case hex HMAC-SHA256 of the raw body, keyed with the signing secret's UTF-8 bytes. Every
// delivery also carries the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`,
// `webhook-signature`), which sign the time of the attempt: given the request's headers,
// verifyWebhook checks both signatures and applies the tolerance to that time, so retries and
// re-sends (which keep the event's original `created`) verify while replays are still refused.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './types.js';

/** Which check refused a webhook: see `TillWebhookVerificationError`. */
export type TillWebhookVerificationErrorCode =
  | 'raw_body_required'
  | 'secret_missing'
  | 'signature_missing'
  | 'signature_mismatch'
  | 'standard_signature_mismatch'
  | 'id_mismatch'
  | 'invalid_payload'
  | 'event_stale'
  | 'timestamp_stale';

/** Why a webhook was refused: `code` says which check failed, the message what to do. */
export class TillWebhookVerificationError extends Error {
  constructor(
    readonly code: TillWebhookVerificationErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'TillWebhookVerificationError';
  }
}

/**
 * A request's headers: Node's `req.headers` (`IncomingHttpHeaders`), a Fetch `Headers`, or a plain
 * record. Names are matched case-insensitively.
 */
export type WebhookHeaders = { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | number | null | undefined>>;

export interface VerifyWebhookOptions {
  /**
   * How far from now, in seconds, the signed time may be: the attempt's `webhook-timestamp` when
   * the request's headers are passed with the Standard Webhooks headers, otherwise the event's
   * `created`. Default 300.
   */
  toleranceSeconds?: number;
  /** The time to check against (default: now). */
  now?: Date | number;
}

const SIGNATURE = /^sha256=([0-9a-f]{64})$/;
const UNIX_SECONDS = /^\d{1,12}$/;

function hexHmac(body: Uint8Array | string, secret: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(typeof body === 'string' ? Buffer.from(body, 'utf8') : body)
    .digest('hex');
}

/**
 * The Standard Webhooks key of a secret: for `whsec_<base64>` (as Till generates them) the decoded
 * bytes after the prefix, as Standard Webhooks libraries expect; for any other secret its UTF-8
 * bytes. The same rule as the server's.
 */
function standardKey(secret: string): Buffer {
  if (secret.startsWith('whsec_')) {
    const b64 = secret.slice('whsec_'.length);
    if (/^[A-Za-z0-9+/]+={0,2}$/.test(b64) && b64.length % 4 === 0) return Buffer.from(b64, 'base64');
  }
  return Buffer.from(secret, 'utf8');
}

function standardDigest(id: string, timestamp: string, rawBody: string | Uint8Array, secret: string): Buffer {
  const hmac = createHmac('sha256', standardKey(secret)).update(`${id}.${timestamp}.`, 'utf8');
  return hmac.update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody).digest();
}

/**
 * The `X-Webhook-Signature` value Till would send for this body and secret: for your own tests
 * (build a request to your webhook route the way Till would).
 */
export function webhookSignatureHeader(rawBody: string | Uint8Array, secret: string): string {
  return `sha256=${hexHmac(rawBody, secret)}`;
}

/**
 * Builds a signed test delivery of an event: the raw body and every header Till sends with it
 * (`X-Webhook-Signature`, `X-Webhook-Id`, `X-Webhook-Event`, `X-Webhook-Timestamp` and the Standard
 * Webhooks `webhook-id`, `webhook-timestamp`, `webhook-signature`). `now` is the time of the
 * attempt (default: now); the event's `created` is left as it is, so a late retry can be built.
 */
export function signTestWebhook(event: WebhookEvent, secret: string, options: { now?: Date | number } = {}): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(event);
  const now = options.now === undefined ? Date.now() : new Date(options.now).getTime();
  const timestamp = String(Math.floor(now / 1000));
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-webhook-signature': webhookSignatureHeader(body, secret),
      'x-webhook-id': event.id,
      'x-webhook-event': event.type,
      'x-webhook-timestamp': timestamp,
      'webhook-id': event.id,
      'webhook-timestamp': timestamp,
      'webhook-signature': `v1,${standardDigest(event.id, timestamp, body, secret).toString('base64')}`,
    },
  };
}

function isFetchHeaders(headers: WebhookHeaders): headers is { get(name: string): string | null } {
  return typeof (headers as { get?: unknown }).get === 'function';
}

/** Every value of one header (lower-case `name`), whatever the shape of the headers object. */
function headerValues(headers: WebhookHeaders, name: string): string[] {
  if (isFetchHeaders(headers)) {
    const value = headers.get(name);
    return value === null ? [] : [value];
  }
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name || value === undefined || value === null) continue;
    if (Array.isArray(value)) values.push(...value.map(String));
    else values.push(String(value));
  }
  return values;
}

const firstHeader = (headers: WebhookHeaders, name: string): string | undefined => headerValues(headers, name)[0];

function refuse(code: TillWebhookVerificationErrorCode, message: string): never {
  throw new TillWebhookVerificationError(code, message);
}

function nowMs(options: VerifyWebhookOptions): number {
  return options.now === undefined ? Date.now() : new Date(options.now).getTime();
}

/** "120 s ago" or "120 s in the future". */
const distance = (ms: number) => `${Math.round(Math.abs(ms) / 1000)} s ${ms >= 0 ? 'ago' : 'in the future'}`;

function checkPrimarySignature(rawBody: string | Uint8Array, header: string | undefined, secret: string): void {
  if (!header)
    refuse('signature_missing', 'The request has no X-Webhook-Signature header: it did not come from Till (or a proxy dropped the header). Answer 400.');
  const match = SIGNATURE.exec(header.trim());
  const expected = Buffer.from(hexHmac(rawBody, secret), 'hex');
  const given = match ? Buffer.from(match[1]!, 'hex') : Buffer.alloc(expected.length);
  const same = timingSafeEqual(expected, given);
  if (!match || !same) {
    refuse(
      'signature_mismatch',
      "The signature does not match: check that you use the secret of this endpoint and mode (sandbox or live, or the session's notificationSecret) and that you pass the raw body, unparsed. Answer 400.",
    );
  }
}

function parseEvent(rawBody: string | Uint8Array): WebhookEvent {
  let event: unknown;
  try {
    event = JSON.parse(typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody).toString('utf8'));
  } catch {
    refuse('invalid_payload', 'The signed body is not JSON. Answer 400.');
  }
  if (typeof event !== 'object' || event === null || typeof (event as { id?: unknown }).id !== 'string')
    refuse('invalid_payload', 'The signed body is not a Till event (no `id`). Answer 400.');
  return event as WebhookEvent;
}

/** The event's `created` within the tolerance; `hint` says what to do when it is not. */
function checkCreated(event: WebhookEvent, options: VerifyWebhookOptions, hint: string): void {
  const created = Date.parse((event as { created?: string }).created ?? '');
  if (!Number.isFinite(created)) refuse('invalid_payload', 'The event has no valid `created` time. Answer 400.');
  const tolerance = options.toleranceSeconds ?? 300;
  const age = nowMs(options) - created;
  if (Math.abs(age) > tolerance * 1000) {
    refuse('event_stale', `The event was created ${distance(age)}, outside the tolerance of ${tolerance} s. ${hint}`);
  }
}

/**
 * The Standard Webhooks headers, when present: `webhook-signature` (any of its space-separated
 * `v1,` signatures, in constant time) over `id.timestamp.body`, `webhook-id` naming this event,
 * and the signed attempt time within the tolerance. False when the request has none of them.
 */
function checkStandardHeaders(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  event: WebhookEvent,
  options: VerifyWebhookOptions,
): boolean {
  const id = firstHeader(headers, 'webhook-id');
  const timestamp = firstHeader(headers, 'webhook-timestamp')?.trim();
  const signatures = headerValues(headers, 'webhook-signature');
  if (id === undefined && timestamp === undefined && signatures.length === 0) return false;
  if (id === undefined || timestamp === undefined || signatures.length === 0) {
    refuse(
      'standard_signature_mismatch',
      'The request has only some of the Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature): pass every header of the request (req.headers), and make sure no proxy drops one of them. Answer 400.',
    );
  }
  if (!UNIX_SECONDS.test(timestamp))
    refuse('standard_signature_mismatch', 'webhook-timestamp is not Unix seconds: the request did not come from Till as sent. Answer 400.');
  const expected = standardDigest(id, timestamp, rawBody, secret);
  let matched = false;
  // Several signatures may be sent, separated by spaces (a joined header may add commas).
  for (const token of signatures.join(' ').split(/\s+/)) {
    const b64 = /^v1,([A-Za-z0-9+/]+={0,2}),?$/.exec(token)?.[1];
    const given = b64 ? Buffer.from(b64, 'base64') : Buffer.alloc(0);
    // Compare every candidate in full, in constant time for its length.
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  if (!matched) {
    refuse(
      'standard_signature_mismatch',
      "The webhook-signature does not match webhook-id, webhook-timestamp and the body: check that you use the secret of this endpoint and mode exactly as shown (whsec_ prefix included) and that you pass the raw body and the request's headers unchanged. Answer 400.",
    );
  }
  if (id !== event.id) refuse('id_mismatch', `webhook-id (${id}) is not the event's id (${event.id}): the headers belong to another delivery. Answer 400.`);
  const tolerance = options.toleranceSeconds ?? 300;
  const age = nowMs(options) - Number(timestamp) * 1000;
  if (Math.abs(age) > tolerance * 1000) {
    refuse(
      'timestamp_stale',
      `This delivery attempt was signed ${distance(age)} (webhook-timestamp), outside the tolerance of ${tolerance} s: it is a replay of an earlier attempt, or your clock is off. Answer 400 and check your clock; Till signs every retry and re-send with a fresh timestamp.`,
    );
  }
  return true;
}

/**
 * Verifies a Till webhook and returns its typed event. Throws a `TillWebhookVerificationError`
 * that says what to do otherwise. De-duplicate on the event's `id`.
 *
 * - `rawBody`: the request body exactly as it arrived (a string or the bytes, e.g. with
 *   `express.raw({ type: 'application/json' })`), never a parsed object.
 * - `headers`: preferably the request's headers (`req.headers`, a Fetch `Headers` or a record).
 *   `X-Webhook-Signature` is required and compared in constant time, and `X-Webhook-Id`, when
 *   present, must be the event's id; when the Standard Webhooks
 *   headers are there too, `webhook-signature` is verified over `webhook-id.webhook-timestamp.body`,
 *   `webhook-id` must be the event's id, and `webhook-timestamp` (the time of this attempt) must be
 *   within `toleranceSeconds` (300) of now: a retry or re-send hours after the event verifies, a
 *   replayed old attempt does not. Without them, the event's `created` is checked instead.
 * - Or just the `X-Webhook-Signature` value: the signature, then the event's `created` within the
 *   tolerance (so a retry or re-send more than 5 minutes after the event is refused).
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders | string | readonly string[] | null | undefined,
  secret: string,
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
    refuse(
      'raw_body_required',
      'Pass the raw request body (a string or Buffer) exactly as received, not a parsed object: a body parsed and serialised again no longer matches its signature. In Express use express.raw({ type: "application/json" }) on the webhook route.',
    );
  }
  if (!secret)
    refuse(
      'secret_missing',
      "Pass the signing secret of this endpoint (the whsec_... shown when the webhook configuration was created, or the session's notificationSecret).",
    );

  if (headers === null || headers === undefined || typeof headers === 'string' || Array.isArray(headers)) {
    const signature = typeof headers === 'string' ? headers : (headers as readonly string[] | null | undefined)?.[0];
    checkPrimarySignature(rawBody, signature, secret);
    const event = parseEvent(rawBody);
    checkCreated(
      event,
      options,
      "This may be a retry or a re-send (they keep the event's original created) or an event of an advanced sandbox clock: pass req.headers instead of the signature string so the per-attempt timestamp is checked, or raise toleranceSeconds. Otherwise it may be a replay: answer 400 (and check your clock).",
    );
    return event;
  }

  const requestHeaders = headers as WebhookHeaders;
  checkPrimarySignature(rawBody, firstHeader(requestHeaders, 'x-webhook-signature'), secret);
  const event = parseEvent(rawBody);
  const primaryId = firstHeader(requestHeaders, 'x-webhook-id');
  if (primaryId !== undefined && primaryId !== event.id)
    refuse('id_mismatch', `X-Webhook-Id (${primaryId}) is not the event's id (${event.id}): the headers belong to another delivery. Answer 400.`);
  if (!checkStandardHeaders(rawBody, requestHeaders, secret, event, options)) {
    checkCreated(
      event,
      options,
      "The request has no Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature), so the event's created was checked, and a retry or re-send keeps the original one: make sure your proxy forwards those headers, or raise toleranceSeconds. Otherwise it may be a replay: answer 400.",
    );
  }
  return event;
}

export type { WebhookEvent, WebhookEventOf, WebhookEventType } from './types.js';
