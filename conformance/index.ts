#!/usr/bin/env -S npx tsx
// The Till conformance suite: points at any deployment (the server, the Prism mock, a merchant's
// own) and says whether it keeps the contract and the rules of the source documents.
//
//   npm run conformance -- --base-url URL --secret-key sk_test_… [--commerce-base-url URL] [--publishable-key pk_test_…]
//       [--api-key sk_test_…] [--other-secret-key sk_test_…] [--live-secret-key sk_live_…] [--target server|mock]
//       [--implemented FILE] [--report out/] [--reporter junit] [--junit FILE] [--only ID_PREFIX]… [--contract-only] [--quiet] [--verbose]
//
// Every option can come from the environment instead: TILL_BASE_URL, TILL_COMMERCE_BASE_URL, TILL_SECRET_KEY,
// TILL_PUBLISHABLE_KEY, TILL_API_KEY, TILL_OTHER_SECRET_KEY, TILL_LIVE_SECRET_KEY, TILL_CONFORMANCE_TARGET,
// TILL_CONFORMANCE_IMPLEMENTED, TILL_CONFORMANCE_REPORT, TILL_CONFORMANCE_JUNIT. A preflight checks
// the URL and the keys first. Exit status: 0 when nothing failed, 1 on any failure, 2 for a bad
// call or a failed preflight.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import path from 'node:path';
import { writeJUnit } from './junit.js';
import { preflight } from './preflight.js';
import { consoleSummary, writeReport } from './report.js';
import { operationOutcome, type Progress, runConformance } from './run.js';
import { scenarios } from './scenarios/index.js';
import type { ConformanceOptions } from './types.js';

const usage = `Usage: npm run conformance -- --base-url URL --secret-key sk_test_... [--commerce-base-url URL] [--publishable-key pk_test_...] [--api-key sk_test_...]
       [--other-secret-key sk_test_...] [--live-secret-key sk_live_...] [--target server|mock] [--implemented FILE] [--report DIR] [--reporter junit] [--junit FILE]
       [--only SCENARIO_ID_PREFIX]... [--contract-only] [--quiet] [--verbose]`;

function fail(message: string): never {
  console.error(`conformance: ${message}\n${usage}`);
  process.exit(2);
}

type Values = Record<string, string | boolean | string[] | undefined>;

