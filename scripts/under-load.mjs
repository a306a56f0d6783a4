#!/usr/bin/env node
// Runs the test suite several times in a row while another process keeps one core busy, to show
// that no test depends on an idle machine (tests wait for what they need with a deadline, never
// for a fixed time). Stops at the first failed run; the exit code is that run's.
//
//   node scripts/under-load.mjs                     npm test, three times, one core busy
//   node scripts/under-load.mjs --runs 5 -- npx vitest run --project api
//
// The busy process is a plain spin loop in its own Node process (one core at 100 %), started before
// the first run and stopped after the last.
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({ options: { runs: { type: 'string', default: '3' } }, allowPositionals: true });
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`--runs takes a whole number of runs, at least 1; got ${values.runs}`);
  process.exit(2);
}
const [command, ...args] = positionals.length > 0 ? positionals : ['npm', 'test'];

const spinner = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
const stopSpinner = () => spinner.kill('SIGKILL');
process.on('exit', stopSpinner);
process.on('SIGINT', () => process.exit(130));

const results = [];
for (let run = 1; run <= runs; run++) {
  console.log(`\n== run ${run} of ${runs} under load (one core busy: pid ${spinner.pid}): ${[command, ...args].join(' ')} ==`);
  const started = performance.now();
  const code = await new Promise((resolve) => spawn(command, args, { stdio: 'inherit' }).on('close', (c) => resolve(c ?? 1)));
  results.push({ run, code, seconds: (performance.now() - started) / 1000 });
  if (code !== 0) break;
}
console.log('\n== under load ==');
for (const r of results) console.log(`run ${r.run}: ${r.code === 0 ? 'passed' : `failed (exit ${r.code})`} in ${r.seconds.toFixed(0)} s`);
const failed = results.find((r) => r.code !== 0);
process.exit(failed ? failed.code : 0);
