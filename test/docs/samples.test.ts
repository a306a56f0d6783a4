// The guides' samples run against a fresh server (samples.ts says how they are marked): each `test`
// sample, from a folder holding the demo merchant's keys as `npm start` writes them, with
// localhost:3000 pointing at this test's server, and 127.0.0.1:4010 and :4011 at the Prism mock
// (`npm run mock`), started when a sample calls it; what its `→` comments show is what it prints.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrism } from '../../scripts/mock.mjs';
import { root } from '../support/processes.js';
import { useTestServer } from '../support/server.js';
import { guideFiles, instrument, MARK, type Sample, SAMPLE_LANGUAGES, samplesIn, shows } from './samples.js';

// Test-mode deliveries may reach loopback, as `TILL_ALLOW_LOOPBACK_WEBHOOKS=true` lets them (the retry sample's endpoint).
// Metrics are served (to TILL_METRICS_TOKEN, as the observability guide's scrape sends it).
const METRICS_TOKEN = 'samples-metrics-token-0123456789';
const t = useTestServer({ config: { allowLoopbackWebhooks: true, metricsToken: METRICS_TOKEN } });
const samples = guideFiles(root).flatMap((file) => samplesIn(root, file));
const where = (s: Sample) => `${s.file}:${s.line}`;

/** What of the project a sample may use: its packages, its commands and what they read. */
const CHECKOUT = ['package.json', 'node_modules', 'scripts', 'server', 'generated', 'openapi', 'sdk', 'conformance'];
/**
 * A TypeScript sample imports `@till/sdk` as a merchant's project does; here it resolves to the SDK's
 * sources (tsx reads tsconfig paths), so nothing has to be built first.
 */
const SDK_PATHS = { '@till/sdk': ['sdk/src/index.ts'], '@till/sdk/webhooks': ['sdk/src/webhooks.ts'] };
/** The mock's addresses in the guides (docs/mock.md), and the ones this run's Prism listens on. */
const MOCK_HOSTS = { checkout: '127.0.0.1:4010', commerce: '127.0.0.1:4011' } as const;
const mocks: { host: string; url: string; stop: () => Promise<void> }[] = [];
beforeAll(async () => {
  if (!samples.some((s) => s.mark === 'test' && Object.values(MOCK_HOSTS).some((h) => s.code.includes(h)))) return;
  for (const [api, host] of Object.entries(MOCK_HOSTS)) mocks.push({ host, ...(await startPrism({ api: api as keyof typeof MOCK_HOSTS })) });
}, 120_000);
afterAll(() => Promise.all(mocks.map((m) => m.stop())));

let dir = '';
beforeAll(async () => {
  // A reader's checkout after `npm start`: the project (linked) and .data/demo-merchant.json.
  dir = await mkdtemp(path.join(tmpdir(), 'till-samples-'));
  for (const entry of CHECKOUT) await symlink(path.join(root, entry), path.join(dir, entry));
  await writeFile(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ extends: path.join(root, 'tsconfig.json'), compilerOptions: { baseUrl: '.', paths: SDK_PATHS } }),
  );
  await mkdir(path.join(dir, '.data'));
  await writeFile(path.join(dir, '.data', 'demo-merchant.json'), JSON.stringify(t.merchantA));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Runs a sample's code (localhost:3000 made this server) and answers what it printed and its exit status. */
function run(sample: Sample, code: string): Promise<{ status: number; stdout: string; stderr: string }> {
  const here = mocks.reduce((c, m) => c.replaceAll(m.host, new URL(m.url).host), code.replaceAll('localhost:3000', new URL(t.url).host));
  const env = {
    ...process.env,
    TILL_SECRET_KEY: t.merchantA.keys.test.secret,
    TILL_PUBLISHABLE_KEY: t.merchantA.keys.test.publishable,
    TILL_METRICS_TOKEN: METRICS_TOKEN,
  };
  return new Promise((resolve, reject) => {
    const done = (error: (Error & { code?: unknown }) | null, stdout: string, stderr: string) =>
      resolve({ status: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    if (sample.lang === 'sh') execFile('bash', ['-e', '-o', 'pipefail', '-c', here], { cwd: dir, env, timeout: 60_000 }, done);
    else
      writeFile(path.join(dir, 'sample.mts'), here).then(
        () => execFile(process.execPath, ['--import', 'tsx', 'sample.mts'], { cwd: dir, env, timeout: 60_000 }, done),
        reject,
      );
  });
}

describe('the guides’ samples', () => {
  it('every shell and TypeScript block says whether it is tested (```sh test or ```sh no-test)', () => {
    expect(samples.filter((s) => !s.mark).map(where)).toEqual([]);
    expect(samples.filter((s) => s.mark === 'test' && !(SAMPLE_LANGUAGES as readonly string[]).includes(s.lang)).map(where)).toEqual([]);
  });

  it('a `→` comment goes on over the `#   ` lines right after it, joined without a space', () => {
    const sample: Sample = {
      file: 'x.md',
      line: 1,
      lang: 'sh',
      mark: 'test',
      code: 'echo \'{"a":1,"b":2}\'\n# → {"a":1,\n#   "b":2}\ntrue\n#   not a continuation',
    };
    const { expected } = instrument(sample);
    expect(expected).toEqual(['{"a":1,"b":2}']);
    expect(shows('{"a":1,"b":2}\n', expected[0]!)).toBe(true);
  });

  it.each(samples.filter((s) => s.mark === 'test').map((s) => [where(s), s] as const))(
    '%s runs and prints what it shows',
    async (_name, sample) => {
      const { code, expected } = instrument(sample);
      const ran = await run(sample, code);
      expect(ran.status, `exit ${ran.status}; stderr:\n${ran.stderr}\nstdout:\n${ran.stdout}`).toBe(0);
      const outputs = ran.stdout.split(`\n${MARK}\n`);
      expected.forEach((pattern, i) => expect(shows(outputs[i] ?? '', pattern), `printed:\n${outputs[i]}\nshown:\n${pattern}`).toBe(true));
    },
    90_000,
  );
});
