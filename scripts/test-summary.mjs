#!/usr/bin/env node
// Prints the totals of one or more vitest JSON reports, each on a line, and then the combined
// totals as the closing line, "vitest: N passed, N failed, N skipped", which CI reads.
import { existsSync, readFileSync } from 'node:fs';

const files = process.argv.slice(2);
if (files.length === 0) files.push('out/vitest.json');
let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of files) {
  if (!existsSync(file)) {
    console.log(`${file}: no report (that run did not reach its tests)`);
    failed += 1;
    continue;
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const p = report.numPassedTests ?? 0;
  const f = (report.numFailedTests ?? 0) + (report.numRuntimeErrorTestSuites ?? 0);
  const s = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  console.log(`${file}: ${p} passed, ${f} failed, ${s} skipped`);
  passed += p;
  failed += f;
  skipped += s;
}
console.log(`vitest: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
