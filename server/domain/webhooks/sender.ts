import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type * as Undici from 'undici';
import { isAllowedTarget, isInvalidName, isLoopbackAddress } from '../../shared/public-url.js';
import { TtlCache } from '../../shared/ttl-cache.js';
import { activeTraceparent, inSpan, SpanKind, tracingEnabled } from '../../shared/tracing.js';

/** What one attempt came to, for the delivery log. */
export interface AttemptOutcome {
  ok: boolean;
  httpStatus: number | null;
  durationMs: number;
  /** The first 1000 characters of the answer body; null when there was none. */
  responseSnippet: string | null;
  /** `timeout`, `connection_refused`, `tls_error`, `dns_error`, `address_not_allowed`, `connection_error` or `http_status`; null on success. */
  error: string | null;
  /** The headers of the request made (whether or not it reached the endpoint); absent when none was made. */
  requestHeaders?: Record<string, string>;
}

export interface SendOptions {
  url: string;
  secret: string;
  eventId: string;
  eventType: string;
  body: string;
  /** Unix seconds of this attempt (from the Clock). */
  timestamp: number;
  timeoutMs: number;
  /** Loopback targets are allowed (`TILL_ALLOW_LOOPBACK_WEBHOOKS`, test-mode deliveries only). */
  allowLoopback: boolean;
}

const SNIPPET = 1000;
const MAX_READ = 64 * 1024;

/**
 * The start of an answer body, for the delivery log: never half of a character whose UTF-16 form
 * is a surrogate pair (an emoji), cut at the limit. PostgreSQL text cannot hold U+0000: a
 * receiver answering with a NUL byte would make the attempt impossible to record (and the
 * delivery would be sent again and again), so NULs become U+FFFD.
 */
