// Behaviour scenarios for what every operation shares: authentication and scopes, error bodies,
// limits, idempotency, versioning, conventions, and `POST /v1/client-token`. Also the helpers the
// other scenario files use (this file imports none of them, so there is no cycle).
import assert from 'node:assert/strict';
import type { Api, ConformanceContext, HttpResult, RequestSpec, Scenario } from '../types.js';

// ---------------------------------------------------------------------------------------------
// Helpers shared by the scenario files
// ---------------------------------------------------------------------------------------------

export const CHECKOUT_DOC = 'checkout-billing-api.md';
export const COMMERCE_DOC = 'commerce-api.md';

/** `document › section › subsection`. */
export const source = (doc: string, ...sections: string[]): string => [doc, ...sections].join(' › ');

/** A scenario written before its operations exist (or without a runnable check yet): no `run`. */
export function pending(id: string, title: string, src: string, requires: string[], extra: Partial<Scenario> = {}): Scenario {
  return { id, title, source: src, requires, serverOnly: true, ...extra };
}

/** A scenario that needs time to pass: uses the sandbox clock (`advanceTestClock`). */
export function clocked(id: string, title: string, src: string, requires: string[], extra: Partial<Scenario> = {}): Scenario {
  const ops = requires.includes('advanceTestClock') ? requires : [...requires, 'advanceTestClock'];
  return { id, title, source: src, requires: ops, needsClock: true, serverOnly: true, ...extra };
}

/** Pays a session with the sandbox's succeeding Visa card (tokenize, confirm). */
export async function payByCard(ctx: ConformanceContext, session: { id: string; clientSecret: string }): Promise<any> {
  const key = publishableKey(ctx);
  const card = { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 3, cvc: '123' };
  const pm = await call(ctx, 'checkout', 'tokenizeCard', { method: 'POST', path: `/v1/checkout-sessions/${session.id}/tokenize`, key, clientSecret: session.clientSecret, body: card });
  expectStatus(pm, 201, 'tokenize the card');
  const confirmed = await call(ctx, 'checkout', 'confirmCheckoutSession', { method: 'POST', path: `/v1/checkout-sessions/${session.id}/confirm`, key, clientSecret: session.clientSecret, body: { paymentMethodId: pm.json.id } });
  expectStatus(confirmed, 200, 'confirm with the card');
  return confirmed.json;
}

/** Whole seconds from `from` to `to` (ISO times), rounded up. */
export const secondsUntil = (to: string, from: string): number => Math.ceil((Date.parse(to) - Date.parse(from)) / 1000);

/** Advances the merchant's test-mode clock (`advanceTestClock`) and answers the clock after it. */
export async function advanceClock(ctx: ConformanceContext, seconds: number, key = secretKey(ctx)): Promise<{ now: string; jobsRun: number }> {
  const res = await call(ctx, 'checkout', 'advanceTestClock', { method: 'POST', path: '/v1/test-helpers/clock/advance', key, body: { seconds } });
  expectStatus(res, 200, `advance the test clock ${seconds} s`);
  return res.json;
}

/** Throws the runner's pending marker. */
export function pendingBecause(why: string): never {
  throw new Error(`PENDING: ${why}`);
}

/** The runner's tag, reduced to characters safe in names, emails and idempotency keys. */
export function tag(ctx: ConformanceContext): string {
  const t = ctx.runId.toLowerCase().replace(/[^a-z0-9]/g, '');
  return t.length > 0 ? t.slice(-32) : 'run';
}

/** A unique email for this run. */
export const emailFor = (ctx: ConformanceContext, label: string): string => `conf.${tag(ctx)}.${label}@example.com`;

export const secretKey = (ctx: ConformanceContext): string => ctx.options.secretKey;

/** The second merchant's secret key, or pending when the run was given none. */
export function otherSecretKey(ctx: ConformanceContext): string {
  const key = ctx.options.otherSecretKey;
  if (!key) pendingBecause('needs --other-secret-key (a second merchant)');
  return key;
}

/** The merchant's publishable key, or pending when the run was given none. */
export function publishableKey(ctx: ConformanceContext): string {
  const key = ctx.options.publishableKey;
  if (!key) pendingBecause('needs --publishable-key');
  return key;
}

/**
 * Sends a request through the context, as a well-behaved client: a 429 is retried after the
 * `Retry-After` seconds, with exponential backoff (the suite itself runs near the rate limit, and
 * a 429 means nothing was done). Collects contract problems into `problems`.
 */
export async function send(ctx: ConformanceContext, api: Api, operationId: string, spec: RequestSpec, problems: string[]): Promise<HttpResult> {
  for (let attempt = 0; ; attempt++) {
    const found: string[] = [];
    const res = await ctx.request(api, operationId, spec, found);
    if (res.status !== 429 || attempt >= 6) {
      problems.push(...found);
      return res;
    }
    const retryAfter = Math.max(1, Number(res.headers.get('retry-after')) || 1);
    await sleep(Math.min(16, retryAfter * 2 ** attempt) * 1000);
  }
}

/** Sends a request (see `send`) and fails when the answer breaks the contract. */
export async function call(ctx: ConformanceContext, api: Api, operationId: string, spec: RequestSpec): Promise<HttpResult> {
  const problems: string[] = [];
  const res = await send(ctx, api, operationId, spec, problems);
  assert.deepEqual(problems, [], `${spec.method} ${spec.path} (${operationId}) answered ${res.status} outside the contract: ${problems.join('; ')}`);
  return res;
}

