import createClient, { type Client, type ClientOptions, type FetchResponse, type MaybeOptionalInit, type Middleware } from 'openapi-fetch';
import type { paths as CheckoutPaths } from '../../generated/checkout.js';
import type { paths as CommercePaths } from '../../generated/commerce.js';
import { tillErrorFrom } from './errors.js';
import { paginate, type ListItemOf, type ListPath, type TillList } from './pagination.js';
import { type CallOptions, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, retryingFetch, type RetryOptions } from './retry.js';

/** How a Checkout & Billing client authenticates. */
export type CheckoutAuth =
  /** Server side: the secret key (`sk_test_...` or `sk_live_...`). Never ship it to a browser. */
  | { secretKey: string; publishableKey?: never; clientSecret?: never }
  /** Client side: the publishable key plus the client secret of the one session it acts on. */
  | { publishableKey: string; clientSecret: string; secretKey?: never }
  /** The hosted page: the session's client secret alone (retrieve, withdraw-qr). */
  | { clientSecret: string; secretKey?: never; publishableKey?: never };

/** Options shared by both clients. `maxRetries` and `timeoutMs` can also be set per call. */
export interface TillClientOptions extends Omit<ClientOptions, 'baseUrl'>, RetryOptions {
  /** Scheme, host and port of the Till server (or the Prism mock), e.g. `http://localhost:3000`. */
  baseUrl: string;
  /**
   * Throw a typed `TillError` subclass for every non-2xx answer instead of returning
   * `{ error }`. Off by default: calls return `{ data, error, response }` and never throw.
   */
  throwOnError?: boolean;
}

export type CheckoutClientOptions = TillClientOptions & CheckoutAuth;
export interface CommerceClientOptions extends TillClientOptions {
  /**
   * The merchant's secret key, sent as `x-api-key`. Leave it out in a browser that only calls
   * the public operations (invoice by reference, QR codes, the hosted payment-link calls).
   */
  apiKey?: string;
}

type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';
type PathsWithMethod<Paths, M extends HttpMethod> = { [P in keyof Paths]: Paths[P] extends { [K in M]: any } ? P : never }[keyof Paths];
type RequiredKeys<T> = { [K in keyof T]-?: Partial<Pick<T, K>> extends Pick<T, K> ? never : K }[keyof T];
/** openapi-fetch's options of one call, plus `maxRetries`, `timeoutMs` and `idempotencyKey`. */
type TillInit<Init> = [RequiredKeys<Init>] extends [never]
  ? [(Init & CallOptions & { [key: string]: unknown })?]
  : [Init & CallOptions & { [key: string]: unknown }];
type Operation<Paths, Path extends keyof Paths, M extends HttpMethod> = Extract<Paths[Path][M & keyof Paths[Path]], Record<string | number, any>>;
type TillMethod<Paths extends object, M extends HttpMethod> = <
  Path extends PathsWithMethod<Paths, M>,
  Init extends MaybeOptionalInit<Paths[Path], M & keyof Paths[Path]>,
>(
  url: Path,
  ...init: TillInit<Init>
) => Promise<FetchResponse<Operation<Paths, Path, M>, Init, `${string}/${string}`>>;

/**
 * A typed client of one interface: openapi-fetch's `GET`, `POST`, ... keyed by the contract's
 * paths (each call may add `maxRetries`, `timeoutMs`, `idempotencyKey`), and `list()`, which
 * iterates over every item of a list operation.
 */
export interface TillClient<in out Paths extends object> extends Pick<Client<Paths>, 'use' | 'eject'> {
  GET: TillMethod<Paths, 'get'>;
  PUT: TillMethod<Paths, 'put'>;
  POST: TillMethod<Paths, 'post'>;
  DELETE: TillMethod<Paths, 'delete'>;
  PATCH: TillMethod<Paths, 'patch'>;
  HEAD: TillMethod<Paths, 'head'>;
  OPTIONS: TillMethod<Paths, 'options'>;
  /**
   * Every item of a list, fetched page by page as the loop asks (`startingAfter` lists and OData
   * lists alike). A failed page throws a `TillError`.
   *
   * ```ts
   * for await (const plan of till.list('/v1/plans', { params: { query: { limit: 50 } } })) console.log(plan.id);
   * ```
   */
  list<Path extends ListPath<Paths> & PathsWithMethod<Paths, 'get'>, Init extends MaybeOptionalInit<Paths[Path], 'get' & keyof Paths[Path]>>(
    url: Path,
    ...init: TillInit<Init>
  ): TillList<ListItemOf<Paths, Path>>;
}

