// The context conformance cases and scenarios run in: the run's id and clean-ups, requests checked against
// the contract (request.ts), the SDK clients, which operations are implemented, and the sandbox merchant.
import { randomBytes } from 'node:crypto';
import { createCheckoutClient, createCommerceClient } from '../sdk/src/index.js';
import type { Api, ConformanceContext, ConformanceOptions, HttpResult, RequestSpec, SandboxKind, SandboxMerchant } from './types.js';
import { REQUEST_TIMEOUT_MS, sendRequest } from './request.js';
import type { ContractValidator } from './validator.js';
import { DEFAULT_CONCURRENCY } from './pool.js';
import { SandboxLender } from './sandboxes.js';

/** Thrown by a scenario to say it cannot run here (for example: no second merchant key). */
export const PENDING_PREFIX = 'PENDING:';

/** The context cases and scenarios run in: plain HTTP with contract checks, SDK clients, clean-up. */
export function createContext(
  options: ConformanceOptions,
  validator: ContractValidator,
  onOtherMerchant: (made: SandboxMerchant) => void = () => {},
  onSandboxMerchant: (made: SandboxMerchant) => void = () => {},
): RunContext {
  const runId = `conf${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const cleanups: (() => Promise<unknown>)[] = [];
  const seen501 = new Set<string>();
  const shared: Shared = { runId, cleanups, seen501, onOtherMerchant };
  const ctx = contextFor(options, validator, shared, {});
  // Each sandbox merchant's context: its own sandbox merchant is itself.
  const make = (kind: SandboxKind) => async (): Promise<SandboxMerchant> => {
    const m = await makeSandboxMerchant(ctx, kind);
    onSandboxMerchant(m);
    if (!('ctx' in m)) return m;
    const own: UnitState = { pinned: true };
    const made = { id: m.id, ctx: contextFor(m.ctx.options, validator, shared, own) };
    own.lease = { kind, merchant: Promise.resolve(made) };
    return made;
  };
  const max = Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY);
  shared.sandboxes = { clock: new SandboxLender(make('clock'), max), still: new SandboxLender(make('still'), max) };
  return {
    ...ctx,
    async unit(work) {
      const state: UnitState = { ends: [] };
      try {
        return await work(contextFor(options, validator, shared, state));
      } finally {
        for (const fn of state.ends!.reverse()) await fn().catch(() => undefined);
        if (state.lease) shared.sandboxes![state.lease.kind].give(await state.lease.merchant);
      }
    },
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

/** The run's context, the contexts of its units (one per operation or scenario), and its clean-up. */
export interface RunContext extends ConformanceContext {
  /**
   * Runs one contract operation or one scenario in a context of its own: the run's, except that the
   * sandbox merchant it asks for is lent to it alone until it ends. Units that run at once never
   * move each other's clock.
   */
  unit<T>(work: (ctx: ConformanceContext) => Promise<T>): Promise<T>;
  cleanup(): Promise<void>;
}

/** What every context of one run shares, whichever merchant it acts for. */
interface Shared {
  runId: string;
  cleanups: (() => Promise<unknown>)[];
  seen501: Set<string>;
  other?: Promise<SandboxMerchant>;
  /** Told once when the run makes its second merchant (or cannot). */
  onOtherMerchant: (made: SandboxMerchant) => void;
  /**
   * The run's sandbox merchants, lent to one unit at a time: those whose clock may move, and those
   * whose clock never does (nothing falls due on them while a later unit reads their balance).
   */
  sandboxes?: Record<SandboxKind, SandboxLender>;
}

/** What one unit (an operation's cases, or a scenario) has of its own: the sandbox merchant lent to it, once asked for. */
interface UnitState {
  lease?: { kind: SandboxKind; merchant: Promise<SandboxMerchant> };
  /** What to undo when the unit ends (absent on a context that is no unit's: then at the run's end). */
  ends?: (() => Promise<unknown>)[];
  /** A sandbox merchant's own context: its sandbox merchant is itself, never lent. */
  pinned?: boolean;
}

/** Makes a sandbox merchant for the run through the `createTestMerchant` test helper (`label` names what it is for). */
async function makeSandboxMerchant(ctx: ConformanceContext, label: string): Promise<SandboxMerchant> {
  if (ctx.options.target !== 'server') return { unavailable: 'a mock has no merchants' };
  if (!(await ctx.isImplemented('createTestMerchant'))) return { unavailable: 'the target does not offer createTestMerchant' };
  const res = await ctx.request(
    'checkout',
    'createTestMerchant',
    { method: 'POST', path: '/v1/test-helpers/merchants', key: ctx.options.secretKey, body: { name: `conformance ${label} ${ctx.runId}` } },
    [],
  );
  if (res.status === 501) return { unavailable: 'the target does not implement createTestMerchant' };
  if (res.status !== 201 || typeof res.json?.secretKey !== 'string')
    return { unavailable: `createTestMerchant answered ${res.status} ${res.text.slice(0, 200)}` };
  return { ctx: ctx.withKeys({ secretKey: res.json.secretKey, publishableKey: res.json.publishableKey }), id: res.json.id };
}

function contextFor(options: ConformanceOptions, validator: ContractValidator, shared: Shared, unit: UnitState): ConformanceContext {
  const { runId, cleanups, seen501 } = shared;
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const commerceBaseUrl = (options.commerceBaseUrl ?? options.baseUrl).replace(/\/+$/, '');

  const target = { baseUrl, commerceBaseUrl, validator, seen501 };
  const request = (api: Api, operationId: string, spec: RequestSpec, problems?: string[]): Promise<HttpResult> =>
    sendRequest(target, api, operationId, spec, problems);

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
    onUnitEnd: (fn) => (unit.ends ?? cleanups).push(fn),
    // The Commerce key follows the secret key: a sandbox merchant has no other.
    withKeys: (keys) =>
      contextFor({ ...options, secretKey: keys.secretKey, publishableKey: keys.publishableKey, apiKey: keys.secretKey }, validator, shared, unit),
    sandboxMerchant(kind = 'clock') {
      unit.lease ??= { kind, merchant: shared.sandboxes![kind].take() };
      return unit.lease.merchant;
    },
    otherMerchant() {
      shared.other ??= makeSandboxMerchant(context, 'other').then((made) => {
        shared.onOtherMerchant(made);
        return made;
      });
      return shared.other;
    },
  };
  return context;
}