/** A request to a path that is no operation (so nothing to validate against). */
export async function rawFetch(ctx: ConformanceContext, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<HttpResult> {
  const response = await fetch(new URL(path, ctx.options.baseUrl.replace(/\/+$/, '') + '/'), { method, headers, body: body ?? null });
  const text = await response.text();
  let json: any;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

const describe = (res: HttpResult) => `${res.status} ${res.text.slice(0, 400)}`;

export function expectStatus(res: HttpResult, status: number, what: string): void {
  assert.equal(res.status, status, `${what}: expected HTTP ${status}, got ${describe(res)}`);
}

/** The general error body `{error: {type, code, message, param}}`. */
export function expectError(res: HttpResult, status: number, type: string, code?: string, param?: string): void {
  expectStatus(res, status, `expected the ${code ?? type} error`);
  const error = res.json?.error;
  assert.ok(error && typeof error === 'object', `expected the general error body {error: {...}}, got ${describe(res)}`);
  assert.equal(error.type, type, `error.type: ${describe(res)}`);
  assert.equal(typeof error.message, 'string', `error.message must be a string: ${describe(res)}`);
  if (code !== undefined) assert.equal(error.code, code, `error.code: ${describe(res)}`);
  if (param !== undefined) assert.equal(error.param, param, `error.param: ${describe(res)}`);
}

/** The envelope error `{success: false, errorCode, errorMessage, data: {type, param}}`. */
export function expectEnvelopeError(res: HttpResult, status: number, type: string, code?: string, param?: string): void {
  expectStatus(res, status, `expected the ${code ?? type} envelope error`);
  const body = res.json;
  assert.ok(body && body.success === false, `expected an envelope with success false, got ${describe(res)}`);
  assert.equal(typeof body.errorCode, 'string', `errorCode: ${describe(res)}`);
  assert.equal(typeof body.errorMessage, 'string', `errorMessage: ${describe(res)}`);
  assert.ok(body.data && typeof body.data === 'object', `data must hold the detail: ${describe(res)}`);
  assert.equal(body.data.type, type, `data.type: ${describe(res)}`);
  if (code !== undefined) assert.equal(body.errorCode, code, `errorCode: ${describe(res)}`);
  if (param !== undefined) assert.equal(body.data.param, param, `data.param: ${describe(res)}`);
}

/** A successful envelope; answers its `data`. */
export function envelopeData(res: HttpResult, status: number, what: string): any {
  expectStatus(res, status, what);
  const body = res.json;
  assert.equal(body?.success, true, `${what}: success must be true: ${describe(res)}`);
  assert.equal(body.errorCode, null, `${what}: errorCode must be null`);
  assert.equal(body.errorMessage, null, `${what}: errorMessage must be null`);
  assert.ok(body.data !== undefined && body.data !== null, `${what}: data must hold the object`);
  return body.data;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Creates a product of the merchant (Checkout `POST /v1/products`). */
export async function newProduct(ctx: ConformanceContext, label: string, key = secretKey(ctx)): Promise<any> {
  const res = await call(ctx, 'checkout', 'createProduct', {
    method: 'POST',
    path: '/v1/products',
    key,
    body: { name: `Conformance ${tag(ctx)} ${label}`, description: `Made by conformance run ${ctx.runId}` },
  });
  expectStatus(res, 201, 'create a product');
  return res.json;
}

/** Creates a plan (Checkout `POST /v1/plans`) and archives it at the end of the run. */
export async function newPlan(ctx: ConformanceContext, productId: number, label: string, extra: Record<string, unknown> = {}, key = secretKey(ctx)): Promise<any> {
  const res = await call(ctx, 'checkout', 'createPlan', {
    method: 'POST',
    path: '/v1/plans',
    key,
    body: { productId, name: `Conformance ${tag(ctx)} ${label}`, amount: 19.99, currency: 'USD', interval: 'month', ...extra },
  });
  const plan = envelopeData(res, 201, 'create a plan');
  ctx.onCleanup(() => send(ctx, 'checkout', 'archivePlan', { method: 'DELETE', path: `/v1/plans/${plan.id}`, key }, []));
  return plan;
}

/** Creates or finds a customer (Checkout `POST /v1/customers`); answers the HTTP result. */
export async function postCustomer(ctx: ConformanceContext, body: Record<string, unknown>, key = secretKey(ctx)): Promise<HttpResult> {
  return call(ctx, 'checkout', 'createCustomer', { method: 'POST', path: '/v1/customers', key, body });
}

// Checkout sessions -----------------------------------------------------------------------------

/** A valid one-time session body (embedded, so no `successUrl` is needed), tagged with the run id. */
export function sessionBody(ctx: ConformanceContext, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { amount: 12.5, currency: 'USD', mode: 'embedded', paymentType: 'oneTime', metadata: { conformanceRun: ctx.runId }, ...extra };
}

/** `POST /v1/checkout-sessions` with `sessionBody` plus `extra`; answers the HTTP result. */
export async function postSession(ctx: ConformanceContext, extra: Record<string, unknown> = {}, key = secretKey(ctx)): Promise<HttpResult> {
  const res = await call(ctx, 'checkout', 'createCheckoutSession', { method: 'POST', path: '/v1/checkout-sessions', key, body: sessionBody(ctx, extra) });
  // Leave nothing payable behind: cancel what was created at the end of the run.
  const id = res.status === 200 || res.status === 201 ? res.json?.id : undefined;
  if (typeof id === 'string') {
    ctx.onCleanup(() => send(ctx, 'checkout', 'cancelCheckoutSession', { method: 'POST', path: `/v1/checkout-sessions/${encodeURIComponent(id)}/cancel`, key }, []));
  }
  return res;
}

/** Creates a session (see `postSession`) and answers the create response. */
export async function newSession(ctx: ConformanceContext, extra: Record<string, unknown> = {}, key = secretKey(ctx)): Promise<any> {
  const res = await postSession(ctx, extra, key);
  assert.ok(res.status === 201 || res.status === 200, `create a checkout session: expected HTTP 201 (or 200), got ${describe(res)}`);
  return res.json;
}

/** How a session request authenticates: the server key, or a publishable key with the client secret. */
export type SessionAuth = Pick<RequestSpec, 'key' | 'clientSecret'>;

const sessionPath = (id: string, suffix = '') => `/v1/checkout-sessions/${encodeURIComponent(id)}${suffix}`;

/** `GET /v1/checkout-sessions/{id}`. */
export function getSession(ctx: ConformanceContext, id: string, auth: SessionAuth = { key: secretKey(ctx) }): Promise<HttpResult> {
  return call(ctx, 'checkout', 'retrieveCheckoutSession', { method: 'GET', path: sessionPath(id), ...auth });
}

/** `GET /v1/checkout-sessions/{id}/status`. */
export function getSessionStatus(ctx: ConformanceContext, id: string, auth: SessionAuth = { key: secretKey(ctx) }): Promise<HttpResult> {
  return call(ctx, 'checkout', 'getCheckoutSessionStatus', { method: 'GET', path: sessionPath(id, '/status'), ...auth });
}

/** `POST /v1/checkout-sessions/{id}/cancel`. */
export function cancelSession(ctx: ConformanceContext, id: string, auth: SessionAuth = { key: secretKey(ctx) }): Promise<HttpResult> {
  return call(ctx, 'checkout', 'cancelCheckoutSession', { method: 'POST', path: sessionPath(id, '/cancel'), ...auth });
}

/** Retrieves a session with the server key and answers it (200 expected). */
export async function retrieveSession(ctx: ConformanceContext, id: string, auth: SessionAuth = { key: secretKey(ctx) }): Promise<any> {
  const res = await getSession(ctx, id, auth);
  expectStatus(res, 200, `retrieve checkout session ${id}`);
  return res.json;
}

/**
 * The target's current time, as shown by a session it creates (`createdAt`), moved on by the time
 * spent since. `expiresAt` is checked against the target's clock, which need not be this one's.
 */
export async function targetNow(ctx: ConformanceContext): Promise<() => number> {
  const before = Date.now();
  const probe = await newSession(ctx);
  const created = Date.parse(probe.createdAt);
  assert.ok(Number.isFinite(created), `createdAt must be a timestamp, got ${JSON.stringify(probe.createdAt)}`);
  return () => created + (Date.now() - before);
}

const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

function expectRateHeaders(res: HttpResult, what: string): void {
  for (const name of RATE_HEADERS) {
    const value = res.headers.get(name);
    assert.match(value ?? '', /^\d+$/, `${what} (HTTP ${res.status}) must carry ${name} as an integer, got ${JSON.stringify(value)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Scenarios
// ---------------------------------------------------------------------------------------------

const AUTH = source(CHECKOUT_DOC, 'Authentication');
const ERRORS = source(CHECKOUT_DOC, 'Errors');
const LIMITS = source(CHECKOUT_DOC, 'Limits');
const IDEMPOTENCY = source(CHECKOUT_DOC, 'Endpoints', 'Idempotency');
const VERSIONING = source(CHECKOUT_DOC, 'Versioning');
const CONVENTIONS = source(CHECKOUT_DOC, 'Resources and their fields', 'Conventions');
const CLIENT_TOKEN = source(CHECKOUT_DOC, 'Endpoints', 'Checkout sessions');

const SESSION = 'createCheckoutSession';

const auth: Scenario[] = [
  {
    id: 'platform.auth.no-key-401',
    title: 'A request without a key is refused with 401 authentication (general shape, or the envelope on plan/customer endpoints)',
    source: AUTH,
    requires: ['listProducts', 'listPlans', 'listCustomers'],
    serverOnly: false,
    async run(ctx) {
      expectError(await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: null }), 401, 'authentication');
      expectEnvelopeError(await call(ctx, 'checkout', 'listPlans', { method: 'GET', path: '/v1/plans', key: null }), 401, 'authentication');
      expectEnvelopeError(await call(ctx, 'checkout', 'listCustomers', { method: 'GET', path: '/v1/customers', key: null }), 401, 'authentication');
    },
  },
  {
    id: 'platform.auth.unknown-key-401',
    title: 'An unknown, revoked or malformed key is refused with 401 authentication',
    source: AUTH,
    requires: ['listProducts', 'retrievePlan'],
    serverOnly: true,
    async run(ctx) {
      const unknown = `sk_test_conformance${tag(ctx)}unknown`;
      expectError(await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: unknown }), 401, 'authentication');
      expectEnvelopeError(await call(ctx, 'checkout', 'retrievePlan', { method: 'GET', path: '/v1/plans/1', key: unknown }), 401, 'authentication');
      const notBearer = await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: null, headers: { Authorization: `Basic ${Buffer.from('a:b').toString('base64')}` } });
      expectError(notBearer, 401, 'authentication');
    },
  },
  {
    id: 'platform.auth.secret-key-bearer',
    title: 'A server key sent as `Authorization: Bearer sk_...` has full access (test keys start `sk_test_`)',
    source: AUTH,
    requires: ['listProducts', 'listPlans', 'listCustomers'],
    serverOnly: true,
    async run(ctx) {
      assert.match(secretKey(ctx), /^sk_(test|live)_/, 'the server key must start sk_test_ or sk_live_');
      for (const [op, path] of [['listProducts', '/v1/products'], ['listPlans', '/v1/plans'], ['listCustomers', '/v1/customers']] as const) {
        const res = await call(ctx, 'checkout', op, { method: 'GET', path, key: secretKey(ctx), query: { limit: 1 } });
        expectStatus(res, 200, `${op} with the server key`);
      }
    },
  },
  {
    id: 'platform.auth.publishable-needs-client-secret',
    title: 'A publishable key without `X-Client-Secret` is refused with 401 (every publishable-key request needs the session\'s client secret)',
    source: AUTH,
    requires: ['listProducts'],
    serverOnly: true,
    async run(ctx) {
      const pk = publishableKey(ctx);
      expectError(await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: pk }), 401, 'authentication');
    },
  },
  pending(
    'platform.auth.publishable-server-only-scopes-403',
    'A publishable key with a valid client secret is refused with 403 permission_denied on every server-key-only operation (session create, refund, capture, invoices, customers, products, plans, subscriptions, portal)',
    AUTH,
    [SESSION, 'refundCheckoutSession', 'capturePayment', 'createInvoice', 'listInvoices', 'createCustomer', 'listCustomers', 'createProduct', 'listProducts', 'createPlan', 'listPlans', 'updatePlan', 'archivePlan', 'listSubscriptions', 'cancelSubscription', 'createPortalSession'],
  ),
  pending(
    'platform.auth.publishable-scope-set',
    'A publishable key plus the session\'s client secret can call exactly its fixed scopes: read, confirm, withdraw-qr, tokenize, cancel, status, saved cards (list, verify, confirm-otp) and SRC (lookup, authenticate)',
    AUTH,
    [SESSION, 'retrieveCheckoutSession', 'confirmCheckoutSession', 'withdrawCheckoutSessionQr', 'tokenizeCard', 'cancelCheckoutSession', 'getCheckoutSessionStatus', 'listSavedCards', 'verifySavedCard', 'confirmSavedCardOtp', 'lookupSrcCards', 'authenticateSrcCard'],
  ),
  {
    id: 'platform.auth.publishable-one-session-only',
    title: 'A publishable key acts on one session only: the client secret of another session (or another merchant\'s, or the other mode\'s) is refused with 401',
    source: AUTH,
    requires: [SESSION, 'retrieveCheckoutSession', 'getCheckoutSessionStatus'],
    serverOnly: true,
    async run(ctx) {
      const pk = publishableKey(ctx);
      const a = await newSession(ctx);
      const b = await newSession(ctx);
      // The right pair works, so the refusals below are about the secret.
      expectStatus(await getSession(ctx, a.id, { key: pk, clientSecret: a.clientSecret }), 200, 'retrieve with the publishable key and the session\'s own client secret');
      expectStatus(await getSessionStatus(ctx, a.id, { key: pk, clientSecret: a.clientSecret }), 200, 'poll with the publishable key and the session\'s own client secret');
      // Another session's client secret.
      expectError(await getSession(ctx, a.id, { key: pk, clientSecret: b.clientSecret }), 401, 'authentication');
      expectError(await getSessionStatus(ctx, a.id, { key: pk, clientSecret: b.clientSecret }), 401, 'authentication');
      // A made-up secret in the right shape.
      expectError(await getSession(ctx, a.id, { key: pk, clientSecret: `${a.id}_secret_conformance${tag(ctx)}` }), 401, 'authentication');
      // Another merchant's session, with its own client secret, under this merchant's publishable key.
      if (ctx.options.otherSecretKey) {
        const theirs = await newSession(ctx, {}, ctx.options.otherSecretKey);
        expectError(await getSession(ctx, theirs.id, { key: pk, clientSecret: theirs.clientSecret }), 401, 'authentication');
        expectError(await getSessionStatus(ctx, theirs.id, { key: pk, clientSecret: theirs.clientSecret }), 401, 'authentication');
        expectError(await getSession(ctx, a.id, { key: pk, clientSecret: theirs.clientSecret }), 401, 'authentication');
      }
      // The other mode's sessions need a live key, which the options do not carry.
    },
  },
  {
    id: 'platform.auth.client-secret-shape',
    title: 'The client secret returned at session creation has the shape `<session_id>_secret_<random>`',
    source: AUTH,
    requires: [SESSION],
    serverOnly: true,
    async run(ctx) {
      const first = await newSession(ctx);
      const second = await newSession(ctx);
      for (const s of [first, second]) {
        assert.equal(typeof s.clientSecret, 'string', 'clientSecret must be a string');
        const prefix = `${s.id}_secret_`;
        assert.ok(s.clientSecret.startsWith(prefix), `clientSecret must start with "${prefix}", got ${JSON.stringify(s.clientSecret)}`);
        assert.match(s.clientSecret.slice(prefix.length), /^\S+$/, 'the random part must be present');
      }
      assert.notEqual(first.clientSecret.slice(`${first.id}_secret_`.length), second.clientSecret.slice(`${second.id}_secret_`.length), 'the random part differs between sessions');
    },
  },
  pending(
    'platform.auth.client-secret-alone-hosted-page',
    'The client secret alone (hosted page) may retrieve the session and withdraw its QR code, and nothing else (confirm with it alone is refused with 401)',
    AUTH,
    [SESSION, 'retrieveCheckoutSession', 'withdrawCheckoutSessionQr', 'confirmCheckoutSession'],
  ),
  {
    id: 'platform.auth.secret-key-on-publishable-only-403',
    title: 'A server key on a publishable-key-only operation (confirm, tokenize, saved cards, SRC) is refused with 403 permission_denied',
    source: AUTH,
    requires: [SESSION, 'confirmCheckoutSession', 'tokenizeCard', 'listSavedCards', 'verifySavedCard', 'confirmSavedCardOtp', 'lookupSrcCards', 'authenticateSrcCard'],
    serverOnly: true,
    async run(ctx) {
      const s = await newSession(ctx, { enableClickToPay: true, allowSavedCards: true });
      const at = (suffix: string) => `/v1/checkout-sessions/${encodeURIComponent(s.id)}${suffix}`;
      const key = secretKey(ctx);
      const attempts: [string, string, string, unknown][] = [
        ['confirmCheckoutSession', 'POST', '/confirm', { paymentMethodId: 'pm_conformance' }],
        ['tokenizeCard', 'POST', '/tokenize', { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 3, cvc: '123' }],
        ['listSavedCards', 'GET', '/saved-cards', undefined],
        ['verifySavedCard', 'POST', '/saved-cards/verify', { paymentMethodId: 'pm_conformance' }],
        ['confirmSavedCardOtp', 'POST', '/saved-cards/confirm-otp', { verificationId: 'vrf_conformance', otp: '123456' }],
        ['lookupSrcCards', 'POST', '/src/lookup', { email: 'maria.lopez@example.com' }],
        ['authenticateSrcCard', 'POST', '/src/authenticate', { srcCardId: 'src_conformance', validationData: '123456' }],
      ];
      for (const [operationId, method, suffix, body] of attempts) {
        expectError(await call(ctx, 'checkout', operationId, { method, path: at(suffix), key, ...(body === undefined ? {} : { body }) }), 403, 'permission_denied', 'permission_denied');
      }
    },
  },
  {
    id: 'platform.auth.status-server-key-may-poll',
    title: 'The server key may poll a session\'s status and retrieve it, besides the publishable key',
    source: source(CHECKOUT_DOC, 'Endpoints', 'Checkout sessions'),
    requires: [SESSION, 'getCheckoutSessionStatus', 'retrieveCheckoutSession'],
    serverOnly: true,
    async run(ctx) {
      const s = await newSession(ctx);
      const polled = await getSessionStatus(ctx, s.id);
      expectStatus(polled, 200, 'poll the status with the server key');
      assert.equal(polled.json.status, 'created', 'a new session polls as created');
      const read = await getSession(ctx, s.id);
      expectStatus(read, 200, 'retrieve with the server key');
      assert.equal(read.json.sessionId, s.id);
      // Besides: the publishable key with the client secret, when the run has one.
      if (ctx.options.publishableKey) {
        const viaPk = await getSessionStatus(ctx, s.id, { key: ctx.options.publishableKey, clientSecret: s.clientSecret });
        expectStatus(viaPk, 200, 'poll the status with the publishable key');
        assert.equal(viaPk.json.status, polled.json.status, 'both keys see the same status');
      }
    },
  },
  {
    id: 'platform.auth.cancel-server-key-and-publishable',
    title: 'Cancel is callable with the server key, and with the publishable key plus client secret (scope `checkout.session.cancel`)',
    source: source(CHECKOUT_DOC, 'Endpoints', 'Checkout sessions'),
    requires: [SESSION, 'cancelCheckoutSession', 'retrieveCheckoutSession'],
    serverOnly: true,
    async run(ctx) {
      const pk = publishableKey(ctx);
      const bySk = await newSession(ctx);
      expectStatus(await cancelSession(ctx, bySk.id), 204, 'cancel with the server key');
      assert.equal((await retrieveSession(ctx, bySk.id)).status, 'cancelled', 'cancelled with the server key');
      const byPk = await newSession(ctx);
      // The publishable key needs the session's client secret: without it, or with another's, 401.
      expectError(await cancelSession(ctx, byPk.id, { key: pk }), 401, 'authentication');
      expectError(await cancelSession(ctx, byPk.id, { key: pk, clientSecret: bySk.clientSecret }), 401, 'authentication');
      assert.equal((await retrieveSession(ctx, byPk.id)).status, 'created', 'a refused cancel changes nothing');
      expectStatus(await cancelSession(ctx, byPk.id, { key: pk, clientSecret: byPk.clientSecret }), 204, 'cancel with the publishable key and client secret');
      assert.equal((await retrieveSession(ctx, byPk.id)).status, 'cancelled', 'cancelled with the publishable key');
    },
  },
  {
    id: 'platform.auth.other-merchant-404',
    title: 'Another merchant\'s product, plan or customer answers 404, exactly as an id that does not exist (its existence is never revealed)',
    source: AUTH,
    requires: ['createProduct', 'retrieveProduct', 'createPlan', 'retrievePlan', 'createCustomer', 'retrieveCustomer'],
    serverOnly: true,
    async run(ctx) {
      const other = otherSecretKey(ctx);
      const product = await newProduct(ctx, 'foreign product', other);
      const plan = await newPlan(ctx, product.id, 'foreign plan', {}, other);
      const customer = envelopeData(await postCustomer(ctx, { email: emailFor(ctx, 'foreign') }, other), 201, 'create a customer of the other merchant');
      const mine = secretKey(ctx);
      const foreignProduct = await call(ctx, 'checkout', 'retrieveProduct', { method: 'GET', path: `/v1/products/${product.id}`, key: mine });
      const missingProduct = await call(ctx, 'checkout', 'retrieveProduct', { method: 'GET', path: '/v1/products/2147483000', key: mine });
      expectError(foreignProduct, 404, 'not_found');
      expectError(missingProduct, 404, 'not_found');
      assert.equal(foreignProduct.json.error.code, missingProduct.json.error.code, 'a foreign product must answer like a missing one');
      const foreignPlan = await call(ctx, 'checkout', 'retrievePlan', { method: 'GET', path: `/v1/plans/${plan.id}`, key: mine });
      const missingPlan = await call(ctx, 'checkout', 'retrievePlan', { method: 'GET', path: '/v1/plans/2147483000', key: mine });
      expectEnvelopeError(foreignPlan, 404, 'not_found');
      assert.equal(foreignPlan.json.errorCode, missingPlan.json.errorCode, 'a foreign plan must answer like a missing one');
      const foreignCustomer = await call(ctx, 'checkout', 'retrieveCustomer', { method: 'GET', path: `/v1/customers/${customer.id}`, key: mine });
      const missingCustomer = await call(ctx, 'checkout', 'retrieveCustomer', { method: 'GET', path: '/v1/customers/2147483000', key: mine });
      expectEnvelopeError(foreignCustomer, 404, 'not_found');
      assert.equal(foreignCustomer.json.errorCode, missingCustomer.json.errorCode, 'a foreign customer must answer like a missing one');
    },
  },
  pending(
    'platform.auth.modes-separate',
    'Test-mode and live-mode data are separate: a key only sees objects of its own mode (a live key gets 404 for a test session, and the reverse)',
    CONVENTIONS,
    [SESSION, 'retrieveCheckoutSession'],
  ),
  pending(
    'platform.auth.test-key-sees-test-subscriptions-and-invoices',
    'A test key sees only test-mode subscriptions and invoices (lists leave out live ones; retrieving one answers 404)',
    AUTH,
    ['listSubscriptions', 'retrieveSubscription', 'listInvoices', 'retrieveInvoice', 'createInvoice'],
  ),
  pending(
    'platform.auth.customers-and-plans-shared-by-modes',
    'Customers and plans (and their products) are shared by both modes: what a test key creates, a live key of the same merchant reads and lists (needs a live key, which the options do not carry yet)',
    CONVENTIONS,
    ['createCustomer', 'retrieveCustomer', 'listCustomers', 'createPlan', 'retrievePlan', 'listPlans', 'createProduct'],
  ),
];

const errors: Scenario[] = [
  {
    id: 'platform.errors.general-body',
    title: 'Errors answer `{error: {type, code, message, param}}`, `param` naming the offending parameter',
    source: ERRORS,
    requires: ['createProduct', 'listProducts'],
    serverOnly: true,
    async run(ctx) {
      const wrongType = await call(ctx, 'checkout', 'createProduct', { method: 'POST', path: '/v1/products', key: secretKey(ctx), body: { name: 42 } });
      expectError(wrongType, 400, 'invalid_request', undefined, 'name');
      assert.equal(typeof wrongType.json.error.code, 'string', 'error.code must be a string');
      const missing = await call(ctx, 'checkout', 'createProduct', { method: 'POST', path: '/v1/products', key: secretKey(ctx), body: { description: 'no name' } });
      expectError(missing, 400, 'invalid_request', undefined, 'name');
      const badQuery = await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: secretKey(ctx), query: { limit: 'many' } });
      expectError(badQuery, 400, 'invalid_request', undefined, 'limit');
    },
  },
  {
    id: 'platform.errors.envelope-body',
    title: 'Plan and customer endpoints answer errors in the envelope: `success` false, `errorCode`, `errorMessage` and `data` with the detail',
    source: source(CHECKOUT_DOC, 'Errors'),
    requires: ['createPlan', 'createCustomer', 'retrieveCustomer'],
    serverOnly: true,
    async run(ctx) {
      expectEnvelopeError(await call(ctx, 'checkout', 'createPlan', { method: 'POST', path: '/v1/plans', key: secretKey(ctx), body: { name: 'No product' } }), 400, 'invalid_request');
      expectEnvelopeError(await postCustomer(ctx, { email: 'not-an-email' }), 400, 'invalid_request', undefined, 'email');
      expectEnvelopeError(await call(ctx, 'checkout', 'retrieveCustomer', { method: 'GET', path: '/v1/customers/2147483000', key: secretKey(ctx) }), 404, 'not_found');
    },
  },
  pending(
    'platform.errors.envelope-subscriptions-and-refunds',
    'Subscription endpoints and refund failures answer errors in the envelope form',
    ERRORS,
    ['retrieveSubscription', 'pauseSubscription', SESSION, 'refundCheckoutSession'],
  ),
  {
    id: 'platform.errors.status-types',
    title: 'Each error status carries its documented type: 400 invalid_request, 401 authentication, 404 not_found, 409 conflict',
    source: ERRORS,
    requires: ['createProduct', 'listProducts', 'retrieveProduct'],
    serverOnly: true,
    async run(ctx) {
      expectError(await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: secretKey(ctx), query: { limit: 0 } }), 400, 'invalid_request');
      expectError(await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: null }), 401, 'authentication');
      expectError(await call(ctx, 'checkout', 'retrieveProduct', { method: 'GET', path: '/v1/products/2147483000', key: secretKey(ctx) }), 404, 'not_found');
      const idem = `conf-${tag(ctx)}-status-types`;
      const first = await call(ctx, 'checkout', 'createProduct', { method: 'POST', path: '/v1/products', key: secretKey(ctx), headers: { 'Idempotency-Key': idem }, body: { name: `Conformance ${tag(ctx)} A` } });
      expectStatus(first, 201, 'first create');
      const conflict = await call(ctx, 'checkout', 'createProduct', { method: 'POST', path: '/v1/products', key: secretKey(ctx), headers: { 'Idempotency-Key': idem }, body: { name: `Conformance ${tag(ctx)} B` } });
      expectError(conflict, 409, 'conflict');
    },
  },
  {
    id: 'platform.errors.403-permission-denied',
    title: 'A key lacking access is refused with 403 permission_denied',
    source: ERRORS,
    requires: [SESSION, 'listProducts'],
    serverOnly: true,
    async run(ctx) {
      const pk = publishableKey(ctx);
      const s = await newSession(ctx);
      // A valid publishable key and client secret, on server-key-only operations.
      const products = await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: pk, clientSecret: s.clientSecret });
      expectError(products, 403, 'permission_denied');
      const create = await call(ctx, 'checkout', SESSION, { method: 'POST', path: '/v1/checkout-sessions', key: pk, clientSecret: s.clientSecret, body: sessionBody(ctx) });
      expectError(create, 403, 'permission_denied');
    },
  },
  pending(
    'platform.errors.500-retry',
    'An unexpected failure answers 500 server_error, retryable with backoff, without leaking internals (cannot be provoked from outside)',
    ERRORS,
    ['listProducts'],
  ),
  {
    id: 'platform.errors.404-unknown-resource',
    title: 'A resource that does not exist answers 404 not_found',
    source: ERRORS,
    requires: ['retrieveProduct', 'retrievePlan'],
    serverOnly: true,
    async run(ctx) {
      expectError(await call(ctx, 'checkout', 'retrieveProduct', { method: 'GET', path: '/v1/products/2147483000', key: secretKey(ctx) }), 404, 'not_found');
      expectEnvelopeError(await call(ctx, 'checkout', 'retrievePlan', { method: 'GET', path: '/v1/plans/2147483000', key: secretKey(ctx) }), 404, 'not_found');
    },
  },
];

const limits: Scenario[] = [
  {
    id: 'platform.limits.rate-headers-on-every-response',
    title: 'Every response carries integer `X-RateLimit-Limit`, `X-RateLimit-Remaining` and `X-RateLimit-Reset`, errors included',
    source: LIMITS,
    requires: ['listProducts', 'retrieveProduct', 'listPlans', 'createClientToken'],
    serverOnly: true,
    async run(ctx) {
      const sk = secretKey(ctx);
      const answers: [string, HttpResult][] = [
        ['200 list', await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: sk, query: { limit: 1 } })],
        ['400 bad limit', await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: sk, query: { limit: 101 } })],
        ['401 no key', await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: null })],
        ['401 envelope', await call(ctx, 'checkout', 'listPlans', { method: 'GET', path: '/v1/plans', key: null })],
        ['404 unknown product', await call(ctx, 'checkout', 'retrieveProduct', { method: 'GET', path: '/v1/products/2147483000', key: sk })],
        ['501 client token', await call(ctx, 'checkout', 'createClientToken', { method: 'POST', path: '/v1/client-token', key: null })],
        ['404 unknown route', await rawFetch(ctx, 'GET', '/v1/conformance-no-such-route', { Authorization: `Bearer ${sk}` })],
      ];
      for (const [what, res] of answers) expectRateHeaders(res, what);
      const limit = Number(answers[0]![1].headers.get('x-ratelimit-limit'));
      assert.ok(limit >= 100, `X-RateLimit-Limit should be the plan's rate (Standard 100/s, Enterprise 500/s), got ${limit}`);
    },
  },
  pending('platform.limits.enterprise-rate', 'An Enterprise-plan key is limited at 500 requests/second with a burst of 1000', LIMITS, ['listProducts']),
  {
    id: 'platform.limits.list-limit-range',
    title: 'List `limit` is an integer 1-100: 0 and 101 are refused with 400 naming `limit`, 1 and 100 are accepted (products, plans, customers)',
    source: source(CHECKOUT_DOC, 'Resources and their fields', 'List wrapper'),
    requires: ['listProducts', 'listPlans', 'listCustomers'],
    serverOnly: true,
    async run(ctx) {
      const sk = secretKey(ctx);
      for (const [op, path, envelope] of [['listProducts', '/v1/products', false], ['listPlans', '/v1/plans', true], ['listCustomers', '/v1/customers', true]] as const) {
        for (const bad of [0, 101]) {
          const res = await call(ctx, 'checkout', op, { method: 'GET', path, key: sk, query: { limit: bad } });
          if (envelope) expectEnvelopeError(res, 400, 'invalid_request', undefined, 'limit');
          else expectError(res, 400, 'invalid_request', undefined, 'limit');
        }
        for (const good of [1, 100]) {
          const res = await call(ctx, 'checkout', op, { method: 'GET', path, key: sk, query: { limit: good } });
          expectStatus(res, 200, `${op} limit=${good}`);
          const list = envelope ? res.json.data : res.json;
          assert.ok(list.data.length <= good, `${op} limit=${good} answered ${list.data.length} items`);
        }
      }
    },
  },
  {
    id: 'platform.limits.session-field-lengths',
    title: 'customerEmail, customerFirstName and customerLastName are at most 100 characters and customerPhone at most 50; longer values are refused with 400 naming the field',
    source: LIMITS,
    requires: [SESSION],
    serverOnly: true,
    async run(ctx) {
      // An email of exactly n characters: a 64-character local part (the most an address allows).
      const email = (n: number) => {
        const local = `conf.${tag(ctx)}.`.padEnd(64, 'x');
        const domain = '.example.com';
        return `${local}@${'d'.repeat(n - local.length - 1 - domain.length)}${domain}`;
      };
      const cases: [string, number, (n: number) => string][] = [
        ['customerEmail', 100, email],
        ['customerFirstName', 100, (n) => 'F'.repeat(n)],
        ['customerLastName', 100, (n) => 'L'.repeat(n)],
        ['customerPhone', 50, (n) => '+1' + '5'.repeat(n - 2)],
      ];
      for (const [field, max, make] of cases) {
        assert.equal(make(max).length, max);
        const ok = await postSession(ctx, { [field]: make(max) });
        expectStatus(ok, 201, `${field} of ${max} characters`);
        expectError(await postSession(ctx, { [field]: make(max + 1) }), 400, 'invalid_request', undefined, field);
      }
    },
  },
  {
    id: 'platform.limits.external-id-length',
    title: 'A customer\'s externalId is at most 100 characters: 100 is accepted, 101 refused with 400 naming `externalId`',
    source: LIMITS,
    requires: ['createCustomer'],
    serverOnly: true,
    async run(ctx) {
      const base = `conf-${tag(ctx)}-`;
      const ok = base + 'x'.repeat(100 - base.length);
      envelopeData(await postCustomer(ctx, { email: emailFor(ctx, 'ext100'), externalId: ok }), 201, 'externalId of 100 characters');
      expectEnvelopeError(await postCustomer(ctx, { email: emailFor(ctx, 'ext101'), externalId: ok + 'y' }), 400, 'invalid_request', undefined, 'externalId');
    },
  },
  {
    id: 'platform.limits.notification-url',
    title: 'notificationUrl must be `https` on a public host (no localhost or private addresses) and at most 2048 characters; otherwise 400',
    source: LIMITS,
    requires: [SESSION],
    serverOnly: true,
    async run(ctx) {
      const refused = [
        'http://hooks.example.com/till', // not https
        'https://localhost/hook',
        'https://foo.localhost/hook',
        'https://127.0.0.1/hook', // loopback
        'https://2130706433/hook', // 127.0.0.1 written as one number
        'https://0.0.0.0/hook',
        'https://10.1.2.3/hook', // private
        'https://172.20.0.5/hook',
        'https://192.168.1.10/hook',
        'https://169.254.169.254/latest/meta-data', // link-local (cloud metadata)
        'https://[::1]/hook',
        'https://[fe80::1]/hook', // IPv6 link-local
        'https://[fd12:3456::1]/hook', // IPv6 unique-local
        'https://[::ffff:127.0.0.1]/hook', // IPv4-mapped loopback
        'https://[::ffff:10.0.0.1]/hook',
      ];
      for (const url of refused) {
        const res = await postSession(ctx, { notificationUrl: url });
        assert.equal(res.status, 400, `notificationUrl ${url} must be refused with 400, got ${res.status} ${res.text.slice(0, 200)}`);
        expectError(res, 400, 'invalid_request', undefined, 'notificationUrl');
      }
      const host = 'https://hooks.example.com/';
      const at = (n: number) => host + `conf-${tag(ctx)}-`.padEnd(n - host.length, 'x');
      expectStatus(await postSession(ctx, { notificationUrl: at(2048) }), 201, 'a notificationUrl of 2048 characters');
      expectError(await postSession(ctx, { notificationUrl: at(2049) }), 400, 'invalid_request', undefined, 'notificationUrl');
    },
  },
  {
    id: 'platform.limits.notification-secret-length',
    title: 'notificationSecret must be 16-200 characters; 15 or 201 are refused with 400',
    source: LIMITS,
    requires: [SESSION],
    serverOnly: true,
    async run(ctx) {
      const secret = (n: number) => `conf${tag(ctx)}`.padEnd(n, 's').slice(0, n);
      const notificationUrl = `https://hooks.example.com/conf-${tag(ctx)}`;
      for (const n of [16, 200]) expectStatus(await postSession(ctx, { notificationUrl, notificationSecret: secret(n) }), 201, `a notificationSecret of ${n} characters`);
      for (const n of [15, 201]) expectError(await postSession(ctx, { notificationUrl, notificationSecret: secret(n) }), 400, 'invalid_request', undefined, 'notificationSecret');
    },
  },
];

/** Last in the catalogue: it empties the key's burst. */
const rateLimit429: Scenario = {
  id: 'platform.limits.429-retry-after',
  title: 'Over the rate limit (Standard 100/s, burst 200) the answer is 429 rate_limit with an integer `Retry-After`; after waiting, requests pass again',
  source: LIMITS,
  requires: ['listProducts'],
  serverOnly: true,
  async run(ctx) {
    const sk = secretKey(ctx);
    const probe = await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: sk, query: { limit: 1 } });
    const limit = Number(probe.headers.get('x-ratelimit-limit'));
    if (!(limit > 0) || limit > 100) pendingBecause(`the key's limit is ${limit}/s; provoking a 429 would take too many requests`);
    // Standard: a burst of 2x the rate passes in one second; send more, in waves, until one is refused.
    const wave = 2 * limit + 60;
    let limited: HttpResult | undefined;
    let sent = 0;
    const started = Date.now();
    for (let i = 0; i < 4 && !limited; i++) {
      const answers = await Promise.all(
        Array.from({ length: wave }, () => ctx.request('checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: sk, query: { limit: 1 } }, [])),
      );
      sent += wave;
      limited = answers.find((a) => a.status === 429);
      for (const a of answers) assert.ok(a.status === 200 || a.status === 429, `a burst answer must be 200 or 429, got ${describe(a)}`);
    }
    const seconds = (Date.now() - started) / 1000;
    if (!limited) {
      // Only meaningful when the requests really went out faster than the limit allows.
      if (sent / seconds > 2.5 * limit) assert.fail(`${sent} requests in ${seconds.toFixed(1)} s (limit ${limit}/s) and none answered 429`);
      pendingBecause(`could not send faster than the limit from here (${sent} requests in ${seconds.toFixed(1)} s)`);
    }
    expectError(limited, 429, 'rate_limit');
    const retryAfter = limited.headers.get('retry-after');
    assert.match(retryAfter ?? '', /^\d+$/, `429 must carry Retry-After in seconds, got ${JSON.stringify(retryAfter)}`);
    assert.ok(Number(retryAfter) >= 1, 'Retry-After must be at least 1 second');
    expectRateHeaders(limited, '429');
    assert.equal(limited.headers.get('x-ratelimit-remaining'), '0', 'a refused request has nothing remaining');
    // Wait as told, then check that requests pass again (without the retrying helper).
    const burstEnded = Date.now();
    await sleep(Number(retryAfter) * 1000);
    let recovered: HttpResult | undefined;
    for (let i = 0; i < 15 && recovered?.status !== 200; i++) {
      if (i > 0) await sleep(1000);
      recovered = await ctx.request('checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: sk, query: { limit: 1 } });
    }
    expectStatus(recovered!, 200, 'a request after waiting Retry-After');
    // Leave the key's burst reserve refilled (Standard: over 10 seconds) for the clean-up and the next run.
    await sleep(Math.max(0, 11_000 - (Date.now() - burstEnded)));
  },
};

const idempotency: Scenario[] = [
  {
    id: 'platform.idempotency.replay',
    title: 'Repeating a POST with the same `Idempotency-Key` and parameters returns the first response without doing it again',
    source: IDEMPOTENCY,
    requires: ['createProduct', 'createCustomer'],
    serverOnly: true,
    async run(ctx) {
      const sk = secretKey(ctx);
      const key = `conf-${tag(ctx)}-replay`;
      const spec: RequestSpec = { method: 'POST', path: '/v1/products', key: sk, headers: { 'Idempotency-Key': key }, body: { name: `Conformance ${tag(ctx)} replay` } };
      const first = await call(ctx, 'checkout', 'createProduct', spec);
      expectStatus(first, 201, 'first request');
      const again = await call(ctx, 'checkout', 'createProduct', spec);
      assert.equal(again.status, first.status, 'the repeat must answer the first status');
      assert.equal(again.text, first.text, 'the repeat must answer the first body, byte for byte (same product, not a new one)');
      assert.equal(again.headers.get('idempotent-replayed'), 'true', 'a replayed answer carries Idempotent-Replayed: true');
      // The envelope endpoints too.
      const customerKey = `conf-${tag(ctx)}-replay-customer`;
      const cSpec: RequestSpec = { method: 'POST', path: '/v1/customers', key: sk, headers: { 'Idempotency-Key': customerKey }, body: { email: emailFor(ctx, 'replay'), externalId: `conf-${tag(ctx)}-replay` } };
      const c1 = await call(ctx, 'checkout', 'createCustomer', cSpec);
      const c2 = await call(ctx, 'checkout', 'createCustomer', cSpec);
      assert.equal(c2.status, c1.status, 'customer repeat: same status');
      assert.equal(c2.text, c1.text, 'customer repeat: same body');
    },
  },
  {
    id: 'platform.idempotency.key-reused-409',
    title: 'The same `Idempotency-Key` with other parameters is refused with 409 conflict (`idempotency_key_reused`)',
    source: IDEMPOTENCY,
    requires: ['createProduct', 'createPlan'],
    serverOnly: true,
    async run(ctx) {
      const sk = secretKey(ctx);
      const key = `conf-${tag(ctx)}-mismatch`;
      const first = await call(ctx, 'checkout', 'createProduct', { method: 'POST', path: '/v1/products', key: sk, headers: { 'Idempotency-Key': key }, body: { name: `Conformance ${tag(ctx)} one` } });
      expectStatus(first, 201, 'first request');
      const second = await call(ctx, 'checkout', 'createProduct', { method: 'POST', path: '/v1/products', key: sk, headers: { 'Idempotency-Key': key }, body: { name: `Conformance ${tag(ctx)} two` } });
      expectError(second, 409, 'conflict', 'idempotency_key_reused');
      // Envelope endpoint: the same key on another operation is other parameters too.
      const plan = await call(ctx, 'checkout', 'createPlan', {
        method: 'POST',
        path: '/v1/plans',
        key: sk,
        headers: { 'Idempotency-Key': key },
        body: { productId: first.json.id, name: 'x', amount: 5, currency: 'USD', interval: 'month' },
      });
      expectEnvelopeError(plan, 409, 'conflict', 'idempotency_key_reused');
    },
  },
  {
    id: 'platform.idempotency.concurrent-once',
    title: 'Concurrent repeats of one `Idempotency-Key` run the operation once: each answer is the first response or 409 `idempotency_request_in_progress`',
    source: IDEMPOTENCY,
    requires: ['createProduct'],
    serverOnly: true,
    async run(ctx) {
      const spec: RequestSpec = { method: 'POST', path: '/v1/products', key: secretKey(ctx), headers: { 'Idempotency-Key': `conf-${tag(ctx)}-race` }, body: { name: `Conformance ${tag(ctx)} race` } };
      const answers = await Promise.all(Array.from({ length: 5 }, () => call(ctx, 'checkout', 'createProduct', spec)));
      const created = answers.filter((a) => a.status === 201);
      assert.ok(created.length >= 1, `at least one answer must be the created product: ${answers.map((a) => a.status).join(', ')}`);
      for (const a of answers) {
        if (a.status === 201) continue;
        expectError(a, 409, 'conflict', 'idempotency_request_in_progress');
      }
      assert.equal(new Set(created.map((a) => a.json.id)).size, 1, 'every successful answer must be the same product (one execution)');
    },
  },
  {
    id: 'platform.idempotency.per-merchant',
    title: 'Idempotency keys belong to one merchant: another merchant using the same key runs its own request',
    source: IDEMPOTENCY,
    requires: ['createProduct'],
    serverOnly: true,
    async run(ctx) {
      const other = otherSecretKey(ctx);
      const key = `conf-${tag(ctx)}-per-merchant`;
      const body = { name: `Conformance ${tag(ctx)} shared key` };
      const mine = await call(ctx, 'checkout', 'createProduct', { method: 'POST', path: '/v1/products', key: secretKey(ctx), headers: { 'Idempotency-Key': key }, body });
      const theirs = await call(ctx, 'checkout', 'createProduct', { method: 'POST', path: '/v1/products', key: other, headers: { 'Idempotency-Key': key }, body });
      expectStatus(mine, 201, 'my request');
      expectStatus(theirs, 201, 'the other merchant\'s request');
      assert.notEqual(theirs.json.id, mine.json.id, 'each merchant must get its own product');
      assert.equal(theirs.headers.get('idempotent-replayed'), null, 'the other merchant\'s answer must not be a replay');
    },
  },
  clocked('platform.idempotency.expires-after-24h', 'An `Idempotency-Key` is remembered for 24 hours; after that the same key runs a new request', IDEMPOTENCY, ['createProduct']),
  pending('platform.idempotency.any-post', 'Any POST accepts `Idempotency-Key`, including session create, confirm, refund and capture (a retry does not repeat the payment)', IDEMPOTENCY, [
    SESSION,
    'tokenizeCard',
    'confirmCheckoutSession',
    'refundCheckoutSession',
  ]),
];

const versioning: Scenario[] = [
  {
    id: 'platform.versioning.api-v1-alias',
    title: 'The earlier prefix `/api/v1` is accepted for the same operations and answers as `/v1` does',
    source: VERSIONING,
    requires: ['createProduct', 'retrieveProduct', 'listPlans', 'createCustomer'],
    serverOnly: true,
    async run(ctx) {
      const sk = secretKey(ctx);
      const created = await call(ctx, 'checkout', 'createProduct', { method: 'POST', path: '/api/v1/products', key: sk, body: { name: `Conformance ${tag(ctx)} alias` } });
      expectStatus(created, 201, 'POST /api/v1/products');
      const viaV1 = await call(ctx, 'checkout', 'retrieveProduct', { method: 'GET', path: `/v1/products/${created.json.id}`, key: sk });
      const viaApi = await call(ctx, 'checkout', 'retrieveProduct', { method: 'GET', path: `/api/v1/products/${created.json.id}`, key: sk });
      expectStatus(viaApi, 200, 'GET /api/v1/products/{id}');
      assert.deepEqual(viaApi.json, viaV1.json, '/api/v1 must answer exactly as /v1');
      expectStatus(await call(ctx, 'checkout', 'listPlans', { method: 'GET', path: '/api/v1/plans', key: sk, query: { limit: 1 } }), 200, 'GET /api/v1/plans');
      const customer = await call(ctx, 'checkout', 'createCustomer', { method: 'POST', path: '/api/v1/customers', key: sk, body: { email: emailFor(ctx, 'alias') } });
      envelopeData(customer, 201, 'POST /api/v1/customers');
      // The alias keeps the error behaviour too.
      expectError(await call(ctx, 'checkout', 'retrieveProduct', { method: 'GET', path: '/api/v1/products/2147483000', key: sk }), 404, 'not_found');
    },
  },
  {
    id: 'platform.versioning.v1-prefix',
    title: 'Paths begin with `/v1`',
    source: VERSIONING,
    requires: ['listProducts'],
    serverOnly: true,
    async run(ctx) {
      expectStatus(await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: secretKey(ctx), query: { limit: 1 } }), 200, 'GET /v1/products');
    },
  },
  pending('platform.versioning.webhook-api-version', 'Each webhook event carries `apiVersion`, a `YYYY-MM-DD` date', VERSIONING, ['createWebhookConfiguration', 'sendWebhookTestEvent', 'listWebhookDeliveries']),
];

const conventions: Scenario[] = [
  {
    id: 'platform.conventions.object-discriminator',
    title: 'A successful call returns the resource itself, with its `object` discriminator (`product`, `plan`, `customer`, `list`)',
    source: CONVENTIONS,
    requires: ['createProduct', 'listProducts', 'createPlan', 'listPlans', 'createCustomer', 'listCustomers'],
    serverOnly: true,
    async run(ctx) {
      const sk = secretKey(ctx);
      const product = await newProduct(ctx, 'discriminator');
      assert.equal(product.object, 'product', 'a product answers object "product" at the top level');
      const plan = await newPlan(ctx, product.id, 'discriminator');
      assert.equal(plan.object, 'plan', 'a plan carries object "plan"');
      const customer = envelopeData(await postCustomer(ctx, { email: emailFor(ctx, 'discriminator') }), 201, 'create a customer');
      assert.equal(customer.object, 'customer', 'a customer carries object "customer"');
      const products = await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: sk, query: { limit: 1 } });
      assert.equal(products.json.object, 'list', 'the product list carries object "list"');
      assert.equal(envelopeData(await call(ctx, 'checkout', 'listPlans', { method: 'GET', path: '/v1/plans', key: sk, query: { limit: 1 } }), 200, 'list plans').object, 'list');
      assert.equal(envelopeData(await call(ctx, 'checkout', 'listCustomers', { method: 'GET', path: '/v1/customers', key: sk, query: { limit: 1 } }), 200, 'list customers').object, 'list');
    },
  },
  {
    id: 'platform.conventions.envelope',
    title: 'Plan and customer endpoints answer inside the envelope `{success, errorCode, errorMessage, data}`; products answer the object directly',
    source: CONVENTIONS,
    requires: ['createProduct', 'retrieveProduct', 'createPlan', 'retrievePlan', 'createCustomer', 'retrieveCustomer'],
    serverOnly: true,
    async run(ctx) {
      const sk = secretKey(ctx);
      const product = await newProduct(ctx, 'envelope');
      const direct = await call(ctx, 'checkout', 'retrieveProduct', { method: 'GET', path: `/v1/products/${product.id}`, key: sk });
      assert.equal(direct.json.success, undefined, 'a product is not wrapped in the envelope');
      assert.equal(direct.json.id, product.id);
      const plan = await newPlan(ctx, product.id, 'envelope');
      assert.equal(envelopeData(await call(ctx, 'checkout', 'retrievePlan', { method: 'GET', path: `/v1/plans/${plan.id}`, key: sk }), 200, 'retrieve plan').id, plan.id);
      const customer = envelopeData(await postCustomer(ctx, { email: emailFor(ctx, 'envelope') }), 201, 'create customer');
      assert.equal(envelopeData(await call(ctx, 'checkout', 'retrieveCustomer', { method: 'GET', path: `/v1/customers/${customer.id}`, key: sk }), 200, 'retrieve customer').id, customer.id);
    },
  },
  {
    id: 'platform.conventions.json-camelcase-iso-timestamps',
    title: 'Bodies are JSON with camelCase field names; timestamps are ISO 8601 with a `Z` or `+00:00` suffix',
    source: CONVENTIONS,
    requires: ['createProduct', 'createPlan', 'createCustomer'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'conventions');
      const plan = await newPlan(ctx, product.id, 'conventions');
      const customer = envelopeData(await postCustomer(ctx, { email: emailFor(ctx, 'conventions'), metadata: { order: '1' } }), 201, 'create customer');
      for (const [what, obj] of [['product', product], ['plan', plan], ['customer', customer]] as const) {
        for (const field of Object.keys(obj)) assert.match(field, /^[a-z][a-zA-Z0-9]*$/, `${what} field ${field} must be camelCase`);
        assert.match(obj.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|\+00:00)$/, `${what}.createdAt must be ISO 8601 UTC`);
      }
    },
  },
  {
    id: 'platform.conventions.money-numbers',
    title: 'Money amounts are JSON numbers (decimals), kept exactly',
    source: CONVENTIONS,
    requires: ['createProduct', 'createPlan', 'retrievePlan'],
    serverOnly: true,
    async run(ctx) {
      const product = await newProduct(ctx, 'money');
      const plan = await newPlan(ctx, product.id, 'money', { amount: 49.99 });
      assert.equal(plan.amount, 49.99, 'the amount must come back as the number 49.99');
      const read = envelopeData(await call(ctx, 'checkout', 'retrievePlan', { method: 'GET', path: `/v1/plans/${plan.id}`, key: secretKey(ctx) }), 200, 'retrieve plan');
      assert.equal(typeof read.amount, 'number', 'amount is a JSON number');
      assert.equal(read.amount, 49.99);
    },
  },
  pending('platform.conventions.https-only', 'The service is served over HTTPS only (checked against a deployment, not a local server)', source(CHECKOUT_DOC, 'Checkout and Subscription Billing API'), ['listProducts']),
];

