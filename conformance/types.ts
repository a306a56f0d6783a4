// The shapes shared by the conformance suite's parts: the context a case runs in, and the
// results the report is made of.
import type { CheckoutClient, CommerceClient } from '../sdk/src/index.js';
import type { Api } from './api.js';
import type { ContractValidator } from './validator.js';

export type { Api };

/** A plain HTTP answer, as the suite sees it. */
export interface HttpResult {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body, or undefined. */
  json: any;
}

export interface RequestSpec {
  method: string;
  path: string;
  /** `Authorization: Bearer` key; `null` sends no Authorization header. */
  key?: string | null;
  /** `x-api-key`. */
  apiKey?: string | null;
  clientSecret?: string | null;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  query?: Record<string, string | number | boolean>;
  /** A 429 is the answer, not waited out and retried (for the checks that provoke one). */
  no429Retry?: boolean;
}

export interface ConformanceOptions {
  baseUrl: string;
  /** Where the Commerce interface answers, when not at `baseUrl` (the Prism mock serves it on its own port). */
  commerceBaseUrl?: string | undefined;
  /** Secret key of the merchant under test (test mode). */
  secretKey: string;
  publishableKey?: string | undefined;
  /** Key for the Commerce interface (`x-api-key`); defaults to the secret key. */
  apiKey?: string | undefined;
  /** A secret key of a second merchant, for the "another merchant's id answers 404" checks. */
  otherSecretKey?: string | undefined;
  /**
   * The same merchant's live secret key (`sk_live_…`), for the checks that the two modes keep their objects apart.
   * Nothing is charged: those checks only create and read objects. Without it they are pending.
   */
  liveSecretKey?: string | undefined;
  /** `server` checks behaviour; `mock` (the Prism mock) checks only that answers keep the contract. */
  target: 'server' | 'mock';
  /** Only these operationIds count as implemented (from `npm run operations -- --json`); otherwise a 501 says so. */
  implemented?: Set<string> | undefined;
  reportDir?: string | undefined;
  /** Run only the contract part (no behaviour scenarios). */
  contractOnly?: boolean;
  /** Run only the behaviour scenarios (no contract part): the self-test's quick runs. */
  scenariosOnly?: boolean;
  /** Print one line per case. */
  verbose?: boolean;
  /** Run only the scenarios whose id starts with one of these (the contract part still runs unless `contractOnly`). */
  only?: string[] | undefined;
  /** How many operations and scenarios run at once (default `DEFAULT_CONCURRENCY`); exclusive scenarios always run alone. */
  concurrency?: number | undefined;
  /**
   * Where the target reaches this machine's webhook receiver (`--receiver-url`, `--receiver-port`): the
   * public base URL, and the port the suite listens on. Without it the receiver is on 127.0.0.1, which
   * only a target that delivers test-mode webhooks to loopback reaches.
   */
  receiver?: { url: string; port: number } | undefined;
}

/** The run's sandbox merchant: a context acting for it, and its id; or why there is none. */
export type SandboxMerchant = { ctx: ConformanceContext; id: number } | { unavailable: string };

/**
 * Which of the run's sandbox merchants: `clock`, one whose clock may have been moved (what falls due
 * there then happens in the background, by its clock, while a later unit holds it), or `still`, one
 * whose clock no unit ever moves (for what reads merchant-wide state such as the balance).
 */
export type SandboxKind = 'clock' | 'still';

/** What a case or a scenario can use. */
export interface ConformanceContext {
  options: ConformanceOptions;
  validator: ContractValidator;
  /** A unique tag for this run; put it in every name you create so runs never collide. */
  runId: string;
  /** Sends a request and validates the answer against the contract (problems go to `problems`). */
  request(api: Api, operationId: string, spec: RequestSpec, problems?: string[]): Promise<HttpResult>;
  /** The SDK clients, authenticated with the options' keys. */
  checkout: CheckoutClient;
  commerce: CommerceClient;
  /** Whether an operation is implemented by the target (a 501 answer, or the implemented list, says no). */
  isImplemented(operationId: string): Promise<boolean>;
  /** Registers clean-up work that runs at the end, newest first. */
  onCleanup(fn: () => Promise<unknown>): void;
  /**
   * Runs `fn` when the case or scenario that registered it ends (best effort), or at the end of the
   * run on a context that is not one unit's. For what costs the target while it lives: an enabled
   * webhook configuration gets a delivery of every event it is subscribed to until it is deleted.
   */
  onUnitEnd(fn: () => Promise<unknown>): void;
  /**
   * A throwaway sandbox merchant of this scenario or contract operation (made on its first use, by
   * `createTestMerchant`), for what moves the sandbox clock: the merchant given is never moved in time,
   * and what runs at the same time never shares the clock. Or why there is none. `still`: one whose clock
   * no unit moves, for reading merchant-wide state (the balance) that due work would change meanwhile.
   * A unit has one sandbox merchant: the kind it asks for first.
   */
  sandboxMerchant(kind?: SandboxKind): Promise<SandboxMerchant>;
  /**
   * A second merchant for the checks that another merchant's objects stay out of reach, made on first use
   * (through `createTestMerchant`) when the run was not given `--other-secret-key`. Or why there is none.
   */
  otherMerchant(): Promise<SandboxMerchant>;
  /** The same context acting for another merchant (a sandbox merchant's keys); clean-ups and the run id are shared. */
  withKeys(keys: { secretKey: string; publishableKey?: string | undefined }): ConformanceContext;
}

