// The checks before a run: the base URL answers, as Till; the keys are what the run needs (a test
// secret key, a publishable key of the same merchant and mode, another merchant's key). A failed
// preflight stops the run with one clear line per problem (exit status 2), before anything slow.
import { randomBytes } from 'node:crypto';
import type { ConformanceOptions } from './types.js';

export interface PreflightResult {
  ok: boolean;
  /** One line per check: `✓ …`, `✗ …` or `- … (not checked: why)`. */
  lines: string[];
}

interface Answer {
  status: number;
  json: any;
  contentType: string;
}

/** The kind of key a string is, from its prefix. */
function keyKind(key: string): 'sk_test' | 'sk_live' | 'pk_test' | 'pk_live' | 'unknown' {
  const m = /^(sk|pk)_(test|live)_/.exec(key);
  return m ? (`${m[1]}_${m[2]}` as 'sk_test') : 'unknown';
}

/** What is wrong with a key given for `option`, which wants a key of kind `want`, or undefined. */
function keyProblem(option: string, key: string, want: 'sk_test' | 'pk_test' | 'sk_live'): string | undefined {
  const kind = keyKind(key);
  if (kind === want) return undefined;
  if (want === 'sk_live') return `${option} ${key.slice(0, 8)}… is not a live secret key (sk_live_…)`;
  const shown = `${key.slice(0, 8)}…`;
  if (kind === 'sk_live' || kind === 'pk_live') return `${option} ${shown} is a live key: the suite creates objects, so give a test key (${want}_…)`;
  if (want === 'sk_test' && kind === 'pk_test') return `${option} ${shown} is a publishable key: give the merchant's test secret key (sk_test_…)`;
  if (want === 'pk_test' && kind === 'sk_test') return `${option} ${shown} is a secret key: give the merchant's test publishable key (pk_test_…)`;
  return `${option} ${shown} is not a Till key (expected ${want}_…)`;
}

/** Why a fetch failed, in a word or two: ECONNREFUSED, ENOTFOUND, a timeout, a certificate problem. */
function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.code) return cause.code;
  if ((err as Error)?.name === 'TimeoutError') return 'no answer within 15 s';
  return cause?.message ?? (err as Error)?.message ?? String(err);
}

async function ask(url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
    signal: AbortSignal.timeout(15_000),
  });
  const contentType = res.headers.get('content-type') ?? '';
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, json, contentType };
}

const errorCode = (a: Answer) => (a.json?.error?.code ? ` ${a.json.error.code}` : '');

/** The preflight's lines so far, and whether every check has passed. */
class Log {
  ok = true;
  readonly lines: string[] = [];
  fail(line: string): void {
    this.ok = false;
    this.lines.push(`✗ ${line}`);
  }
  pass(line: string): void {
    this.lines.push(`✓ ${line}`);
  }
  skip(line: string): void {
    this.lines.push(`- ${line}`);
  }
}

/** The keys' kinds, from their prefixes: nothing to send yet. Answers the problems found. */
function checkKeyKinds(options: ConformanceOptions, log: Log): string[] {
  const problems = [
    keyProblem('--secret-key', options.secretKey, 'sk_test'),
    options.publishableKey ? keyProblem('--publishable-key', options.publishableKey, 'pk_test') : undefined,
    options.otherSecretKey ? keyProblem('--other-secret-key', options.otherSecretKey, 'sk_test') : undefined,
    options.liveSecretKey ? keyProblem('--live-secret-key', options.liveSecretKey, 'sk_live') : undefined,
  ].filter((p): p is string => p !== undefined);
  if (options.otherSecretKey && options.otherSecretKey === options.secretKey)
    problems.push("--other-secret-key is the same key as --secret-key: give a second merchant's test secret key");
  for (const p of problems) log.fail(p);
  if (problems.length === 0) log.pass('the keys are test keys of the right kinds');
  return problems;
}

/** The base URL answers, as an HTTP JSON API (and the Commerce base URL answers): its answer to `GET /v1/products`, or undefined when it failed. */
async function probeBase(options: ConformanceOptions, base: string, auth: Record<string, string>, log: Log): Promise<Answer | undefined> {
  let probe: Answer;
  try {
    probe = await ask(`${base}/v1/products?limit=1`, { headers: auth });
  } catch (err) {
    log.fail(`cannot reach ${base}: ${networkReason(err)}`);
    return undefined;
  }
  if (!probe.contentType.includes('json')) {
    log.fail(
      `${base} answers, but not as Till: GET /v1/products → ${probe.status} ${probe.contentType || 'without a content type'} (is the base URL right, without /v1 at its end?)`,
    );
    return undefined;
  }
  log.pass(`${base} answers (GET /v1/products → ${probe.status})`);
  if (options.commerceBaseUrl && options.commerceBaseUrl.replace(/\/+$/, '') !== base) {
    const commerce = options.commerceBaseUrl.replace(/\/+$/, '');
    try {
      const a = await ask(`${commerce}/`);
      log.pass(`${commerce} answers (${a.status})`);
    } catch (err) {
      log.fail(`cannot reach ${commerce} (--commerce-base-url): ${networkReason(err)}`);
    }
  }
  return probe;
}