/** The command line's options, or a bad call (exit status 2). */
function parseValues(): Values {
  try {
    return parseArgs({
      args: process.argv.slice(2),
      options: {
        'base-url': { type: 'string' },
        'commerce-base-url': { type: 'string' },
        'secret-key': { type: 'string' },
        'publishable-key': { type: 'string' },
        'api-key': { type: 'string' },
        'other-secret-key': { type: 'string' },
        'live-secret-key': { type: 'string' },
        target: { type: 'string' },
        implemented: { type: 'string' },
        report: { type: 'string' },
        reporter: { type: 'string', multiple: true },
        junit: { type: 'string' },
        only: { type: 'string', multiple: true },
        quiet: { type: 'boolean', default: false },
        'contract-only': { type: 'boolean', default: false },
        verbose: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
  } catch (err) {
    fail((err as Error).message);
  }
}

/** The JUnit file to write, if any: `--junit`, or `junit.xml` in the report directory with `--reporter junit`. */
function junitFileOf(values: Values, str: (name: string, envName: string) => string | undefined, reportDir: string | undefined): string | undefined {
  const env = process.env;
  const reporters = new Set(
    ((values.reporter as string[] | undefined) ?? (env.TILL_CONFORMANCE_REPORTER ? env.TILL_CONFORMANCE_REPORTER.split(',') : [])).map((r) => r.trim()),
  );
  for (const r of reporters)
    if (r !== 'junit' && r !== 'markdown' && r !== 'json')
      fail(`--reporter ${r}: known reporters are junit (besides the markdown and json report files --report always writes).`);
  let junitFile = str('junit', 'TILL_CONFORMANCE_JUNIT');
  if (reporters.has('junit') && !junitFile) {
    if (!reportDir) fail('--reporter junit needs --report DIR (writes DIR/junit.xml) or --junit FILE.');
    junitFile = path.join(reportDir, 'junit.xml');
  }
  return junitFile;
}

/** The operations the `--implemented` file lists, if one is given. */
function implementedIn(file: string | undefined): Set<string> | undefined {
  if (!file) return undefined;
  try {
    return new Set<string>(JSON.parse(readFileSync(file, 'utf8')).implemented);
  } catch (err) {
    fail(`cannot read --implemented ${file}: ${(err as Error).message} (expected the output of npm run -s operations -- --json)`);
  }
}

/** The run's options from the command line and the environment; a bad call exits with status 2. */
function readOptions(values: Values): { options: ConformanceOptions; junitFile: string | undefined } {
  const env = process.env;
  const str = (name: string, envName: string) => (values[name] as string | undefined) ?? (env[envName] || undefined);
  const baseUrl = str('base-url', 'TILL_BASE_URL');
  const secretKey = str('secret-key', 'TILL_SECRET_KEY');
  const target = str('target', 'TILL_CONFORMANCE_TARGET') ?? 'server';
  if (!baseUrl || !/^https?:\/\//.test(baseUrl)) fail('--base-url (or TILL_BASE_URL) must be an http(s) URL.');
  if (!secretKey) fail('--secret-key (or TILL_SECRET_KEY) is required: a test-mode secret key (sk_test_...).');
  if (target !== 'server' && target !== 'mock') fail('--target must be server or mock.');
  const reportDir = str('report', 'TILL_CONFORMANCE_REPORT');
  const junitFile = junitFileOf(values, str, reportDir);
  const implemented = implementedIn(str('implemented', 'TILL_CONFORMANCE_IMPLEMENTED'));
  const options: ConformanceOptions = {
    baseUrl,
    commerceBaseUrl: str('commerce-base-url', 'TILL_COMMERCE_BASE_URL'),
    secretKey,
    publishableKey: str('publishable-key', 'TILL_PUBLISHABLE_KEY'),
    apiKey: str('api-key', 'TILL_API_KEY'),
    otherSecretKey: str('other-secret-key', 'TILL_OTHER_SECRET_KEY'),
    liveSecretKey: str('live-secret-key', 'TILL_LIVE_SECRET_KEY'),
    target,
    implemented,
    reportDir,
    contractOnly: Boolean(values['contract-only']),
    verbose: Boolean(values.verbose),
    only: values.only as string[] | undefined,
  };
  return { options, junitFile };
}

async function main() {
  const values = parseValues();
  if (values.help) {
    console.log(usage);
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
 * Progress on stderr, as each part goes: a line per scenario as it finishes (mark, id, time, and
 * why when it did not pass), a line per operation only when it failed (or with --verbose), and a
 * line at the end of each part.
 */
function progressPrinter(options: ConformanceOptions): (event: Progress) => void {
  let partStarted = Date.now();
  const counts = { passed: 0, failed: 0, pending: 0 };
  const endPart = (part: string) => {
    console.error(
      `${part}: ${counts.passed} passed, ${counts.failed} failed, ${counts.pending} pending in ${((Date.now() - partStarted) / 1000).toFixed(1)} s`,
    );
  };
  return (event) => {
    if (event.kind === 'part') {
      partStarted = Date.now();
      Object.assign(counts, { passed: 0, failed: 0, pending: 0 });
      console.error(`${event.part}: ${event.count} ${event.part === 'contract' ? 'operations' : 'scenarios'}`);
    } else if (event.kind === 'note') console.error(`  ${event.line}`);
    else if (event.kind === 'operation') {
      const outcome = operationOutcome(event.result);
      counts[outcome]++;
      if (outcome === 'failed' || options.verbose)
        console.error(
          `  ${marks[outcome]} ${event.result.operationId} ${event.result.durationMs ?? 0} ms${outcome === 'failed' ? '' : event.result.success.note ? ` (${event.result.success.note})` : ''}`,
        );
      if (event.index === event.count - 1) endPart('contract');
    } else {
      const r = event.result;
      counts[r.outcome]++;
      const why = r.outcome === 'passed' ? '' : ` (${(r.note ?? '').split('\n')[0]!.slice(0, 160)})`;
      const width = String(event.count).length;
      console.error(
        `  [${String(event.index + 1).padStart(width)}/${event.count}] ${marks[r.outcome]} ${r.id} ${r.durationMs ?? 0} ms${r.merchant ? ' on the sandbox merchant' : ''}${why}`,
      );
      if (event.index === event.count - 1) endPart('scenarios');
    }
  };
}

main().catch((err) => {
  console.error(`conformance: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exit(1);
});