const clientToken: Scenario[] = [
  {
    id: 'platform.client-token.always-501',
    title: '`POST /v1/client-token` always answers 501, whoever calls and whatever is sent (use the publishable key with the session\'s client secret)',
    source: CLIENT_TOKEN,
    requires: ['createClientToken'],
    serverOnly: false,
    async run(ctx) {
      const specs: Pick<RequestSpec, 'key' | 'body'>[] = [{ key: null }, { key: secretKey(ctx) }];
      // A body on an operation that declares none is refused by a mock (415); the server ignores it.
      if (ctx.options.target === 'server') specs.push({ key: secretKey(ctx), body: { sessionId: 'cs_test_conformance' } });
      for (const spec of specs) {
        const res = await call(ctx, 'checkout', 'createClientToken', { method: 'POST', path: '/v1/client-token', ...spec });
        expectStatus(res, 501, 'POST /v1/client-token');
        assert.ok(res.json?.error, `501 answers the general error body: ${res.text.slice(0, 200)}`);
      }
    },
  },
  {
    id: 'platform.client-token.scope-unavailable',
    title: 'The `client_token.generate` scope is not available to any key: even the server key gets 501',
    source: AUTH,
    requires: ['createClientToken'],
    serverOnly: true,
    async run(ctx) {
      const res = await call(ctx, 'checkout', 'createClientToken', { method: 'POST', path: '/v1/client-token', key: secretKey(ctx) });
      expectStatus(res, 501, 'POST /v1/client-token with the server key');
    },
  },
];

export const platformScenarios: Scenario[] = [...auth, ...errors, ...idempotency, ...versioning, ...conventions, ...clientToken, ...limits, rateLimit429];
