// The runner: the contract cases of every operation and the behaviour scenarios, as units of one
// pool (pool.ts) run a few at a time, then the report, in catalogue order whatever the finishing order.
import { checkOperation } from './contract.js';
import { createContext, type RunContext } from './context.js';
import { DEFAULT_CONCURRENCY, runUnits, type Unit } from './pool.js';
import { totals } from './report.js';
import { chosenScenarios, errorMessage, pendingAfter, scenarioUnits } from './run-scenarios.js';
import type { ConformanceContext, ConformanceOptions, OperationResult, Report, SandboxMerchant, Scenario, ScenarioResult } from './types.js';
import { ContractValidator, loadBundledContracts, type OperationInfo } from './validator.js';

/**
 * What the runner tells as it goes: the parts and their sizes (both start at once), notes, and each
 * operation and scenario as it finishes: `index` is its catalogue place, `done` how many of its part
 * have finished, `elapsedMs` the time since the run started.
 */
export type Progress =
  | { kind: 'part'; part: 'contract' | 'scenarios'; count: number }
  | { kind: 'note'; line: string }
  | { kind: 'operation'; result: OperationResult; index: number; count: number; done: number; elapsedMs: number }
  | { kind: 'scenario'; result: ScenarioResult; index: number; count: number; done: number; elapsedMs: number };

/** An operation's outcome in a word: failed when any of its cases failed or an answer broke the contract. */
export function operationOutcome(op: OperationResult): 'passed' | 'failed' | 'pending' {
  if (op.success.outcome === 'failed' || op.errors.some((e) => e.outcome === 'failed') || !op.schemaValid) return 'failed';
  return op.success.outcome;
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
      success: { outcome: 'failed', note: `the case could not run: ${errorMessage(err)}` },
      errors: [],
      schemaValid: true,
      problems: [],
    };
  }
  result.durationMs = Date.now() - t0;
  return result;
}

/** The run's progress: the listener, and the time since the run started. */
interface Tick {
  emit(event: Progress): void;
  elapsed(): number;
}

/** The contract part as units: one per operation, each result in its operation's place. */
function contractUnits(ctx: RunContext, validator: ContractValidator, results: OperationResult[], progress: Tick): Unit[] {
  const count = validator.operations.length;
  let done = 0;
  return validator.operations.map((info, index) => ({
    exclusive: false,
    async run() {
      const result = await ctx.unit((own) => operationResult(own, info));
      results[index] = result;
      progress.emit({ kind: 'operation', result, index, count, done: ++done, elapsedMs: progress.elapsed() });
    },
  }));
}

/** The merchants the run makes for itself, as the report tells them; the first of each is told as a note. */
interface Made {
  sandbox?: Report['sandboxMerchant'];
  sandboxes: number;
  other?: Report['otherMerchant'];
}

/** The run's context, telling the progress about the merchants it makes. */
function runContext(options: ConformanceOptions, validator: ContractValidator, made: Made, progress: Tick): RunContext {
  const note = (line: string) => progress.emit({ kind: 'note', line });
  const onOther = (m: SandboxMerchant) => {
    made.other = 'unavailable' in m ? { unavailable: m.unavailable } : { id: m.id };
    note(
      'unavailable' in m
        ? `no --other-secret-key, and no second merchant could be made: ${m.unavailable}`
        : `no --other-secret-key: the checks that need a second merchant use sandbox merchant ${m.id} (made by createTestMerchant)`,
    );
  };
  const onSandbox = (m: SandboxMerchant) => {
    if ('id' in m) made.sandboxes++;
    if (made.sandbox) return;
    made.sandbox = 'unavailable' in m ? { unavailable: m.unavailable } : { id: m.id };
    note(
      'unavailable' in m
        ? `clock scenarios are pending: ${m.unavailable}`
        : `clock scenarios and cases each run on a sandbox merchant of their own (made by createTestMerchant, the first ${m.id}); the merchant given keeps its clock`,
    );
  };
  return createContext(options, validator, onOther, onSandbox);
}

/**
 * Runs the contract cases of every operation and the behaviour scenarios, `options.concurrency` at a
 * time (exclusive scenarios last, alone), and builds the report.
 */
export async function runConformance(options: ConformanceOptions, scenarios: Scenario[], listener: (event: Progress) => void = () => {}): Promise<Report> {
  const started = Date.now();
  const progress: Tick = { emit: listener, elapsed: () => Date.now() - started };
  const validator = new ContractValidator(loadBundledContracts());
  const made: Made = { sandboxes: 0 };
  const ctx = runContext(options, validator, made, progress);
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? DEFAULT_CONCURRENCY));
  try {
    const operations: OperationResult[] = [];
    const scenarioResults: ScenarioResult[] = [];
    const chosen = options.contractOnly ? [] : chosenScenarios(ctx, scenarios);
    if (!options.scenariosOnly) progress.emit({ kind: 'part', part: 'contract', count: validator.operations.length });
    if (!options.contractOnly) progress.emit({ kind: 'part', part: 'scenarios', count: chosen.length });
    const { long, others } = scenarioUnits(ctx, chosen, scenarioResults, progress);
    // The long scenarios first (longest first), then the contract's operations, then the other scenarios.
    const contract = options.scenariosOnly ? [] : contractUnits(ctx, validator, operations, progress);
    await runUnits([...long, ...contract, ...others], concurrency);
    await pendingAfter(ctx, chosen, scenarioResults);
    return {
      target: options.target,
      baseUrl: options.baseUrl,
      startedAt: new Date(started).toISOString(),
      durationMs: Date.now() - started,
      concurrency,
      ...(made.sandbox ? { sandboxMerchant: made.sandbox, sandboxMerchants: made.sandboxes } : {}),
      ...(made.other ? { otherMerchant: made.other } : {}),
      operations,
      scenarios: scenarioResults,
      totals: totals(operations, scenarioResults),
    };
  } finally {
    await ctx.cleanup();
  }
}
