import { checkOperation } from './contract.js';
import { createContext, PENDING_PREFIX } from './context.js';
import { totals } from './report.js';
import type { ConformanceContext, ConformanceOptions, OperationResult, Report, Scenario, ScenarioResult } from './types.js';
import { ContractValidator, loadBundledContracts, type OperationInfo } from './validator.js';

/** What the runner tells as it goes: a part starting, and each operation and scenario as it finishes. */
export type Progress =
  | { kind: 'part'; part: 'contract' | 'scenarios'; count: number }
  | { kind: 'note'; line: string }
  | { kind: 'operation'; result: OperationResult; index: number; count: number }
  | { kind: 'scenario'; result: ScenarioResult; index: number; count: number };

/** An operation's outcome in a word: failed when any of its cases failed or an answer broke the contract. */
export function operationOutcome(op: OperationResult): 'passed' | 'failed' | 'pending' {
  if (op.success.outcome === 'failed' || op.errors.some((e) => e.outcome === 'failed') || !op.schemaValid) return 'failed';
  return op.success.outcome;
}

async function runScenario(ctx: ConformanceContext, scenario: Scenario): Promise<Pick<ScenarioResult, 'outcome' | 'note'>> {
  try {
    await scenario.run!(ctx);
    return { outcome: 'passed' };
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    return message.startsWith(PENDING_PREFIX)
      ? { outcome: 'pending', note: message.slice(PENDING_PREFIX.length).trim() }
      : { outcome: 'failed', note: message.slice(0, 500) };
  }
}

/** The contract cases of one operation; a case that could not run fails the operation. */
async function operationResult(ctx: ConformanceContext, info: OperationInfo): Promise<OperationResult> {
  const t0 = Date.now();
  let result: OperationResult;
  try {
    result = await checkOperation(ctx, info);
  } catch (err) {
    result = {
      api: info.api,
      operationId: info.operationId,
      method: info.method,
      path: info.path,
      implemented: 'unknown',
      success: { outcome: 'failed', note: `the case could not run: ${(err as Error).message}` },
      errors: [],
      schemaValid: true,
      problems: [],
    };
  }
  result.durationMs = Date.now() - t0;
  return result;
}

/** Runs the contract cases of every operation. */
async function runContract(ctx: ConformanceContext, validator: ContractValidator, progress: (event: Progress) => void): Promise<OperationResult[]> {
  const operations: OperationResult[] = [];
  progress({ kind: 'part', part: 'contract', count: validator.operations.length });
  for (const [index, info] of validator.operations.entries()) {
    const result = await operationResult(ctx, info);
    operations.push(result);
    progress({ kind: 'operation', result, index, count: validator.operations.length });
  }
  return operations;
}

/** The run's sandbox merchant for clock scenarios, made on the first one: its context, or why there is none. */
interface ClockMerchant {
  sandbox?: Report['sandboxMerchant'];
  ctx?: ConformanceContext;
}

/** Makes the sandbox merchant the first time a clock scenario needs it, and says so. */
async function ensureSandbox(ctx: ConformanceContext, clock: ClockMerchant, progress: (event: Progress) => void): Promise<void> {
  if (clock.sandbox) return;
  const made = await ctx.sandboxMerchant();
  if ('ctx' in made) {
    clock.ctx = made.ctx;
    clock.sandbox = { id: made.id };
    progress({ kind: 'note', line: `clock scenarios run on sandbox merchant ${made.id} (made by createTestMerchant; the merchant given keeps its clock)` });
  } else {
    clock.sandbox = { unavailable: made.unavailable };
    progress({ kind: 'note', line: `clock scenarios are pending: ${made.unavailable}` });
  }
}

/** Why a scenario is pending before it runs (a mock, an operation not implemented, no clock, no check), or undefined. */
async function pendingBefore(ctx: ConformanceContext, scenario: Scenario, hasClock: boolean): Promise<string | undefined> {
  const missing: string[] = [];
  for (const op of scenario.requires) if (!(await ctx.isImplemented(op))) missing.push(op);
  if (ctx.options.target === 'mock' && scenario.serverOnly !== false) return 'behaviour is not checked against a mock';
  if (missing.length > 0) return `not implemented: ${missing.join(', ')}`;
  if (scenario.needsClock && !hasClock) return 'needs the sandbox clock, which the target does not offer';
  if (!scenario.run) return 'no check written yet';
  return undefined;
}

