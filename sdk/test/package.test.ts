// The published package as a merchant gets it: `npm pack` (which builds), installed into a
// fresh folder outside the repository, used from Node through both entries, and bundled for a
// browser with esbuild: no `node:` import, and the gzipped size of each entry is measured.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';

const run = promisify(execFile);
const sdkDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BROWSER_BUDGET_BYTES = 10 * 1024;

// npm passes its settings to scripts as npm_* variables (the workspace, the prefix, ...): a
// child npm must not inherit the ones of the `npm test` that runs this file.
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
const npm = (args: string[], cwd: string) => run('npm', args, { cwd, env, maxBuffer: 16 * 1024 * 1024 });

let work = '';
let app = '';

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'till-sdk-pack-'));
  app = path.join(work, 'app');
  const { stdout } = await npm(['pack', '--pack-destination', work, '--silent'], sdkDir);
  const tarball = path.join(work, stdout.trim().split('\n').pop()!);
  expect(existsSync(tarball)).toBe(true);
  await run('mkdir', ['-p', app]);
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'till-sdk-consumer', private: true, type: 'module' }));
  // openapi-fetch comes from the npm cache when it is there (CI's `npm ci` fills it).
  await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball], app);
}, 120_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

it('ships compiled JavaScript and declarations for both entries, without side effects', () => {
  const pkgDir = path.join(app, 'node_modules', '@till', 'sdk');
  const manifest = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  expect(manifest.sideEffects).toBe(false);
  for (const entry of ['.', './webhooks']) {
    const target = manifest.exports[entry];
    expect(existsSync(path.join(pkgDir, target.default))).toBe(true);
    expect(existsSync(path.join(pkgDir, target.types))).toBe(true);
  }
  expect(existsSync(path.join(pkgDir, 'README.md'))).toBe(true);
  expect(existsSync(path.join(pkgDir, 'dist', 'generated', 'checkout.d.ts'))).toBe(true);
  expect(existsSync(path.join(pkgDir, 'src'))).toBe(false);
});

it('works from Node: the client, list(), the connection error, and the ./webhooks entry', async () => {
  writeFileSync(
    path.join(app, 'use.mjs'),
    `
import { createCheckoutClient, TillConnectionError } from '@till/sdk';
import { signTestWebhook, verifyWebhook } from '@till/sdk/webhooks';

const plans = [{ id: 3 }, { id: 2 }, { id: 1 }];
const fetch = async (request) => {
  const after = new URL(request.url).searchParams.get('startingAfter');
  const start = after ? plans.findIndex((p) => String(p.id) === after) + 1 : 0;
  const data = plans.slice(start, start + 2);
  const body = { success: true, errorCode: null, errorMessage: null, data: { object: 'list', data, hasMore: start + 2 < plans.length } };
  return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
};
const till = createCheckoutClient({ baseUrl: 'http://till.invalid', secretKey: 'sk_test_abc', fetch });
const ids = [];
for await (const plan of till.list('/v1/plans', { params: { query: { limit: 2 } } })) ids.push(plan.id);

const offline = createCheckoutClient({ baseUrl: 'http://127.0.0.1:1', secretKey: 'sk_test_abc', maxRetries: 0 });
const error = await offline.GET('/v1/plans').catch((e) => e);

const event = { id: 'evt_1', object: 'event', type: 'webhook.test', created: new Date().toISOString(), data: { object: {} } };
const signed = signTestWebhook(event, 'whsec_test');
const verified = verifyWebhook(signed.body, signed.headers, 'whsec_test');
console.log(JSON.stringify({ ids, connectionError: error instanceof TillConnectionError, code: error.code, verified: verified.id }));
`,
  );
  const { stdout } = await run(process.execPath, ['use.mjs'], { cwd: app, env });
  expect(JSON.parse(stdout)).toEqual({ ids: [3, 2, 1], connectionError: true, code: 'connection_failed', verified: 'evt_1' });
});

it('bundles the main entry for a browser with no node: import, under 10 KB gzipped; ./webhooks is Node only', async () => {
  writeFileSync(
    path.join(app, 'browser.js'),
    `import { createCheckoutClient, createCommerceClient, TillError, TillConnectionError } from '@till/sdk';
window.till = { createCheckoutClient, createCommerceClient, TillError, TillConnectionError };`,
  );
  const browser = await build({
    entryPoints: ['browser.js'],
    absWorkingDir: app,
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const inputs = Object.keys(browser.metafile.inputs);
  expect(inputs.some((i) => i.includes('@till/sdk/dist/sdk/src/retry.js'))).toBe(true);
  expect(inputs.filter((i) => i.startsWith('node:') || i.includes('webhooks'))).toEqual([]);
  const code = browser.outputFiles[0]!.text;
  expect(code).not.toMatch(/["']node:/);
  const browserGzip = gzipSync(code).length;
  expect(browserGzip).toBeLessThan(BROWSER_BUDGET_BYTES);

  // The webhooks entry needs node:crypto: a browser bundle of it fails, a Node bundle is fine.
  writeFileSync(path.join(app, 'hooks.js'), `export { verifyWebhook, signTestWebhook } from '@till/sdk/webhooks';`);
  await expect(build({ entryPoints: ['hooks.js'], absWorkingDir: app, bundle: true, platform: 'browser', write: false, logLevel: 'silent' })).rejects.toThrow(
    /node:crypto/,
  );
  const node = await build({ entryPoints: ['hooks.js'], absWorkingDir: app, bundle: true, minify: true, format: 'esm', platform: 'node', write: false });
  const webhooksGzip = gzipSync(node.outputFiles[0]!.text).length;

  console.log(
    `@till/sdk gzipped, minified bundles: main entry (with openapi-fetch) ${(browserGzip / 1024).toFixed(1)} KB; ./webhooks ${(webhooksGzip / 1024).toFixed(1)} KB`,
  );
});
