#!/usr/bin/env node
// Prints the vitest JSON report's totals as one plain line, "vitest: N passed, N failed, N skipped",
// which CI reads as the closing line of a run.
import { readFileSync } from 'node:fs';

const file = process.argv[2] ?? 'out/vitest.json';
let report;
try {
  report = JSON.parse(readFileSync(file, 'utf8'));
} catch (err) {
  console.error(`test-summary: cannot read ${file}: ${err.message}`);
  process.exit(1);
}
const passed = report.numPassedTests ?? 0;
const failed = (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0);
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`vitest: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