/** One scenario's result: pending, or run (a clock scenario on the sandbox merchant). */
async function scenarioResult(
  ctx: ConformanceContext,
  scenario: Scenario,
  hasClock: boolean,
  clock: ClockMerchant,
  progress: (event: Progress) => void,
): Promise<ScenarioResult> {
  const t0 = Date.now();
  const base = { id: scenario.id, title: scenario.title, source: scenario.source };
  const pending = await pendingBefore(ctx, scenario, hasClock);
  let result: ScenarioResult;
  if (pending !== undefined) result = { ...base, outcome: 'pending', note: pending };
  else if (scenario.needsClock) {
    await ensureSandbox(ctx, clock, progress);
    result = clock.ctx
      ? { ...base, ...(await runScenario(clock.ctx, scenario)), merchant: 'sandbox' }
      : {
          ...base,
          outcome: 'pending',
          note: `needs a sandbox merchant of its own, so the merchant given is never moved in time: ${(clock.sandbox as { unavailable: string }).unavailable}`,
        };
  } else result = { ...base, ...(await runScenario(ctx, scenario)) };
  result.durationMs = Date.now() - t0;
  return result;
}

/**
 * Runs the chosen scenarios. Those that advance the sandbox clock run last, on a merchant of their
 * own: the merchant given is never moved in time, and the others (sending times "from now") never see it move.
 */
async function runScenarios(
  ctx: ConformanceContext,
  scenarios: Scenario[],
  progress: (event: Progress) => void,
  clock: ClockMerchant,
): Promise<ScenarioResult[]> {
  const { only } = ctx.options;
  const chosen = only?.length ? scenarios.filter((s) => only.some((prefix) => s.id.startsWith(prefix))) : scenarios;
  progress({ kind: 'part', part: 'scenarios', count: chosen.length });
  const hasClock = await ctx.isImplemented('advanceTestClock');
  const ordered = [...chosen.filter((s) => !s.needsClock), ...chosen.filter((s) => s.needsClock)];
  const results: ScenarioResult[] = [];
  for (const [index, scenario] of ordered.entries()) {
    const result = await scenarioResult(ctx, scenario, hasClock, clock, progress);
    results.push(result);
    progress({ kind: 'scenario', result, index, count: ordered.length });
  }
  return results;
}

/** Runs the contract cases of every operation, then the behaviour scenarios, and builds the report. */
export async function runConformance(options: ConformanceOptions, scenarios: Scenario[], progress: (event: Progress) => void = () => {}): Promise<Report> {
  const validator = new ContractValidator(loadBundledContracts());
  let otherMerchant: Report['otherMerchant'];
  const ctx = createContext(options, validator, (made) => {
    otherMerchant = 'unavailable' in made ? { unavailable: made.unavailable } : { id: made.id };
    progress({
      kind: 'note',
      line:
        'unavailable' in made
          ? `no --other-secret-key, and no second merchant could be made: ${made.unavailable}`
          : `no --other-secret-key: the checks that need a second merchant use sandbox merchant ${made.id} (made by createTestMerchant)`,
    });
  });
  const started = Date.now();
  const startedAt = new Date(started).toISOString();
  const clock: ClockMerchant = {};
  try {
    const operations = options.scenariosOnly ? [] : await runContract(ctx, validator, progress);
    const scenarioResults = options.contractOnly ? [] : await runScenarios(ctx, scenarios, progress, clock);
    return {
      target: options.target,
      baseUrl: options.baseUrl,
      startedAt,
      durationMs: Date.now() - started,
      ...(clock.sandbox ? { sandboxMerchant: clock.sandbox } : {}),
      ...(otherMerchant ? { otherMerchant } : {}),
      operations,
      scenarios: scenarioResults,
      totals: totals(operations, scenarioResults),
    };
  } finally {
    await ctx.cleanup();
  }
}
