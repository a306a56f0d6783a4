import { checkOperation } from './contract.js';
import { createContext, PENDING_PREFIX } from './context.js';
import { totals } from './report.js';
import type { ConformanceOptions, OperationResult, Report, Scenario, ScenarioResult } from './types.js';
import { ContractValidator, loadBundledContracts } from './validator.js';

/** Runs the contract cases of every operation, then the behaviour scenarios, and builds the report. */
export async function runConformance(options: ConformanceOptions, scenarios: Scenario[], log: (line: string) => void = () => {}): Promise<Report> {
  const validator = new ContractValidator(loadBundledContracts());
  const ctx = createContext(options, validator);
  const startedAt = new Date().toISOString();
  const operations: OperationResult[] = [];
  try {
    log(`contract: ${validator.operations.length} operations`);
    for (const info of validator.operations) {
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
      operations.push(result);
      if (options.verbose) log(`  ${result.success.outcome.padEnd(7)} ${info.operationId}${result.success.note ? ` (${result.success.note})` : ''}`);
    }

    const scenarioResults: ScenarioResult[] = [];
    if (!options.contractOnly) {
      log(`scenarios: ${scenarios.length} rules`);
      const clock = await ctx.isImplemented('advanceTestClock');
      // Scenarios that advance the sandbox clock run last: the merchant's test-mode time then runs
      // ahead of the wall clock, which the others (sending times "from now") must not see.
      const ordered = [...scenarios.filter((s) => !s.needsClock), ...scenarios.filter((s) => s.needsClock)];
      for (const scenario of ordered) {
        const base = { id: scenario.id, title: scenario.title, source: scenario.source };
        const missing: string[] = [];
        for (const op of scenario.requires) if (!(await ctx.isImplemented(op))) missing.push(op);
        let result: ScenarioResult;
        if (options.target === 'mock' && scenario.serverOnly !== false) result = { ...base, outcome: 'pending', note: 'behaviour is not checked against a mock' };
        else if (missing.length > 0) result = { ...base, outcome: 'pending', note: `not implemented: ${missing.join(', ')}` };
        else if (scenario.needsClock && !clock) result = { ...base, outcome: 'pending', note: 'needs the sandbox clock, which the target does not offer' };
        else if (!scenario.run) result = { ...base, outcome: 'pending', note: 'no check written yet' };
        else {
          try {
            await scenario.run(ctx);
            result = { ...base, outcome: 'passed' };
          } catch (err) {
            const message = err instanceof Error ? err.message : String(err);
            result = message.startsWith(PENDING_PREFIX) ? { ...base, outcome: 'pending', note: message.slice(PENDING_PREFIX.length).trim() } : { ...base, outcome: 'failed', note: message.slice(0, 500) };
          }
        }
        scenarioResults.push(result);
        if (options.verbose) log(`  ${result.outcome.padEnd(7)} ${scenario.id}${result.note ? ` (${result.note})` : ''}`);
      }
    }
    return { target: options.target, baseUrl: options.baseUrl, startedAt, operations, scenarios: scenarioResults, totals: totals(operations, scenarioResults) };
  } finally {
    await ctx.cleanup();
  }
}
