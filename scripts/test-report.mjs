#!/usr/bin/env node
// Reads vitest JSON reports. As a command: the totals of each report on a line, the ten slowest
// test files of all of them, and then the combined totals as the closing line,
// "vitest: N passed, N failed, N skipped", which CI reads.
//
//   node scripts/test-report.mjs out/vitest.json out/vitest-pg.json
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The `count` slowest test files of a report: name (relative), time in ms, number of tests. */
export function slowestFiles(report, count, label = '') {
  if (!existsSync(report)) return [];
  const { testResults = [] } = JSON.parse(readFileSync(report, 'utf8'));
  return testResults
    .map((f) => ({
      name: `${label}${path.relative(process.cwd(), f.name)}`,
      ms: (f.endTime ?? 0) - (f.startTime ?? 0),
      tests: f.assertionResults?.length ?? 0,
    }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, count);
}

function main(files) {
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
  const slowest = files
    .flatMap((file) => slowestFiles(file, 10, files.length > 1 ? `[${path.basename(file, '.json')}] ` : ''))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 10);
  console.log('the ten slowest test files:');
  for (const f of slowest) console.log(`  ${(f.ms / 1000).toFixed(1).padStart(6)} s  ${f.name} (${f.tests} tests)`);
  console.log(`vitest: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  process.exit(failed > 0 || passed === 0 ? 1 : 0);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main(process.argv.slice(2));