export type Outcome = 'passed' | 'failed' | 'pending';

/** One row of the operations table. */
export interface OperationResult {
  api: Api;
  operationId: string;
  method: string;
  path: string;
  implemented: boolean | 'unknown';
  /** How long its cases took. */
  durationMs?: number;
  /** pass / fail / not checked (why) */
  success: { outcome: Outcome; note?: string };
  /** Each error case: name and outcome. */
  errors: { name: string; outcome: Outcome; note?: string }[];
  /** Every answer received for this operation validated against the contract. */
  schemaValid: boolean;
  problems: string[];
}

/** A behaviour scenario: one rule of a source document. */
export interface Scenario {
  /** Stable id, e.g. `checkout.plans.update-immutable-fields`. */
  id: string;
  /** The rule, in a sentence, as the report shows it. */
  title: string;
  /** Where the rule is: document and section, e.g. `checkout-billing-api.md › Plans`. */
  source: string;
  /** Operations the scenario needs; when one is not implemented the scenario is pending. */
  requires: string[];
  /** Needs the sandbox clock (`advanceTestClock`); pending when the target does not offer it. */
  needsClock?: boolean;
  /** Not meaningful against a mock (it checks behaviour, not shapes). Most scenarios are. */
  serverOnly?: boolean;
  /**
   * Must run alone: nothing else runs while it does (it empties the key's or the address's rate-limit
   * burst, changes what every other check of the merchant sees, or waits a few seconds for a webhook to
   * reach this machine, which the deliveries of many checks at once hold back). Runs after the others, one at a time.
   */
  exclusive?: boolean;
  /**
   * About how long the check takes against Till on PGlite, when it is long by design (it waits out a
   * timeout, moves a subscription through days of the sandbox clock): the runner starts the longest
   * first, so their waits overlap the many short checks instead of ending the run. Absent: short
   * (a clock scenario without it counts as `CLOCK_EXPECTED_MS` of run-scenarios.ts).
   */
  expectedMs?: number;
  /**
   * Reads what every other check of the merchant changes (its account balance, the newest of its
   * roles): runs on a sandbox merchant of its own (as clock scenarios do), so it can run with the others;
   * one whose clock no unit moves, so nothing falls due on it in the background while the check reads it.
   */
  ownMerchant?: boolean;
  /** The check. Throw (e.g. with `expect`) to fail. Absent: written as pending until a later capability. */
  run?: (ctx: ConformanceContext) => Promise<void>;
}

export interface ScenarioResult {
  id: string;
  title: string;
  source: string;
  outcome: Outcome;
  /** Why it failed or is pending. */
  note?: string;
  /** How long it ran. */
  durationMs?: number;
  /** The merchant it ran on, when not the one given: `sandbox` (a merchant of its own, made by `createTestMerchant`). */
  merchant?: 'sandbox';
}

export interface Report {
  target: string;
  baseUrl: string;
  startedAt: string;
  /** The whole run, in milliseconds. */
  durationMs?: number;
  /** The first sandbox merchant made for a clock scenario or case (id), or why they had none. */
  sandboxMerchant?: { id: number } | { unavailable: string };
  /** How many sandbox merchants the run made: each clock scenario and case has one of its own. */
  sandboxMerchants?: number;
  /** How many operations and scenarios ran at once. */
  concurrency?: number;
  /** The second merchant the suite made for itself (no `--other-secret-key`), or why it could not. */
  otherMerchant?: { id: number } | { unavailable: string };
  operations: OperationResult[];
  scenarios: ScenarioResult[];
  totals: { passed: number; failed: number; pending: number };
}
