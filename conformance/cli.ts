// The command line of `till-conformance` (`npm run conformance -- …` in this repository): every flag
// once, with its environment variable and what it does. The parser and `--help` are both made from
// FLAGS, so the help lists every flag the parser takes. A bad call exits with status 2.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import manifest from './package.json' with { type: 'json' };
import type { ConformanceOptions } from './types.js';

/** The suite's version: its package's (`till-conformance`). */
export const VERSION: string = manifest.version;

/** One flag: its value (none for a switch), its environment variable, and one line of help. */
export interface Flag {
  name: string;
  /** What its value is called in the help; a switch has none. */
  value?: string;
  env?: string;
  multiple?: boolean;
  short?: string;
  help: string;
}

/** Every flag, in the order the help shows them. */
export const FLAGS: Flag[] = [
  { name: 'base-url', value: 'URL', env: 'TILL_BASE_URL', help: 'the deployment to check (required), e.g. https://till.staging.example.com' },
  {
    name: 'secret-key',
    value: 'sk_test_...',
    env: 'TILL_SECRET_KEY',
    help: 'a test-mode secret key of the merchant under test (required): the suite creates objects',
  },
  {
    name: 'publishable-key',
    value: 'pk_test_...',
    env: 'TILL_PUBLISHABLE_KEY',
    help: "the same merchant's test publishable key, for the client-side operations",
  },
  { name: 'api-key', value: 'KEY', env: 'TILL_API_KEY', help: 'the Commerce x-api-key, when it is not the secret key' },
  { name: 'commerce-base-url', value: 'URL', env: 'TILL_COMMERCE_BASE_URL', help: 'where the Commerce interface answers, when not at --base-url' },
  {
    name: 'other-secret-key',
    value: 'sk_test_...',
    env: 'TILL_OTHER_SECRET_KEY',
    help: "a second merchant's test secret key; without it the suite makes a sandbox merchant (createTestMerchant)",
  },
  {
    name: 'live-secret-key',
    value: 'sk_live_...',
    env: 'TILL_LIVE_SECRET_KEY',
    help: "the same merchant's live secret key, for the checks that the modes keep their objects apart (nothing is charged)",
  },
  {
    name: 'target',
    value: 'server|mock',
    env: 'TILL_CONFORMANCE_TARGET',
    help: 'server (default) checks behaviour; mock checks only that answers keep the contract',
  },
  {
    name: 'implemented',
    value: 'FILE',
    env: 'TILL_CONFORMANCE_IMPLEMENTED',
    help: 'JSON {"implemented": [operationId, ...]}: only these count as implemented (otherwise a 501 says so)',
  },
  { name: 'only', value: 'ID_PREFIX', multiple: true, help: 'run only the scenarios whose id starts with ID_PREFIX (the contract part still runs)' },
  { name: 'contract-only', help: 'run only the contract part: no behaviour scenarios' },
  { name: 'scenarios-only', help: 'run only the behaviour scenarios: no contract part' },
  {
    name: 'concurrency',
    value: 'N',
    env: 'TILL_CONFORMANCE_CONCURRENCY',
    help: 'how many operations and scenarios run at once (default 8: a full run on PGlite takes under half the time it takes with 1); the long checks start first; any marked exclusive run alone at the end',
  },
  {
    name: 'receiver-url',
    value: 'URL',
    env: 'TILL_CONFORMANCE_RECEIVER_URL',
    help: "the public base URL at which the target reaches this machine's webhook receiver (e.g. a tunnel to --receiver-port), for the checks only a receiver sees; without it the receiver is on 127.0.0.1",
  },
  {
    name: 'receiver-port',
    value: 'PORT',
    env: 'TILL_CONFORMANCE_RECEIVER_PORT',
    help: "the port the receiver listens on, on every interface (default: --receiver-url's port); plain HTTP, or HTTPS with a self-signed certificate when --receiver-url is https on a loopback host",
  },
  { name: 'report', value: 'DIR', env: 'TILL_CONFORMANCE_REPORT', help: 'write DIR/conformance.md and DIR/conformance.json' },
  { name: 'reporter', value: 'junit', env: 'TILL_CONFORMANCE_REPORTER', multiple: true, help: 'also write JUnit XML to DIR/junit.xml (needs --report DIR)' },
  { name: 'junit', value: 'FILE', env: 'TILL_CONFORMANCE_JUNIT', help: 'write JUnit XML to FILE' },
  { name: 'quiet', help: 'no progress lines: the preflight (when it fails) and the summary only' },
  { name: 'verbose', help: 'a progress line for every operation, not only the failed ones' },
  { name: 'help', short: 'h', help: 'print this help and exit' },
  { name: 'version', help: 'print the version and exit' },
];

const USAGE = 'Usage: till-conformance --base-url URL --secret-key sk_test_... [flags]';