/** A typed client of the Checkout & Billing interface: `GET`, `POST`, ... keyed by the contract's paths. */
export type CheckoutClient = TillClient<CheckoutPaths>;
/** A typed client of the Commerce interface. */
export type CommerceClient = TillClient<CommercePaths>;

const keyPattern = {
  secret: /^sk_(test|live)_[A-Za-z0-9]+$/,
  publishable: /^pk_(test|live)_[A-Za-z0-9]+$/,
};

function assertKey(kind: keyof typeof keyPattern, value: unknown, option: string, hint: string): asserts value is string {
  if (typeof value !== 'string' || !keyPattern[kind].test(value)) {
    // The message never repeats the value: it may be a real key in the wrong place.
    throw new TypeError(`Till SDK: \`${option}\` must be a ${kind} key (${hint}). ${describeKey(value)}`);
  }
}

function describeKey(value: unknown): string {
  if (typeof value !== 'string' || value === '') return 'Nothing was given.';
  if (value.startsWith('pk_')) return 'A publishable key (pk_...) was given.';
  if (value.startsWith('sk_')) return 'A secret key (sk_...) was given.';
  return 'The value given does not look like a Till key.';
}

function assertBaseUrl(baseUrl: unknown): asserts baseUrl is string {
  if (typeof baseUrl !== 'string' || !/^https?:\/\/[^/]+/.test(baseUrl)) {
    throw new TypeError('Till SDK: `baseUrl` must be an absolute http(s) URL such as "http://localhost:3000".');
  }
}

/** Adds headers to every request. */
const headerMiddleware = (headers: Record<string, string>): Middleware => ({
  onRequest({ request }) {
    for (const [name, value] of Object.entries(headers)) request.headers.set(name, value);
    return request;
  },
});

/** Turns every non-2xx answer into a thrown `TillError` subclass. */
const throwingMiddleware: Middleware = {
  async onResponse({ response }) {
    if (response.ok) return undefined;
    const text = await response.clone().text();
    let body: unknown = text;
    try {
      body = text === '' ? undefined : JSON.parse(text);
    } catch {
      // not JSON: keep the text as the raw body
    }
    throw tillErrorFrom(response.status, body, response.headers.get('x-request-id'));
  },
};

function stripTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * Creates a client of the Checkout & Billing interface.
 *
 * ```ts
 * const till = createCheckoutClient({ baseUrl: 'http://localhost:3000', secretKey: process.env.TILL_SECRET_KEY! });
 * const { data, error } = await till.POST('/v1/checkout-sessions', { body: { amount: 49.99, currency: 'USD', mode: 'hosted', paymentType: 'oneTime' } });
 * ```
 */
export function createCheckoutClient(options: CheckoutClientOptions): CheckoutClient {
  const { baseUrl, throwOnError, secretKey, publishableKey, clientSecret, maxRetries, timeoutMs, ...rest } = options;
  assertBaseUrl(baseUrl);
  const headers: Record<string, string> = {};
  if (secretKey !== undefined) {
    assertKey('secret', secretKey, 'secretKey', 'sk_test_... or sk_live_...; in a browser use { publishableKey, clientSecret }');
    headers.authorization = `Bearer ${secretKey}`;
  } else if (publishableKey !== undefined) {
    assertKey('publishable', publishableKey, 'publishableKey', 'pk_test_... or pk_live_...');
    if (typeof clientSecret !== 'string' || clientSecret === '') {
      throw new TypeError("Till SDK: a publishable key always needs the session's `clientSecret` (returned when the session was created).");
    }
    headers.authorization = `Bearer ${publishableKey}`;
    headers['x-client-secret'] = clientSecret;
  } else if (typeof clientSecret === 'string' && clientSecret !== '') {
    headers['x-client-secret'] = clientSecret;
  } else {
    throw new TypeError(
      'Till SDK: pass `secretKey` (server side), or `publishableKey` with `clientSecret` (client side), or `clientSecret` alone (hosted page).',
    );
  }
  const client = createClient<CheckoutPaths>({ ...rest, baseUrl: stripTrailingSlash(baseUrl) });
  client.use(headerMiddleware(headers));
  if (throwOnError) client.use(throwingMiddleware);
  // Every credential names a merchant (a session's client secret too), so the server keys POSTs.
  return withRetriesAndLists<CheckoutPaths>(client, { fetch: rest.fetch, maxRetries, timeoutMs, autoIdempotencyKey: true });
}

