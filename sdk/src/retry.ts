// Retries, backoff and timeouts, as a `fetch` that openapi-fetch calls once per logical call:
// middleware sees one request and the final response, whatever happened in between.
// Browser-safe: only Fetch, AbortSignal and the global Web Crypto.
import { TillConnectionError } from './errors.js';

/** Retry and timeout settings, per client and per call. */
export interface RetryOptions {
  /** How many times a failed attempt may be repeated (default 2; 0 turns retries off). */
  maxRetries?: number;
  /** How long one attempt may take, in milliseconds, before it counts as a connection failure (default 30 000). */
  timeoutMs?: number;
}

/** What one call may carry besides openapi-fetch's own options. */
export interface CallOptions extends RetryOptions {
  /**
   * The `Idempotency-Key` of a POST. Default: a fresh `crypto.randomUUID()` per call when
   * retries are on and the client authenticates a merchant, reused by every retry of that call.
   */
  idempotencyKey?: string;
}

export const DEFAULT_MAX_RETRIES = 2;
export const DEFAULT_TIMEOUT_MS = 30_000;
/** First backoff step and its ceiling; each retry waits a random time up to the step (full jitter). */
export const INITIAL_DELAY_MS = 500;
export const MAX_DELAY_MS = 8_000;
/** A `Retry-After` longer than this is not waited for: the answer is returned as it is. */
export const MAX_RETRY_AFTER_MS = 60_000;

type Fetch = (input: Request, init?: RequestInit) => Promise<Response>;

export interface RetryingFetchConfig {
  fetch: Fetch;
  maxRetries: number;
  timeoutMs: number;
  idempotencyKey: string | undefined;
  /** Whether the server keys idempotency for this client (it authenticates a merchant). */
  autoIdempotencyKey: boolean;
  /** Test seam: how to wait. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  random?: () => number;
}

/** Methods that HTTP defines as idempotent: repeating them is always safe. */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

/**
 * 409s that mean "busy, try again" rather than "not in this state": a request under the same
 * idempotency key still running, the sandbox clock being advanced by another call, a customer
 * created by a concurrent request. Any other 409 is final. The server may also flag an answer
 * `retryable: true` in its body.
 */
const LOCK_CONFLICTS: { code: string; method?: string; path?: RegExp }[] = [
  { code: 'idempotency_request_in_progress' },
  { code: 'invalid_state', method: 'POST', path: /\/v1\/test-helpers\/clock\/advance$/i },
  { code: 'invalid_state', method: 'POST', path: /\/v1\/customers$/i },
];

/** Statuses worth repeating: timeouts of proxies and the server's own transient failures. Never 501. */
const RETRYABLE_STATUSES = new Set([408, 429, 500, 502, 503, 504]);

/** The delay a `Retry-After` header asks for (seconds or an HTTP date), in milliseconds. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const value = header.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** Exponential backoff with full jitter: a random delay up to min(max, initial × 2^retry). */
export function backoffMs(retry: number, random: () => number = Math.random): number {
  return Math.floor(random() * Math.min(MAX_DELAY_MS, INITIAL_DELAY_MS * 2 ** retry));
}

function defaultSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** The caller's signal and this attempt's timeout as one signal. */
function attemptSignal(callerSignal: AbortSignal, timeoutMs: number): { signal: AbortSignal; timedOut: () => boolean; done: () => void } {
  const controller = new AbortController();
  let expired = false;
  const timer = setTimeout(() => {
    expired = true;
    controller.abort(new DOMException(`The attempt took longer than ${timeoutMs} ms.`, 'TimeoutError'));
  }, timeoutMs);
  const onAbort = () => controller.abort(callerSignal.reason);
  if (callerSignal.aborted) onAbort();
  else callerSignal.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => expired,
    done: () => {
      clearTimeout(timer);
      callerSignal.removeEventListener('abort', onAbort);
    },
  };
}

/** The fields of a JSON value: none unless it is an object. */
const fieldsOf = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {});

