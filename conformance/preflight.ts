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
function keyProblem(option: string, key: string, want: 'sk_test' | 'pk_test'): string | undefined {
  const kind = keyKind(key);
  if (kind === want) return undefined;
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

/** Runs the preflight for `options`. Creates (and cancels) one checkout session when a second key needs checking. */
export async function preflight(options: ConformanceOptions): Promise<PreflightResult> {
  const lines: string[] = [];
  let ok = true;
  const fail = (line: string) => {
    ok = false;
    lines.push(`✗ ${line}`);
  };
  const pass = (line: string) => lines.push(`✓ ${line}`);
  const skip = (line: string) => lines.push(`- ${line}`);
  const base = options.baseUrl.replace(/\/+$/, '');
  const mock = options.target === 'mock';

  // The keys' kinds, from their prefixes: nothing to send yet.
  const problems = [
    keyProblem('--secret-key', options.secretKey, 'sk_test'),
    options.publishableKey ? keyProblem('--publishable-key', options.publishableKey, 'pk_test') : undefined,
    options.otherSecretKey ? keyProblem('--other-secret-key', options.otherSecretKey, 'sk_test') : undefined,
  ].filter((p): p is string => p !== undefined);
  if (options.otherSecretKey && options.otherSecretKey === options.secretKey)
    problems.push("--other-secret-key is the same key as --secret-key: give a second merchant's test secret key");
  for (const p of problems) fail(p);
  if (problems.length === 0) pass('the keys are test keys of the right kinds');

  // The base URL answers, as an HTTP JSON API.
  const auth = { authorization: `Bearer ${options.secretKey}` };
  let probe: Answer;
  try {
    probe = await ask(`${base}/v1/products?limit=1`, { headers: auth });
  } catch (err) {
    fail(`cannot reach ${base}: ${networkReason(err)}`);
    return { ok: false, lines };
  }
  if (!probe.contentType.includes('json')) {
    fail(
      `${base} answers, but not as Till: GET /v1/products → ${probe.status} ${probe.contentType || 'without a content type'} (is the base URL right, without /v1 at its end?)`,
    );
    return { ok: false, lines };
  }
  pass(`${base} answers (GET /v1/products → ${probe.status})`);
  if (options.commerceBaseUrl && options.commerceBaseUrl.replace(/\/+$/, '') !== base) {
    const commerce = options.commerceBaseUrl.replace(/\/+$/, '');
    try {
      const a = await ask(`${commerce}/`);
      pass(`${commerce} answers (${a.status})`);
    } catch (err) {
      fail(`cannot reach ${commerce} (--commerce-base-url): ${networkReason(err)}`);
    }
  }

  if (mock) {
    skip('keys, merchants and modes not checked: the mock accepts any key');
    return { ok, lines };
  }
  // A key of the wrong kind is not sent further (a live key would act in live mode).
  if (problems.length > 0) return { ok, lines };
  if (probe.status === 401) {
    fail(`--secret-key is not accepted by ${base} (401${errorCode(probe)}): a key of another deployment, revoked, or mistyped`);
    return { ok: false, lines };
  }
  if (probe.status === 403) {
    fail(`--secret-key is refused by ${base} (403${errorCode(probe)}): the suite needs a test secret key with every scope`);
    return { ok: false, lines };
  }
  if (probe.status !== 200) {
    fail(`GET /v1/products with --secret-key answered ${probe.status}${errorCode(probe)}, not 200`);
    return { ok: false, lines };
  }
  if (probe.json?.livemode === true || probe.json?.data?.some?.((p: { livemode?: boolean }) => p.livemode === true))
    fail('--secret-key acts in live mode: give a test secret key');
  else pass('--secret-key is a valid test secret key');
  if (!options.publishableKey && !options.otherSecretKey) return { ok, lines };

  // One session of the merchant, read with the publishable key (same merchant and mode: 200) and
  // with the other merchant's key (another merchant: 404), then cancelled.
  const tag = `preflight${randomBytes(4).toString('hex')}`;
  let session: Answer;
  try {
    session = await ask(`${base}/v1/checkout-sessions`, {
      method: 'POST',
      headers: auth,
      body: { amount: 1, currency: 'USD', mode: 'embedded', paymentType: 'oneTime', metadata: { conformanceRun: tag } },
    });
  } catch (err) {
    fail(`cannot reach ${base} for a checkout session: ${networkReason(err)}`);
    return { ok: false, lines };
  }
  if (session.status !== 201 || typeof session.json?.id !== 'string') {
    skip(`--publishable-key and --other-secret-key not checked: a checkout session could not be made (${session.status}${errorCode(session)})`);
    return { ok, lines };
  }
  const id = encodeURIComponent(session.json.id);
  try {
    if (options.publishableKey) {
      const seen = await ask(`${base}/v1/checkout-sessions/${id}/status`, {
        headers: { authorization: `Bearer ${options.publishableKey}`, 'x-client-secret': session.json.clientSecret },
      });
      if (seen.status === 200) pass('--publishable-key belongs to the same merchant and mode');
      else if (seen.status === 401 && seen.json?.error?.code === 'invalid_api_key') fail(`--publishable-key is not accepted by ${base} (401 invalid_api_key)`);
      else fail(`--publishable-key does not belong to the merchant of --secret-key (reading its session answered ${seen.status}${errorCode(seen)})`);
    }
    if (options.otherSecretKey) {
      const other = await ask(`${base}/v1/checkout-sessions/${id}`, { headers: { authorization: `Bearer ${options.otherSecretKey}` } });
      if (other.status === 404) pass('--other-secret-key is another merchant');
      else if (other.status === 200) fail("--other-secret-key belongs to the same merchant as --secret-key: give a second merchant's test secret key");
      else if (other.status === 401) fail(`--other-secret-key is not accepted by ${base} (401${errorCode(other)})`);
      else fail(`--other-secret-key: reading the merchant's session answered ${other.status}${errorCode(other)}, not 404`);
    }
  } finally {
    await ask(`${base}/v1/checkout-sessions/${id}/cancel`, { method: 'POST', headers: auth }).catch(() => undefined);
  }
  return { ok, lines };
}
