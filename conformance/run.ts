import { checkOperation } from './contract.js';
import { createContext, PENDING_PREFIX } from './context.js';
import { totals } from './report.js';
import type { ConformanceContext, ConformanceOptions, OperationResult, Report, Scenario, ScenarioResult } from './types.js';
import { ContractValidator, loadBundledContracts } from './validator.js';

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

/** Runs the contract cases of every operation, then the behaviour scenarios, and builds the report. */
export async function runConformance(options: ConformanceOptions, scenarios: Scenario[], progress: (event: Progress) => void = () => {}): Promise<Report> {
  const validator = new ContractValidator(loadBundledContracts());
  const ctx = createContext(options, validator);
  const started = Date.now();
  const startedAt = new Date(started).toISOString();
  const operations: OperationResult[] = [];
  let sandbox: Report['sandboxMerchant'];
  try {
    progress({ kind: 'part', part: 'contract', count: validator.operations.length });
    for (const [index, info] of validator.operations.entries()) {
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
      operations.push(result);
      progress({ kind: 'operation', result, index, count: validator.operations.length });
    }

    const scenarioResults: ScenarioResult[] = [];
    if (!options.contractOnly) {
      const chosen = options.only?.length ? scenarios.filter((s) => options.only!.some((prefix) => s.id.startsWith(prefix))) : scenarios;
      progress({ kind: 'part', part: 'scenarios', count: chosen.length });
      const clock = await ctx.isImplemented('advanceTestClock');
      // Scenarios that advance the sandbox clock run last, on a merchant of their own: the merchant
      // given is never moved in time, and the others (sending times "from now") never see it move.
      const ordered = [...chosen.filter((s) => !s.needsClock), ...chosen.filter((s) => s.needsClock)];
      let clockCtx: ConformanceContext | undefined;
      for (const [index, scenario] of ordered.entries()) {
        const t0 = Date.now();
        const base = { id: scenario.id, title: scenario.title, source: scenario.source };
        const missing: string[] = [];
        for (const op of scenario.requires) if (!(await ctx.isImplemented(op))) missing.push(op);
        let result: ScenarioResult;
        if (options.target === 'mock' && scenario.serverOnly !== false)
          result = { ...base, outcome: 'pending', note: 'behaviour is not checked against a mock' };
        else if (missing.length > 0) result = { ...base, outcome: 'pending', note: `not implemented: ${missing.join(', ')}` };
        else if (scenario.needsClock && !clock) result = { ...base, outcome: 'pending', note: 'needs the sandbox clock, which the target does not offer' };
        else if (!scenario.run) result = { ...base, outcome: 'pending', note: 'no check written yet' };
        else if (scenario.needsClock) {
          if (!sandbox) {
            const made = await ctx.sandboxMerchant();
            if ('ctx' in made) {
              clockCtx = made.ctx;
              sandbox = { id: made.id };
              progress({
                kind: 'note',
                line: `clock scenarios run on sandbox merchant ${made.id} (made by createTestMerchant; the merchant given keeps its clock)`,
              });
            } else {
              sandbox = { unavailable: made.unavailable };
              progress({ kind: 'note', line: `clock scenarios are pending: ${made.unavailable}` });
            }
          }
          result = clockCtx
            ? { ...base, ...(await runScenario(clockCtx, scenario)), merchant: 'sandbox' }
            : {
                ...base,
                outcome: 'pending',
                note: `needs a sandbox merchant of its own, so the merchant given is never moved in time: ${(sandbox as { unavailable: string }).unavailable}`,
              };
        } else result = { ...base, ...(await runScenario(ctx, scenario)) };
        result.durationMs = Date.now() - t0;
        scenarioResults.push(result);
        progress({ kind: 'scenario', result, index, count: ordered.length });
      }
    }
    return {
      target: options.target,
      baseUrl: options.baseUrl,
      startedAt,
      durationMs: Date.now() - started,
      ...(sandbox ? { sandboxMerchant: sandbox } : {}),
      operations,
      scenarios: scenarioResults,
      totals: totals(operations, scenarioResults),
    };
  } finally {
    await ctx.cleanup();
  }
}