/** Reads the error code and `retryable` flag of a 409 from either body shape, without consuming it. */
async function conflictOf(response: Response): Promise<{ code?: string; retryable?: boolean }> {
  try {
    const body = fieldsOf(await response.clone().json());
    const { code, retryable } = body.error ? fieldsOf(body.error) : { code: body.errorCode, retryable: fieldsOf(body.data).retryable };
    return { code: typeof code === 'string' ? code : undefined, retryable: typeof retryable === 'boolean' ? retryable : undefined };
  } catch {
    return {};
  }
}

async function isRetryableAnswer(request: Request, response: Response): Promise<boolean> {
  if (RETRYABLE_STATUSES.has(response.status)) return true;
  if (response.status !== 409) return false;
  const { code, retryable } = await conflictOf(response);
  if (retryable === true) return true;
  const path = new URL(request.url).pathname;
  return LOCK_CONFLICTS.some((c) => c.code === code && (!c.method || c.method === request.method) && (!c.path || c.path.test(path)));
}

/**
 * A `fetch` that repeats one logical call: on a connection failure or timeout, a lock conflict
 * (409), 408, 429 (after `Retry-After`) and 5xx other than 501, for idempotent methods and for
 * POSTs with an `Idempotency-Key` (generated here once when absent and the server keys it).
 * Each attempt has its own timeout. Exhausted retries give the last answer, or throw a
 * `TillConnectionError` when no answer ever came.
 */
export function retryingFetch(config: RetryingFetchConfig): Fetch {
  const sleep = config.sleep ?? defaultSleep;
  const random = config.random ?? Math.random;
  return async (input, init) => {
    const request = input;
    if (request.method === 'POST' && !request.headers.has('idempotency-key')) {
      const key = config.idempotencyKey ?? (config.maxRetries > 0 && config.autoIdempotencyKey ? globalThis.crypto.randomUUID() : undefined);
      if (key !== undefined) request.headers.set('Idempotency-Key', key);
    }
    const mayRetry = IDEMPOTENT_METHODS.has(request.method) || (request.method === 'POST' && request.headers.has('idempotency-key'));
    const maxRetries = mayRetry ? Math.max(0, config.maxRetries) : 0;

    // A POST's earlier 5xx answer: if our own retry then only hears that its key is "in
    // progress" (the server kept the key of a failed attempt), that earlier answer says more.
    let earlier: Response | undefined;
    for (let retry = 0; ; retry++) {
      const attempt = attemptSignal(request.signal, config.timeoutMs);
      let response: Response;
      try {
        response = await config.fetch(request.clone(), { ...init, signal: attempt.signal });
      } catch (error) {
        attempt.done();
        // The caller's own abort is theirs to handle: rethrow it as it is.
        if (request.signal.aborted) throw error;
        const connectionError = attempt.timedOut()
          ? new TillConnectionError(
              'timeout',
              `Till did not answer ${request.method} ${request.url} within ${config.timeoutMs} ms (attempt ${retry + 1} of ${maxRetries + 1}). Raise timeoutMs, or check that the server is up.`,
              { cause: error },
            )
          : new TillConnectionError(
              'connection_failed',
              `Could not reach Till for ${request.method} ${request.url} (attempt ${retry + 1} of ${maxRetries + 1}): ${(error as Error)?.message ?? error}. Check baseUrl and the network.`,
              { cause: error },
            );
        if (retry >= maxRetries) throw connectionError;
        await sleep(backoffMs(retry, random), request.signal);
        continue;
      }
      attempt.done();
      if (earlier && response.status === 409 && (await conflictOf(response)).code === 'idempotency_request_in_progress') {
        await response.body?.cancel().catch(() => undefined);
        return earlier;
      }
      if (retry >= maxRetries || !(await isRetryableAnswer(request, response))) return response;
      const asked = retryAfterMs(response.headers.get('retry-after'));
      if (asked !== undefined && asked > MAX_RETRY_AFTER_MS) return response;
      await earlier?.body?.cancel().catch(() => undefined);
      if (request.method === 'POST' && response.status >= 500) earlier = response;
      // Drain the body we drop, so the connection can be reused.
      else await response.body?.cancel().catch(() => undefined);
      await sleep(asked ?? backoffMs(retry, random), request.signal);
    }
  };
}