/** The whole help: usage, every flag with its environment variable, the exit statuses. */
export function helpText(): string {
  const lines = FLAGS.flatMap((f) => [
    `  --${f.name}${f.value ? ` ${f.value}` : ''}${f.short ? `, -${f.short}` : ''}${f.env ? `   [${f.env}]` : ''}${f.multiple ? '   (repeatable)' : ''}`,
    `      ${f.help}`,
  ]);
  return [
    `till-conformance ${VERSION}: checks a Till deployment against its OpenAPI contracts and the rules of its documents.`,
    '',
    USAGE,
    '',
    'Flags (each can come from the environment variable in brackets instead):',
    ...lines,
    '',
    'Exit status: 0 when nothing failed, 1 when a check failed, 2 for a bad call or a failed preflight.',
  ].join('\n');
}

/** A bad call: says what is wrong, and exits with status 2. */
export function badCall(message: string): never {
  console.error(`till-conformance: ${message}\n${USAGE}\nRun till-conformance --help for every flag.`);
  process.exit(2);
}

export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

/** What parseArgs threw, in a line that names the flag. */
function parseProblem(err: Error & { code?: string }): string {
  const flag = /'([^']*)'/.exec(err.message)?.[1];
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag) return `unknown flag ${flag}`;
  if (err.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL' && flag) return `unexpected argument ${flag}: every value follows its flag`;
  return err.message;
}

/** The command line's values (a bad call exits with status 2). */
export function parseValues(args: string[]): Values {
  const options = Object.fromEntries(
    FLAGS.map((f) => [
      f.name,
      { type: f.value ? ('string' as const) : ('boolean' as const), ...(f.multiple ? { multiple: true } : {}), ...(f.short ? { short: f.short } : {}) },
    ]),
  );
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (err) {
    badCall(parseProblem(err as Error));
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
      badCall(`--reporter ${r}: known reporters are junit (besides the markdown and json report files --report always writes).`);
  let junitFile = str('junit', 'TILL_CONFORMANCE_JUNIT');
  if (reporters.has('junit') && !junitFile) {
    if (!reportDir) badCall('--reporter junit needs --report DIR (writes DIR/junit.xml) or --junit FILE.');
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
    badCall(`cannot read --implemented ${file}: ${(err as Error).message} (expected {"implemented": [operationId, ...]})`);
  }
}

/** The receiver's public URL and port (`--receiver-url`, `--receiver-port`), if given. */
function receiverOf(url: string | undefined, port: string | undefined): ConformanceOptions['receiver'] {
  if (!url) {
    if (port) badCall('--receiver-port needs --receiver-url: the URL at which the target reaches that port.');
    return undefined;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    badCall(`--receiver-url ${url} is not a URL.`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') badCall('--receiver-url must be an http(s) URL.');
  const listen = port ?? parsed.port;
  if (!listen) badCall(`--receiver-url ${url} names no port: give --receiver-port, the port the receiver listens on.`);
  if (!/^\d+$/.test(listen) || Number(listen) < 1 || Number(listen) > 65_535) badCall('--receiver-port must be a port number, 1-65535.');
  return { url: url.replace(/\/+$/, ''), port: Number(listen) };
}

/** The run's options from the command line and the environment; a bad call exits with status 2. */
export function readOptions(values: Values): { options: ConformanceOptions; junitFile: string | undefined } {
  const env = process.env;
  const str = (name: string, envName: string) => (values[name] as string | undefined) ?? (env[envName] || undefined);
  const baseUrl = str('base-url', 'TILL_BASE_URL');
  const secretKey = str('secret-key', 'TILL_SECRET_KEY');
  const target = str('target', 'TILL_CONFORMANCE_TARGET') ?? 'server';
  if (!baseUrl || !/^https?:\/\//.test(baseUrl)) badCall('--base-url (or TILL_BASE_URL) must be an http(s) URL.');
  if (!secretKey) badCall('--secret-key (or TILL_SECRET_KEY) is required: a test-mode secret key (sk_test_...).');
  if (target !== 'server' && target !== 'mock') badCall('--target must be server or mock.');
  const reportDir = str('report', 'TILL_CONFORMANCE_REPORT');
  const junitFile = junitFileOf(values, str, reportDir);
  const implemented = implementedIn(str('implemented', 'TILL_CONFORMANCE_IMPLEMENTED'));
  const concurrency = str('concurrency', 'TILL_CONFORMANCE_CONCURRENCY');
  if (concurrency !== undefined && !/^[1-9]\d*$/.test(concurrency)) badCall('--concurrency must be a whole number, at least 1.');
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
    scenariosOnly: Boolean(values['scenarios-only']),
    verbose: Boolean(values.verbose),
    only: values.only as string[] | undefined,
    concurrency: concurrency === undefined ? undefined : Number(concurrency),
    receiver: receiverOf(str('receiver-url', 'TILL_CONFORMANCE_RECEIVER_URL'), str('receiver-port', 'TILL_CONFORMANCE_RECEIVER_PORT')),
  };
  return { options, junitFile };
}
