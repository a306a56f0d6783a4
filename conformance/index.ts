#!/usr/bin/env -S npx tsx
// The Till conformance suite: points at any deployment (the server, the Prism mock, a merchant's
// own) and says whether it keeps the contract and the rules of the source documents.
//
//   npm run conformance -- --base-url URL --secret-key sk_test_… [--commerce-base-url URL] [--publishable-key pk_test_…]
//       [--api-key sk_test_…] [--other-secret-key sk_test_…] [--target server|mock]
//       [--implemented FILE] [--report out/] [--contract-only] [--verbose]
//
// Every option can come from the environment instead: TILL_BASE_URL, TILL_COMMERCE_BASE_URL, TILL_SECRET_KEY,
// TILL_PUBLISHABLE_KEY, TILL_API_KEY, TILL_OTHER_SECRET_KEY, TILL_CONFORMANCE_TARGET,
// TILL_CONFORMANCE_IMPLEMENTED, TILL_CONFORMANCE_REPORT. Exit status: 0 when nothing failed,
// 1 on any failure, 2 for a bad call.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { consoleSummary, writeReport } from './report.js';
import { runConformance } from './run.js';
import { scenarios } from './scenarios/index.js';
import type { ConformanceOptions } from './types.js';

const usage = `Usage: npm run conformance -- --base-url URL --secret-key sk_test_... [--commerce-base-url URL] [--publishable-key pk_test_...] [--api-key sk_test_...]
       [--other-secret-key sk_test_...] [--target server|mock] [--implemented FILE] [--report DIR] [--contract-only] [--verbose]`;

function fail(message: string): never {
  console.error(`conformance: ${message}\n${usage}`);
  process.exit(2);
}

async function main() {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: process.argv.slice(2),
      options: {
        'base-url': { type: 'string' },
        'commerce-base-url': { type: 'string' },
        'secret-key': { type: 'string' },
        'publishable-key': { type: 'string' },
        'api-key': { type: 'string' },
        'other-secret-key': { type: 'string' },
        target: { type: 'string' },
        implemented: { type: 'string' },
        report: { type: 'string' },
        'contract-only': { type: 'boolean', default: false },
        verbose: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
      strict: true,
    }));
  } catch (err) {
    fail((err as Error).message);
  }
  if (values.help) {
    console.log(usage);
    return;
  }
  const env = process.env;
  const str = (name: string, envName: string) => (values[name] as string | undefined) ?? (env[envName] || undefined);
  const baseUrl = str('base-url', 'TILL_BASE_URL');
  const secretKey = str('secret-key', 'TILL_SECRET_KEY');
  const target = str('target', 'TILL_CONFORMANCE_TARGET') ?? 'server';
  if (!baseUrl || !/^https?:\/\//.test(baseUrl)) fail('--base-url (or TILL_BASE_URL) must be an http(s) URL.');
  if (!secretKey) fail('--secret-key (or TILL_SECRET_KEY) is required: a test-mode secret key (sk_test_...).');
  if (target !== 'server' && target !== 'mock') fail('--target must be server or mock.');
  if (target === 'server' && !secretKey.startsWith('sk_test_')) fail('use a test-mode secret key (sk_test_...): the suite creates objects.');
  const implementedFile = str('implemented', 'TILL_CONFORMANCE_IMPLEMENTED');
  let implemented: Set<string> | undefined;
  if (implementedFile) {
    try {
      implemented = new Set<string>(JSON.parse(readFileSync(implementedFile, 'utf8')).implemented);
    } catch (err) {
      fail(`cannot read --implemented ${implementedFile}: ${(err as Error).message} (expected the output of npm run -s operations -- --json)`);
    }
  }
  const options: ConformanceOptions = {
    baseUrl,
    commerceBaseUrl: str('commerce-base-url', 'TILL_COMMERCE_BASE_URL'),
    secretKey,
    publishableKey: str('publishable-key', 'TILL_PUBLISHABLE_KEY'),
    apiKey: str('api-key', 'TILL_API_KEY'),
    otherSecretKey: str('other-secret-key', 'TILL_OTHER_SECRET_KEY'),
    target,
    implemented,
    reportDir: str('report', 'TILL_CONFORMANCE_REPORT'),
    contractOnly: Boolean(values['contract-only']),
    verbose: Boolean(values.verbose),
  };

  console.log(`conformance: checking ${options.baseUrl} as a ${target}${options.contractOnly ? ' (contract only)' : ''}`);
  const report = await runConformance(options, scenarios, (line) => console.log(line));
  if (options.reportDir) {
    const files = await writeReport(options.reportDir, report);
    console.log(`report: ${files.markdown}, ${files.json}`);
  }
  console.log(consoleSummary(report));
  process.exit(report.totals.failed > 0 ? 1 : 0);
}

main().catch((err) => {
  console.error(`conformance: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exit(1);
});
