// The behaviour scenarios as units of the runner's pool: why one is pending before it runs, how it
// runs (a clock scenario on a sandbox merchant of its own), and its result in its catalogue place.
import { PENDING_PREFIX } from './context.js';
import type { Unit } from './pool.js';
import type { ConformanceContext, SandboxMerchant, Scenario, ScenarioResult } from './types.js';

/** What the scenario part tells as each scenario finishes. */
export interface ScenarioTick {
  emit(event: { kind: 'scenario'; result: ScenarioResult; index: number; count: number; done: number; elapsedMs: number }): void;
  elapsed(): number;
}

/** What the scenario part needs of the run's context: its options, what is implemented, and a context per scenario. */
export interface ScenarioHost {
  options: ConformanceContext['options'];
  isImplemented(operationId: string): Promise<boolean>;
  /** Runs `work` in a context of the scenario's own (a sandbox merchant it asks for is lent to it alone). */
  unit<T>(work: (ctx: ConformanceContext) => Promise<T>): Promise<T>;
}

/** An error's message, with its cause when it has one (`fetch failed` says nothing of why). */
export function errorMessage(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `${(err.cause as Error & { code?: string }).code ?? ''} ${err.cause.message}`.trim() : undefined;
  return cause ? `${err.message} (${cause})` : err.message;
}

async function runScenario(ctx: ConformanceContext, scenario: Scenario): Promise<Pick<ScenarioResult, 'outcome' | 'note'>> {
  try {
    await scenario.run!(ctx);
    return { outcome: 'passed' };
  } catch (err) {
    const message = errorMessage(err);
    return message.startsWith(PENDING_PREFIX)
      ? { outcome: 'pending', note: message.slice(PENDING_PREFIX.length).trim() }
      : { outcome: 'failed', note: message.slice(0, 500) };
  }
}

/** The operations of `requires` the target does not implement (a 501 seen so far, or the implemented list). */
async function notImplemented(host: ScenarioHost, requires: string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const op of requires) if (!(await host.isImplemented(op))) missing.push(op);
  return missing;
}

/** Why a scenario is pending before it runs (a mock, an operation not implemented, no clock, no check), or undefined. */
async function pendingBefore(host: ScenarioHost, scenario: Scenario): Promise<string | undefined> {
  const missing = await notImplemented(host, scenario.requires);
  if (host.options.target === 'mock' && scenario.serverOnly !== false) return 'behaviour is not checked against a mock';
  if (missing.length > 0) return `not implemented: ${missing.join(', ')}`;
  if (scenario.needsClock && !(await host.isImplemented('advanceTestClock'))) return 'needs the sandbox clock, which the target does not offer';
  if (!scenario.run) return 'no check written yet';
  return undefined;
}

/**
 * Runs a clock scenario (or one that reads merchant-wide state) on a sandbox merchant of its own: the
 * merchant given is never moved in time, and what runs at the same time never shares its clock or balance.
 * One that reads merchant-wide state without moving the clock gets a merchant whose clock no unit moves:
 * on one whose clock was moved, what fell due meanwhile (a settlement, a payout) runs in the background
 * by its clock and changes the balance under the check.
 */
async function onSandbox(ctx: ConformanceContext, scenario: Scenario): Promise<Pick<ScenarioResult, 'outcome' | 'note' | 'merchant'>> {
  const made: SandboxMerchant = await ctx.sandboxMerchant(scenario.needsClock ? 'clock' : 'still');
  if ('ctx' in made) return { ...(await runScenario(made.ctx, scenario)), merchant: 'sandbox' };
  return { outcome: 'pending', note: `needs a sandbox merchant of its own, so the merchant given is never moved in time: ${made.unavailable}` };
}

/** One scenario's result: pending, or run (a clock or `ownMerchant` scenario on a sandbox merchant of its own). */
async function scenarioResult(host: ScenarioHost, scenario: Scenario): Promise<ScenarioResult> {
  const t0 = Date.now();
  const base = { id: scenario.id, title: scenario.title, source: scenario.source };
  let result: ScenarioResult;
  try {
    const pending = await pendingBefore(host, scenario);
    if (pending !== undefined) result = { ...base, outcome: 'pending', note: pending };
    else
      result = {
        ...base,
        ...(await host.unit((ctx) => (scenario.needsClock || scenario.ownMerchant ? onSandbox(ctx, scenario) : runScenario(ctx, scenario)))),
      };
  } catch (err) {
    result = { ...base, outcome: 'failed', note: `the scenario could not run: ${errorMessage(err)}`.slice(0, 500) };
  }
  result.durationMs = Date.now() - t0;
  return result;
}

/** The scenarios `--only` chooses (all without it), in catalogue order. */
export function chosenScenarios(host: ScenarioHost, scenarios: Scenario[]): Scenario[] {
  const { only } = host.options;
  return only?.length ? scenarios.filter((s) => only.some((prefix) => s.id.startsWith(prefix))) : scenarios;
}

/** What a clock scenario is expected to take when its catalogue entry says nothing: advances run what falls due on the way. */
export const CLOCK_EXPECTED_MS = 5_000;

/** How long the scenario is expected to take (`expectedMs`; a clock scenario at least `CLOCK_EXPECTED_MS`); 0: short. */
export const expectedMs = (s: Scenario): number => s.expectedMs ?? (s.needsClock ? CLOCK_EXPECTED_MS : 0);

/**
 * The chosen scenarios as units, each result in its catalogue place of `results`: the long ones
 * (`expectedMs`, clock scenarios), longest first, to be started first so their waits overlap the
 * rest instead of ending the run; and the others, in catalogue order. Exclusive ones run alone.
 */
export function scenarioUnits(host: ScenarioHost, chosen: Scenario[], results: ScenarioResult[], progress: ScenarioTick): { long: Unit[]; others: Unit[] } {
  let done = 0;
  const units = chosen.map((scenario, index) => ({
    scenario,
    exclusive: scenario.exclusive === true,
    async run() {
      const result = await scenarioResult(host, scenario);
      results[index] = result;
      progress.emit({ kind: 'scenario', result, index, count: chosen.length, done: ++done, elapsedMs: progress.elapsed() });
    },
  }));
  const long = units.filter((u) => expectedMs(u.scenario) > 0).sort((a, b) => expectedMs(b.scenario) - expectedMs(a.scenario));
  return { long, others: units.filter((u) => expectedMs(u.scenario) === 0) };
}

/**
 * A scenario that ran while the contract part was still finding out what the target implements may
 * have failed on an operation that answered 501: once everything has run, that scenario is pending,
 * as it would have been had it run after.
 */
export async function pendingAfter(host: ScenarioHost, chosen: Scenario[], results: ScenarioResult[]): Promise<void> {
  for (const [index, scenario] of chosen.entries()) {
    const result = results[index];
    if (result?.outcome !== 'failed') continue;
    const missing = await notImplemented(host, scenario.requires);
    if (missing.length > 0) results[index] = { ...result, outcome: 'pending', note: `not implemented: ${missing.join(', ')}` };
  }
}