/** Whether the secret key is accepted, with every scope, in test mode (from the probe's answer); false when the run cannot go on. */
function checkSecretKey(probe: Answer, base: string, log: Log): boolean {
  if (probe.status === 401) {
    log.fail(`--secret-key is not accepted by ${base} (401${errorCode(probe)}): a key of another deployment, revoked, or mistyped`);
    return false;
  }
  if (probe.status === 403) {
    log.fail(`--secret-key is refused by ${base} (403${errorCode(probe)}): the suite needs a test secret key with every scope`);
    return false;
  }
  if (probe.status !== 200) {
    log.fail(`GET /v1/products with --secret-key answered ${probe.status}${errorCode(probe)}, not 200`);
    return false;
  }
  if (probe.json?.livemode === true || probe.json?.data?.some?.((p: { livemode?: boolean }) => p.livemode === true))
    log.fail('--secret-key acts in live mode: give a test secret key');
  else log.pass('--secret-key is a valid test secret key');
  return true;
}

/** The merchant each key acts for, by its `GET /v1/merchant` (Commerce); empty when one cannot be read. */
async function merchantsOf(options: ConformanceOptions, keys: string[]): Promise<string[]> {
  const commerce = (options.commerceBaseUrl ?? options.baseUrl).replace(/\/+$/, '');
  const answers = await Promise.all(keys.map((key) => ask(`${commerce}/v1/merchant`, { headers: { 'x-api-key': key } }).catch(() => undefined)));
  const ids = answers.map((a) => (a?.status === 200 && a.json?.id !== undefined ? `merchant ${a.json.id}` : undefined));
  return ids.every((id) => id !== undefined) ? (ids as string[]) : [];
}

/** Reads the session `id` with the publishable key (same merchant and mode: 200) and with the other merchant's key (404). */
async function checkSecondKeys(options: ConformanceOptions, base: string, session: Answer, log: Log): Promise<void> {
  const id = encodeURIComponent(session.json.id);
  if (options.publishableKey) {
    const seen = await ask(`${base}/v1/checkout-sessions/${id}/status`, {
      headers: { authorization: `Bearer ${options.publishableKey}`, 'x-client-secret': session.json.clientSecret },
    });
    if (seen.status === 200) log.pass('--publishable-key belongs to the same merchant and mode');
    else if (seen.status === 401 && seen.json?.error?.code === 'invalid_api_key')
      log.fail(`--publishable-key is not accepted by ${base} (401 invalid_api_key)`);
    else log.fail(`--publishable-key does not belong to the merchant of --secret-key (reading its session answered ${seen.status}${errorCode(seen)})`);
  }
  if (options.otherSecretKey) {
    const other = await ask(`${base}/v1/checkout-sessions/${id}`, { headers: { authorization: `Bearer ${options.otherSecretKey}` } });
    const merchants = other.status === 200 ? await merchantsOf(options, [options.secretKey, options.otherSecretKey]) : [];
    if (other.status === 404) log.pass('--other-secret-key is another merchant');
    // Two merchants, yet one reads the other's session: the deployment leaks across merchants (the run's 404 checks fail), the keys are right.
    else if (other.status === 200 && merchants.length === 2 && merchants[0] !== merchants[1])
      log.pass(`--other-secret-key is another merchant (${merchants.join(' and ')}), yet it read the first one's session (200, not 404)`);
    else if (other.status === 200) log.fail("--other-secret-key belongs to the same merchant as --secret-key: give a second merchant's test secret key");
    else if (other.status === 401) log.fail(`--other-secret-key is not accepted by ${base} (401${errorCode(other)})`);
    else log.fail(`--other-secret-key: reading the merchant's session answered ${other.status}${errorCode(other)}, not 404`);
  }
}

/**
 * One session of the merchant, read with the publishable key and with the other merchant's key,
 * then cancelled. False when the base URL could not be reached for it.
 */
async function checkWithSession(options: ConformanceOptions, base: string, auth: Record<string, string>, log: Log): Promise<boolean> {
  const tag = `preflight${randomBytes(4).toString('hex')}`;
  let session: Answer;
  try {
    session = await ask(`${base}/v1/checkout-sessions`, {
      method: 'POST',
      headers: auth,
      body: { amount: 1, currency: 'USD', mode: 'embedded', paymentType: 'oneTime', metadata: { conformanceRun: tag } },
    });
  } catch (err) {
    log.fail(`cannot reach ${base} for a checkout session: ${networkReason(err)}`);
    return false;
  }
  if (session.status !== 201 || typeof session.json?.id !== 'string') {
    log.skip(`--publishable-key and --other-secret-key not checked: a checkout session could not be made (${session.status}${errorCode(session)})`);
    return true;
  }
  try {
    await checkSecondKeys(options, base, session, log);
  } finally {
    await ask(`${base}/v1/checkout-sessions/${encodeURIComponent(session.json.id)}/cancel`, { method: 'POST', headers: auth }).catch(() => undefined);
  }
  return true;
}

/** Runs the preflight for `options`. Creates (and cancels) one checkout session when a second key needs checking. */
export async function preflight(options: ConformanceOptions): Promise<PreflightResult> {
  const log = new Log();
  const base = options.baseUrl.replace(/\/+$/, '');
  const problems = checkKeyKinds(options, log);
  const auth = { authorization: `Bearer ${options.secretKey}` };
  const probe = await probeBase(options, base, auth, log);
  if (!probe) return { ok: false, lines: log.lines };
  if (options.target === 'mock') {
    log.skip('keys, merchants and modes not checked: the mock accepts any key');
    return { ok: log.ok, lines: log.lines };
  }
  // A key of the wrong kind is not sent further (a live key would act in live mode).
  if (problems.length > 0) return { ok: log.ok, lines: log.lines };
  if (!checkSecretKey(probe, base, log)) return { ok: false, lines: log.lines };
  if (!options.publishableKey && !options.otherSecretKey) return { ok: log.ok, lines: log.lines };
  if (!(await checkWithSession(options, base, auth, log))) return { ok: false, lines: log.lines };
  return { ok: log.ok, lines: log.lines };
}