function snippetOf(text: string): string | null {
  if (text.length === 0) return null;
  const end = text.length > SNIPPET && isHighSurrogate(text.charCodeAt(SNIPPET - 1)) ? SNIPPET - 1 : SNIPPET;
  return text.slice(0, end).replaceAll('\u0000', '\uFFFD');
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** Signing keys by secret, made once (a key made from a string for every attempt costs as much as the HMAC); the last 1,000. */
const keys = new TtlCache<string, KeyObject>(Infinity, 1_000);

function keyOf(kind: 'plain' | 'standard', secret: string, material: () => Buffer): KeyObject {
  const id = `${kind}:${secret}`;
  let key = keys.get(id);
  if (!key) {
    key = createSecretKey(material());
    keys.set(id, key);
  }
  return key;
}

/** `sha256=` and the lower-case hex HMAC-SHA256 of the raw body, keyed with the secret's UTF-8 bytes. */
export function signatureHeader(body: string, secret: string): string {
  const key = keyOf('plain', secret, () => Buffer.from(secret, 'utf8'));
  return `sha256=${createHmac('sha256', key).update(body, 'utf8').digest('hex')}`;
}

/**
 * The Standard Webhooks key of a secret: for `whsec_<base64>` (as Till generates them) the decoded
 * bytes after the prefix, as Standard Webhooks libraries expect; for any other secret its UTF-8 bytes.
 */
export function standardWebhooksKey(secret: string): Buffer {
  if (secret.startsWith('whsec_')) {
    const b64 = secret.slice('whsec_'.length);
    if (/^[A-Za-z0-9+/]+={0,2}$/.test(b64) && b64.length % 4 === 0) return Buffer.from(b64, 'base64');
  }
  return Buffer.from(secret, 'utf8');
}

/** `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` (Standard Webhooks). */
export function standardSignatureHeader(id: string, timestamp: number, body: string, secret: string): string {
  const key = keyOf('standard', secret, () => standardWebhooksKey(secret));
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64')}`;
}

/**
 * The latest attempts' two signatures, by secret, event and second (the last 1,000): the sandbox
 * clock's catch-up makes a delivery's retries within a second or two, each signed the same.
 */
const signatures = new TtlCache<string, { body: string; plain: string; standard: string }>(Infinity, 1_000);

/** The two signatures of an attempt (signatureHeader, standardSignatureHeader), made once for the same secret, event, second and body. */
function signaturesOf({ secret, eventId, timestamp, body }: Pick<SendOptions, 'secret' | 'eventId' | 'body' | 'timestamp'>) {
  const id = `${secret}\u0000${eventId}\u0000${timestamp}`;
  const known = signatures.get(id);
  if (known?.body === body) return known;
  const made = { body, plain: signatureHeader(body, secret), standard: standardSignatureHeader(eventId, timestamp, body, secret) };
  signatures.set(id, made);
  return made;
}

/** Every header of a delivery attempt. */
export function deliveryHeaders(options: Pick<SendOptions, 'secret' | 'eventId' | 'eventType' | 'body' | 'timestamp'>): Record<string, string> {
  const signed = signaturesOf(options);
  return {
    'content-type': 'application/json',
    'user-agent': 'Till-Webhooks/1.0',
    'x-webhook-signature': signed.plain,
    'x-webhook-id': options.eventId,
    'x-webhook-event': options.eventType,
    'x-webhook-timestamp': String(options.timestamp),
    'webhook-id': options.eventId,
    'webhook-timestamp': String(options.timestamp),
    'webhook-signature': signed.standard,
  };
}

class BlockedAddressError extends Error {
  code = 'EWEBHOOKBLOCKED';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for the connection that resolves the name and refuses it when any address it
 * resolves to is loopback, private, link-local, unique-local or otherwise not public: the check
 * happens at connect time, on the addresses actually used, so DNS rebinding cannot slip past it.
 */
function guardedLookup(allowLoopback: boolean): LookupFunction {
  return (hostname: string, options: LookupOptions | number, callback: LookupCallback) => {
    const opts = typeof options === 'number' ? { family: options } : (options ?? {});
    if (isInvalidName(hostname)) {
      const notFound = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
      process.nextTick(callback, notFound, '');
      return;
    }
    dnsLookup(hostname, { family: opts.family ?? 0, all: true, verbatim: true }, (err, addresses) => {
      if (err) return callback(err, '');
      const list = addresses as LookupAddress[];
      const refused = list.find((a) => !isAllowedTarget(a.address, allowLoopback));
      if (refused || list.length === 0)
        return callback(new BlockedAddressError(`${hostname} resolves to ${refused?.address ?? 'nothing'}, which webhooks may not reach`), '');
      if (opts.all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

/** The HTTP client, loaded at the first attempt: loading it took a tenth of a second of every start. */
let client: Promise<typeof Undici> | undefined;
const undici = (): Promise<typeof Undici> => (client ??= import('undici'));

/** One connection pool per kind of target (loopback allowed, certificate checked), kept alive between attempts. */
const agents = new Map<string, Undici.Agent>();
function agentFor({ Agent }: typeof Undici, allowLoopback: boolean, insecure: boolean): Undici.Agent {
  const key = `${allowLoopback}:${insecure}`;
  let agent = agents.get(key);
  if (!agent) {
    agent = new Agent({
      connections: 64,
      keepAliveTimeout: 30_000,
      connect: { lookup: guardedLookup(allowLoopback), rejectUnauthorized: !insecure },
    });
    agents.set(key, agent);
  }
  return agent;
}

function errorKind(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code ?? '';
  if (code === 'EWEBHOOKBLOCKED') return 'address_not_allowed';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') return 'dns_error';
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'timeout';
  if (/CERT|TLS|SSL|SELF_SIGNED|ERR_SSL/i.test(code) || /certificate|tls|ssl/i.test((err as Error)?.message ?? '')) return 'tls_error';
  return 'connection_error';
}

/** What an answer came to: its status, and the start of its body (what arrived of it, should it be cut short). */
async function outcomeOf(status: number, body: AsyncIterable<Buffer>): Promise<Omit<AttemptOutcome, 'durationMs'>> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      if (size < MAX_READ) chunks.push(chunk);
      size += chunk.length;
    }
  } catch {
    // The answer was cut short: what arrived of it is the snippet.
  }
  const ok = status >= 200 && status < 300;
  const httpStatus = status >= 100 && status <= 599 ? status : null;
  return { ok, httpStatus, responseSnippet: snippetOf(Buffer.concat(chunks).toString('utf8')), error: ok ? null : 'http_status' };
}

/** Where an attempt goes, and whether its certificate goes unchecked (a loopback receiver in development). */
interface Target {
  url: URL;
  insecure: boolean;
}

/** The target of an attempt, or why there can be none. */
function targetOf(options: SendOptions): Target | { error: string } {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    return { error: 'invalid_url' };
  }
  if (url.protocol !== 'https:') return { error: 'invalid_url' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // An IP literal is connected to without a lookup: check it here.
  if (isIP(host) && !isAllowedTarget(host, options.allowLoopback)) return { error: 'address_not_allowed' };
  // A local development receiver on loopback has a self-signed certificate.
  return { url, insecure: options.allowLoopback && (isLoopbackAddress(host) || host.toLowerCase() === 'localhost') };
}

const TIMED_OUT = { ok: false, httpStatus: null, responseSnippet: null, error: 'timeout' } as const;

/** The request itself: what its answer came to, or the failure to get one (`timeout` once aborted). Never throws. */
async function post(target: Target, options: SendOptions, headers: Record<string, string>, signal: AbortSignal): Promise<Omit<AttemptOutcome, 'durationMs'>> {
  try {
    const http = await undici();
    const traceparent = activeTraceparent(); // the receiver learns the trace (null with tracing off)
    const res = await http.request(target.url, {
      method: 'POST',
      headers: traceparent ? { ...headers, traceparent } : headers,
      body: options.body,
      dispatcher: agentFor(http, options.allowLoopback, target.insecure),
      signal,
    });
    const outcome = await outcomeOf(res.statusCode, res.body);
    return signal.aborted ? TIMED_OUT : outcome;
  } catch (err) {
    return signal.aborted ? TIMED_OUT : { ok: false, httpStatus: null, responseSnippet: null, error: errorKind(err) };
  }
}

/** post, as a client span of its own under the active one when tracing is on. */
function tracedPost(target: Target, options: SendOptions, headers: Record<string, string>, signal: AbortSignal): ReturnType<typeof post> {
  if (!tracingEnabled()) return post(target, options, headers, signal);
  const attributes = { 'http.request.method': 'POST', 'server.address': target.url.hostname, 'server.port': Number(target.url.port || 443) };
  return inSpan('POST', { kind: SpanKind.CLIENT, attributes, requireParent: true }, async (span) => {
    const outcome = await post(target, options, headers, signal);
    if (outcome.httpStatus !== null) span?.setAttribute('http.response.status_code', outcome.httpStatus);
    if (outcome.error !== null) span?.setAttribute('error.type', outcome.error);
    return outcome;
  });
}

/**
 * POSTs one delivery attempt (undici): the raw body with the signature headers, no redirect
 * followed, at most `timeoutMs` for the whole answer. Any 2xx is success. Never throws. The timeout
 * answers on its own, then aborts the request: undici lets an aborted request go only once the
 * connection it waits for is made or has failed (a name that takes seconds to resolve, say).
 */
export async function sendWebhook(options: SendOptions): Promise<AttemptOutcome> {
  const target = targetOf(options);
  if ('error' in target) return { ok: false, httpStatus: null, durationMs: 0, responseSnippet: null, error: target.error };
  const started = process.hrtime.bigint();
  const headers = deliveryHeaders(options);
  const done = (outcome: Omit<AttemptOutcome, 'durationMs'>, durationMs = Math.round(Number(process.hrtime.bigint() - started) / 1e6)): AttemptOutcome => ({
    ...outcome,
    durationMs: Math.min(options.timeoutMs, durationMs),
    requestHeaders: headers,
  });
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<AttemptOutcome>((resolve) => {
    timer = setTimeout(() => {
      // The timeout's duration is the timeout: the timer counts from the event loop's time, which
      // can be a millisecond before `started`, and measured it read 399 in a CI run.
      resolve(done(TIMED_OUT, options.timeoutMs));
      abort.abort();
    }, options.timeoutMs);
  });
  try {
    return await Promise.race([tracedPost(target, options, headers, abort.signal).then(done), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