/**
 * Creates a client of the Commerce interface (header `x-api-key`).
 *
 * ```ts
 * const commerce = createCommerceClient({ baseUrl: 'http://localhost:3000', apiKey: process.env.TILL_SECRET_KEY! });
 * const { data } = await commerce.GET('/v1/invoice', { params: { query: { $top: 10 } } });
 * ```
 */
export function createCommerceClient(options: CommerceClientOptions): CommerceClient {
  const { baseUrl, throwOnError, apiKey, maxRetries, timeoutMs, ...rest } = options;
  assertBaseUrl(baseUrl);
  const client = createClient<CommercePaths>({ ...rest, baseUrl: stripTrailingSlash(baseUrl) });
  if (apiKey !== undefined) {
    assertKey('secret', apiKey, 'apiKey', 'sk_test_... or sk_live_...; omit it to call only the public operations');
    client.use(headerMiddleware({ 'x-api-key': apiKey }));
  }
  if (throwOnError) client.use(throwingMiddleware);
  // Without a key no merchant is known and the server ignores Idempotency-Key: a POST is then
  // retried only when the call passes its own key.
  return withRetriesAndLists<CommercePaths>(client, { fetch: rest.fetch, maxRetries, timeoutMs, autoIdempotencyKey: apiKey !== undefined });
}

const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'] as const;

interface Defaults extends RetryOptions {
  fetch: ClientOptions['fetch'];
  autoIdempotencyKey: boolean;
}

/** Wraps openapi-fetch's client: each call gets a retrying fetch with its own settings; adds `list()`. */
function withRetriesAndLists<Paths extends object>(client: Client<Paths>, defaults: Defaults): TillClient<Paths> {
  const baseFetch = (defaults.fetch ?? ((request: Request, init?: RequestInit) => globalThis.fetch(request, init))) as (
    r: Request,
    i?: RequestInit,
  ) => Promise<Response>;
  type AnyInit = CallOptions & { fetch?: ClientOptions['fetch']; params?: { query?: Record<string, unknown> } } & Record<string, unknown>;
  const call =
    (method: (typeof METHODS)[number]) =>
    (url: string, init: AnyInit = {}) => {
      const { maxRetries, timeoutMs, idempotencyKey, fetch, ...rest } = init;
      const fetchWithRetries = retryingFetch({
        fetch: (fetch as typeof baseFetch | undefined) ?? baseFetch,
        maxRetries: maxRetries ?? defaults.maxRetries ?? DEFAULT_MAX_RETRIES,
        timeoutMs: timeoutMs ?? defaults.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        idempotencyKey,
        autoIdempotencyKey: defaults.autoIdempotencyKey,
      });
      return (client[method] as (u: string, i: object) => Promise<unknown>)(url, { ...rest, fetch: fetchWithRetries });
    };
  const wrapped: Record<string, unknown> = { use: client.use, eject: client.eject };
  for (const method of METHODS) wrapped[method] = call(method);
  const get = call('GET');
  wrapped.list = (url: string, init: AnyInit = {}) =>
    paginate((query) => get(url, { ...init, params: { ...init.params, query } }) as ReturnType<Parameters<typeof paginate>[0]>, { ...init.params?.query });
  return wrapped as unknown as TillClient<Paths>;
}
