// The Till conformance suite: points at any deployment (the server, the Prism mock, a merchant's
// own) and says whether it keeps the contract and the rules of the source documents.
//
//   till-conformance --base-url URL --secret-key sk_test_… [flags]       (the package's bin)
//   npm run conformance -- --base-url URL --secret-key sk_test_… [flags]  (in this repository)
//
// `--help` lists every flag and its environment variable (cli.ts); README.md is the guide. A
// preflight checks the URL and the keys first. Exit status: 0 when nothing failed, 1 on any
// failure, 2 for a bad call or a failed preflight.
import { helpText, parseValues, readOptions, VERSION } from './cli.js';
import { writeJUnit } from './junit.js';
import { preflight } from './preflight.js';
import { consoleSummary, writeReport } from './report.js';
import { operationOutcome, type Progress, runConformance } from './run.js';
import { scenarios } from './scenarios/index.js';
import type { ConformanceOptions } from './types.js';

async function main() {
  const values = parseValues(process.argv.slice(2));
  if (values.help) {
    console.log(helpText());
    return;
  }
  if (values.version) {
    console.log(VERSION);
    return;
  }
  const { options, junitFile } = readOptions(values);
  const quiet = Boolean(values.quiet);

  console.log(`conformance: checking ${options.baseUrl} as a ${options.target}${options.contractOnly ? ' (contract only)' : ''}`);
  const checked = await preflight(options);
  if (!quiet || !checked.ok) for (const line of checked.lines) console.error(`preflight: ${line}`);
  if (!checked.ok) {
    console.error('conformance: the preflight failed; nothing was run (exit status 2).');
    process.exit(2);
  }
  const report = await runConformance(options, scenarios, quiet ? () => {} : progressPrinter(options));
  if (options.reportDir) {
    const files = await writeReport(options.reportDir, report);
    console.log(`report: ${files.markdown}, ${files.json}`);
  }
  if (junitFile) console.log(`junit: ${await writeJUnit(junitFile, report)}`);
  console.log(consoleSummary(report));
  process.exit(report.totals.failed > 0 ? 1 : 0);
}

const marks = { passed: '✓', failed: '✗', pending: '○' } as const;

/**
 * Progress on stderr, as each part goes: a line per scenario as it finishes (how many of the part have
 * finished, the time since the start, mark, id, time, and why when it did not pass), a line per
 * operation only when it failed (or with --verbose), and a line when each part has finished.
 */
function progressPrinter(options: ConformanceOptions): (event: Progress) => void {
  const counts = { contract: { passed: 0, failed: 0, pending: 0 }, scenarios: { passed: 0, failed: 0, pending: 0 } };
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const endPart = (part: 'contract' | 'scenarios', elapsedMs: number) => {
    const c = counts[part];
    console.error(`${part}: ${c.passed} passed, ${c.failed} failed, ${c.pending} pending, done at ${seconds(elapsedMs)}`);
  };
  return (event) => {
    if (event.kind === 'part') console.error(`${event.part}: ${event.count} ${event.part === 'contract' ? 'operations' : 'scenarios'}`);
    else if (event.kind === 'note') console.error(`  ${event.line}`);
    else if (event.kind === 'operation') {
      const outcome = operationOutcome(event.result);
      counts.contract[outcome]++;
      if (outcome === 'failed' || options.verbose)
        console.error(
          `  ${marks[outcome]} ${event.result.operationId} ${event.result.durationMs ?? 0} ms${outcome === 'failed' ? '' : event.result.success.note ? ` (${event.result.success.note})` : ''}`,
        );
      if (event.done === event.count) endPart('contract', event.elapsedMs);
    } else {
      const r = event.result;
      counts.scenarios[r.outcome]++;
      const why = r.outcome === 'passed' ? '' : ` (${(r.note ?? '').split('\n')[0]!.slice(0, 160)})`;
      const width = String(event.count).length;
      console.error(
        `  [${String(event.done).padStart(width)}/${event.count} ${seconds(event.elapsedMs).padStart(7)}] ${marks[r.outcome]} ${r.id} ${r.durationMs ?? 0} ms${r.merchant ? ' on a sandbox merchant' : ''}${why}`,
      );
      if (event.done === event.count) endPart('scenarios', event.elapsedMs);
    }
  };
}

main().catch((err) => {
  console.error(`conformance: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exit(1);
});
