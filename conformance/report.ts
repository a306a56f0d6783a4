import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { OperationResult, Outcome, Report, ScenarioResult } from './types.js';

const mark: Record<Outcome, string> = { passed: 'pass', failed: 'FAIL', pending: 'pending' };

/** Pass/fail/pending counts over every contract case and every scenario. */
export function totals(operations: OperationResult[], scenarios: ScenarioResult[]): Report['totals'] {
  const counts = { passed: 0, failed: 0, pending: 0 };
  for (const op of operations) {
    counts[op.success.outcome]++;
    for (const e of op.errors) counts[e.outcome]++;
    // An answer that breaks the contract fails the operation even when its statuses were right.
    if (!op.schemaValid) counts.failed++;
  }
  for (const s of scenarios) counts[s.outcome]++;
  return counts;
}

function errorsCell(op: OperationResult): string {
  if (op.errors.length === 0) return '—';
  const passed = op.errors.filter((e) => e.outcome === 'passed').length;
  const failed = op.errors.filter((e) => e.outcome === 'failed').length;
  return `${passed}/${op.errors.length}${failed ? ` (${failed} failed)` : ''}`;
}

const implementedCell = (op: OperationResult) => (op.implemented === true ? 'yes' : op.implemented === false ? 'no (501)' : '?');

/** The report as Markdown: the operations table, the scenarios table, the totals. */
export function toMarkdown(report: Report): string {
  const lines: string[] = [];
  lines.push(`# Till conformance report`, '', `Target: ${report.target} at ${report.baseUrl}, started ${report.startedAt}.`, '');
  const implemented = report.operations.filter((o) => o.implemented === true).length;
  lines.push(`## Operations (${implemented} of ${report.operations.length} implemented)`, '');
  lines.push('| interface | operation | method and path | implemented | success | errors checked | schema-valid |', '|---|---|---|---|---|---|---|');
  for (const op of report.operations) {
    lines.push(
      `| ${op.api} | ${op.operationId} | \`${op.method} ${op.path}\` | ${implementedCell(op)} | ${mark[op.success.outcome]} | ${errorsCell(op)} | ${op.schemaValid ? 'yes' : 'NO'} |`,
    );
  }
  const problems = report.operations.filter((o) => o.success.outcome === 'failed' || o.errors.some((e) => e.outcome === 'failed') || o.problems.length > 0);
  if (problems.length > 0) {
    lines.push('', '### Failures', '');
    for (const op of problems) {
      if (op.success.outcome === 'failed') lines.push(`- **${op.operationId}** success: ${op.success.note ?? ''}`);
      for (const e of op.errors.filter((x) => x.outcome === 'failed')) lines.push(`- **${op.operationId}** ${e.name}: ${e.note ?? ''}`);
      for (const p of op.problems) lines.push(`- **${op.operationId}** contract: ${p}`);
    }
  }
  lines.push('', `## Scenarios (${report.scenarios.length} rules)`, '', '| rule | source | outcome | note |', '|---|---|---|---|');
  for (const s of report.scenarios)
    lines.push(`| ${s.title.replace(/\|/g, '\\|')} | ${s.source} | ${mark[s.outcome]} | ${(s.note ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ')} |`);
  const took = timingLine(report);
  lines.push('', ...(took ? [took, ''] : []), totalsLine(report.totals), '');
  return lines.join('\n');
}

/** How long the run took, how many ran at once, and its slowest scenarios: where the time went. */
export function timingLine(report: Report): string | undefined {
  if (report.durationMs === undefined) return undefined;
  const slowest = [...report.scenarios]
    .filter((x) => x.durationMs !== undefined)
    .sort((a, b) => b.durationMs! - a.durationMs!)
    .slice(0, 3)
    .map((x) => `${x.id} ${(x.durationMs! / 1000).toFixed(1)} s`);
  const atOnce = report.concurrency ? `, ${report.concurrency} at a time` : '';
  return `Took ${(report.durationMs / 1000).toFixed(1)} s${atOnce}${slowest.length ? `; slowest: ${slowest.join(', ')}` : ''}.`;
}

/** The closing line: `N passed, N failed, N pending`. */
export const totalsLine = (t: Report['totals']) => `${t.passed} passed, ${t.failed} failed, ${t.pending} pending`;

export async function writeReport(dir: string, report: Report): Promise<{ markdown: string; json: string }> {
  await mkdir(dir, { recursive: true });
  const markdown = path.join(dir, 'conformance.md');
  const json = path.join(dir, 'conformance.json');
  await writeFile(markdown, toMarkdown(report));
  await writeFile(json, `${JSON.stringify(report, null, 2)}\n`);
  return { markdown, json };
}

/** A compact console summary: the operations and scenarios that did not pass, then the counts. */
export function consoleSummary(report: Report): string {
  const out: string[] = [];
  const ops = report.operations;
  const implemented = ops.filter((o) => o.implemented === true);
  out.push(
    `Operations: ${implemented.length} of ${ops.length} implemented; ${implemented.filter((o) => o.success.outcome === 'passed' && o.schemaValid && o.errors.every((e) => e.outcome !== 'failed')).length} pass every case.`,
  );
  for (const op of ops) {
    const failed = [
      ...(op.success.outcome === 'failed' ? [`success: ${op.success.note ?? ''}`] : []),
      ...op.errors.filter((e) => e.outcome === 'failed').map((e) => `${e.name}: ${e.note ?? ''}`),
      ...op.problems.map((p) => `contract: ${p}`),
    ];
    for (const f of failed) out.push(`  FAIL ${op.operationId} ${f}`);
  }
  const s = report.scenarios;
  out.push(
    `Scenarios: ${s.filter((x) => x.outcome === 'passed').length} passed, ${s.filter((x) => x.outcome === 'failed').length} failed, ${s.filter((x) => x.outcome === 'pending').length} pending of ${s.length}.`,
  );
  for (const x of s.filter((y) => y.outcome === 'failed')) out.push(`  FAIL ${x.id}: ${x.note ?? ''}`);
  const took = timingLine(report);
  if (took) out.push(took);
  out.push(totalsLine(report.totals));
  return out.join('\n');
}
