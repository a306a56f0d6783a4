#!/usr/bin/env node
// `npm test`: the static checks, then every test project that needs no PostgreSQL, with the time
// of each phase and the ten slowest test files at the end.
//
//   node scripts/test.mjs                      what `npm test` runs
//   node scripts/test.mjs --projects api,unit  only these vitest projects (after the static checks)
//   node scripts/test.mjs --no-static          the tests alone
//
// The static checks run in two lanes at once (ESLint in one, the rest in the other: each is one
// process on one core); a check's output is shown only when it fails. The vitest JSON report goes
// to VITEST_JSON when set (CI reads it), else to a temporary file.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { slowestFiles } from './test-report.mjs';

const { values } = parseArgs({
  options: { projects: { type: 'string', default: 'unit,domain,api,browser,processes,fuzz,sdk' }, 'no-static': { type: 'boolean', default: false } },
});

const LANES = [
  [['ESLint', 'npx', ['eslint', '.', '--max-warnings', '0']]],
  [
    ['OpenAPI lint', 'npx', ['redocly', 'lint', '--max-problems', '500']],
    ['layers', 'npx', ['depcruise', 'server', 'sdk', 'conformance', 'web', '--config', '.dependency-cruiser.cjs', '--output-type', 'err']],
    ['format', 'npx', ['prettier', '--check', '.']],
    ['links', 'npx', ['remark', '--frail', '--quiet', '--no-stdout', '.']],
    ['generated/ current', 'node', ['scripts/generate.mjs', '--check']],
    ['types', 'npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']],
  ],
];

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** Runs a command with its output captured; resolves to its exit code, time and output. */
function capture(command, args) {
  return new Promise((resolve) => {
    const started = performance.now();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('close', (code) => resolve({ code: code ?? 1, ms: performance.now() - started, output }));
  });
}

/** Runs the lanes side by side, each check after the last one of its lane; prints one line per check. */
async function staticChecks() {
  const results = [];
  await Promise.all(
    LANES.map(async (lane) => {
      for (const [name, command, args] of lane) {
        const result = await capture(command, args);
        console.log(`${result.code === 0 ? '✓' : '✗'} ${name} (${seconds(result.ms)})`);
        if (result.code !== 0) console.log(result.output.trimEnd());
        results.push({ name, ...result });
      }
    }),
  );
  return results;
}

function vitest(projects, report) {
  return new Promise((resolve) => {
    const started = performance.now();
    const args = ['vitest', 'run', ...projects.flatMap((p) => ['--project', p])];
    const child = spawn('npx', args, { stdio: 'inherit', env: { ...process.env, VITEST_JSON: report } });
    child.on('close', (code) => resolve({ code: code ?? 1, ms: performance.now() - started }));
  });
}

const phases = [];
const started = performance.now();
if (!values['no-static']) {
  console.log('== static checks ==');
  const lanesStarted = performance.now();
  const results = await staticChecks();
  phases.push({ name: 'static checks', ms: performance.now() - lanesStarted, ok: results.every((r) => r.code === 0) });
}
const projects = values.projects.split(',').filter(Boolean);
const report = process.env.VITEST_JSON || path.join(mkdtempSync(path.join(tmpdir(), 'till-test-')), 'vitest.json');
console.log(`== vitest: ${projects.join(', ')} ==`);
const tests = await vitest(projects, report);
phases.push({ name: `vitest (${projects.join(', ')})`, ms: tests.ms, ok: tests.code === 0 });

console.log('\n== the ten slowest test files ==');
for (const file of slowestFiles(report, 10)) console.log(`${seconds(file.ms).padStart(8)}  ${file.name}  (${file.tests} tests)`);
console.log('\n== phases ==');
for (const phase of phases) console.log(`${phase.ok ? '✓' : '✗'} ${phase.name}: ${seconds(phase.ms)}`);
console.log(`  total: ${seconds(performance.now() - started)}`);
process.exit(phases.every((p) => p.ok) ? 0 : 1);
