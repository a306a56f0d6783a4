import { randomBytes } from 'node:crypto';
import { createCheckoutClient, createCommerceClient } from '../sdk/src/index.js';
import type { Api, ConformanceContext, ConformanceOptions, HttpResult, RequestSpec, SandboxMerchant } from './types.js';
import type { ContractValidator } from './validator.js';

/** How long one request may take (a clock advance runs every due item on the way). */
const REQUEST_TIMEOUT_MS = 5 * 60_000;

/** Thrown by a scenario to say it cannot run here (for example: no second merchant key). */
export const PENDING_PREFIX = 'PENDING:';

/** The context cases and scenarios run in: plain HTTP with contract checks, SDK clients, clean-up. */
export function createContext(options: ConformanceOptions, validator: ContractValidator): ConformanceContext & { cleanup(): Promise<void> } {
  const runId = `conf${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const cleanups: (() => Promise<unknown>)[] = [];
  const seen501 = new Set<string>();
  const shared: Shared = { runId, cleanups, seen501 };
  const ctx = contextFor(options, validator, shared);
  return {
    ...ctx,
    async cleanup() {
      for (const fn of cleanups.reverse()) {
        try {
          await fn();
        } catch {
          // Best effort: a deployment may refuse; what was created carries the run id.
        }
      }
    },
  };
}

/** What every context of one run shares, whichever merchant it acts for. */
interface Shared {
  runId: string;
  cleanups: (() => Promise<unknown>)[];
  seen501: Set<string>;
  sandbox?: Promise<SandboxMerchant>;
}

/** Makes the run's sandbox merchant through the `createTestMerchant` test helper. */
async function makeSandboxMerchant(ctx: ConformanceContext): Promise<SandboxMerchant> {
  if (ctx.options.target !== 'server') return { unavailable: 'a mock has no merchants' };
  if (!(await ctx.isImplemented('createTestMerchant'))) return { unavailable: 'the target does not offer createTestMerchant' };
  const res = await ctx.request(
    'checkout',
    'createTestMerchant',
    { method: 'POST', path: '/v1/test-helpers/merchants', key: ctx.options.secretKey, body: { name: `conformance ${ctx.runId}` } },
    [],
  );
  if (res.status === 501) return { unavailable: 'the target does not implement createTestMerchant' };
  if (res.status !== 201 || typeof res.json?.secretKey !== 'string')
    return { unavailable: `createTestMerchant answered ${res.status} ${res.text.slice(0, 200)}` };
  return { ctx: ctx.withKeys({ secretKey: res.json.secretKey, publishableKey: res.json.publishableKey }), id: res.json.id };
}

function contextFor(options: ConformanceOptions, validator: ContractValidator, shared: Shared): ConformanceContext {
  const { runId, cleanups, seen501 } = shared;
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const commerceBaseUrl = (options.commerceBaseUrl ?? options.baseUrl).replace(/\/+$/, '');

  async function request(api: Api, operationId: string, spec: RequestSpec, problems?: string[]): Promise<HttpResult> {
    const headers: Record<string, string> = { accept: 'application/json, */*', ...spec.headers };
    if (spec.key) headers.authorization = `Bearer ${spec.key}`;
    if (spec.apiKey) headers['x-api-key'] = spec.apiKey;
    if (spec.clientSecret) headers['x-client-secret'] = spec.clientSecret;
    let body: string | undefined;
    if (spec.rawBody !== undefined) body = spec.rawBody;
    else if (spec.body !== undefined) body = JSON.stringify(spec.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const query = spec.query ? `?${new URLSearchParams(Object.entries(spec.query).map(([k, v]) => [k, String(v)])).toString()}` : '';
    const url = `${api === 'commerce' ? commerceBaseUrl : baseUrl}${spec.path}${query}`;
    // As the document tells clients: on 429 wait Retry-After, then retry with exponential backoff.
    // The timeout is generous: an advance of the test clock runs everything due on the way (every
    // renewal of the run's subscriptions); giving up early leaves the clock held (409 on the next).
    let response = await fetch(url, { method: spec.method, headers, body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    for (let attempt = 0; response.status === 429 && attempt < 4; attempt++) {
      const wait = Math.max(1, Number(response.headers.get('retry-after')) || 1) * 1000 * 2 ** attempt;
      await response.arrayBuffer();
      await new Promise((r) => setTimeout(r, Math.min(wait, 15_000)));
      response = await fetch(url, { method: spec.method, headers, body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    }
    const isText = /json|text|xml/.test(response.headers.get('content-type') ?? '') || !response.headers.get('content-type');
    const isStream = (response.headers.get('content-type') ?? '').startsWith('text/event-stream');
    const text = isStream ? await firstMessage(response) : isText ? await response.text() : Buffer.from(await response.arrayBuffer()).toString('latin1');
    let json: unknown;
    try {
      json = text && isText ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    // A 501 means "not implemented", except for an operation whose only documented answer is 501.
    // A 501 for part of an operation (say, one kind of session) names no operation: only a 501
    // that names the operation itself means the operation is not implemented.
    const onlyAnswers501 = Object.keys(validator.operation(operationId).operation.responses ?? {}).join() === '501';
    const namesOperation = response.status === 501 && text.includes(`(${operationId})`);
    if (response.status === 501 && !onlyAnswers501 && (namesOperation || !text.includes('not implemented'))) seen501.add(operationId);
    const found = validator.validateResponse(operationId, response.status, response.headers, text);
    if (found.length > 0) {
      const described = found.map((p) => `${spec.method} ${spec.path} → ${response.status}: ${p}`);
      if (problems) problems.push(...described);
      else throw new Error(`The answer breaks the contract:\n  ${described.join('\n  ')}`);
    }
    return { status: response.status, headers: response.headers, text, json };
  }

  async function isImplemented(operationId: string): Promise<boolean> {
    if (options.target === 'mock') return true;
    if (options.implemented) return options.implemented.has(operationId);
    if (seen501.has(operationId)) return false;
    return true;
  }

  const context: ConformanceContext = {
    options,
    validator,
    runId,
    request,
    isImplemented,
    // No retries: the suite judges each answer the deployment gives, a 5xx included. No 30 s
    // timeout either: an advance of the test clock runs everything due on the way and may take
    // longer; giving up on it early leaves the clock held and the next advance answers 409.
    checkout: createCheckoutClient({ baseUrl, secretKey: options.secretKey, maxRetries: 0, timeoutMs: REQUEST_TIMEOUT_MS }),
    commerce: createCommerceClient({ baseUrl: commerceBaseUrl, apiKey: options.apiKey ?? options.secretKey, maxRetries: 0, timeoutMs: REQUEST_TIMEOUT_MS }),
    onCleanup: (fn) => cleanups.push(fn),
    // The Commerce key follows the secret key: a sandbox merchant has no other.
    withKeys: (keys) => contextFor({ ...options, secretKey: keys.secretKey, publishableKey: keys.publishableKey, apiKey: keys.secretKey }, validator, shared),
    sandboxMerchant() {
      shared.sandbox ??= makeSandboxMerchant(context);
      return shared.sandbox;
    },
  };
  return context;
}

/** An event stream never ends by itself: its start, up to its first blank line, then it is closed. */
async function firstMessage(response: Response): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes('\n\n')) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel().catch(() => {});
  return text;
}
