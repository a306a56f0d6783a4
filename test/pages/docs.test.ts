// The API references on the server: both bundled contracts as JSON, byte for byte, and `/docs`,
// where Redoc (served from node_modules) renders them without loading anything from elsewhere.
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS, describeInBrowser } from '../support/browser.js';
import { startTestServer, type TestServer } from '../support/server.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t?.close();
});

const get = (p: string) => fetch(`${t.url}${p}`);
/** Every URL a page names in a src or href attribute, or in its scripts' imports. */
const urlsIn = (text: string) => [...text.matchAll(/(?:src|href)="([^"]+)"|from '([^']+)'/g)].map((m) => m[1] ?? m[2]!);

describe('the contracts as JSON', () => {
  it.each(['checkout', 'commerce'])('GET /openapi/%s.json is generated/%s.openapi.json, byte for byte', async (name) => {
    const res = await get(`/openapi/${name}.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.text()).toBe(await readFile(new URL(`../../generated/${name}.openapi.json`, import.meta.url), 'utf8'));
  });
});

describe('/docs', () => {
  it('names both interfaces and links their references and documents, all on this server', async () => {
    const res = await get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await res.text();
    expect(page).toMatch(/Checkout &(amp|#38); Billing API/);
    expect(page).toContain('Commerce API');
    for (const url of urlsIn(page)) expect(url, url).toMatch(/^\/(docs|openapi)\//);
  });

  it.each(['checkout', 'commerce'])('/docs/%s loads only scripts of this server, and its policy allows no other origin', async (name) => {
    const res = await get(`/docs/${name}`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/https?:/);
    const page = await res.text();
    expect(page).toContain(`data-spec-url="/openapi/${name}.json"`);
    expect(urlsIn(page).every((url) => url.startsWith('/'))).toBe(true);
    const start = await (await get('/docs/assets/start.js')).text();
    expect(urlsIn(start)).toEqual(['./redoc.js']);
    const redoc = await get('/docs/assets/redoc.js');
    expect(redoc.status).toBe(200);
    expect(redoc.headers.get('content-type')).toMatch(/javascript/);
    expect(await redoc.text()).toContain('export{RedocStandalone,hydrate,init}');
  });
});

describeInBrowser('/docs in a browser', () => {
  // Redoc's sidebar shows Redocly's logo from its CDN; the page's policy blocks it in the browser
  // (Redoc then hides the image), so nothing leaves the machine.
  it.each(['checkout', 'commerce'])(
    'renders the %s reference; the policy blocks anything of another origin before it is sent',
    async (name) => {
      const userDataDir = await mkdtemp(path.join(tmpdir(), 'till-docs-chromium-'));
      const browser = await chromium.launchPersistentContext(userDataDir, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
      try {
        const page = await browser.newPage();
        const requested: string[] = [];
        const problems: string[] = [];
        const blocked = new Set<string>();
        page.on('request', (r) => requested.push(r.url()));
        // Chromium names the reason `csp` (net::ERR_BLOCKED_BY_CSP in older releases).
        page.on('requestfailed', (r) => /^csp$|BLOCKED_BY_CSP/.test(r.failure()?.errorText ?? '') && blocked.add(r.url()));
        page.on('pageerror', (e) => problems.push(e.message));
        await page.goto(`${t.url}/docs/${name}`);
        const heading = name === 'checkout' ? 'Till Checkout & Billing API' : 'Till Commerce API';
        await page.getByRole('heading', { name: heading, exact: false }).first().waitFor({ timeout: 30_000 });
        await page.waitForTimeout(500);
        const elsewhere = requested.filter((url) => !url.startsWith(t.url) && !url.startsWith('data:') && !url.startsWith('blob:'));
        expect(elsewhere.filter((url) => !blocked.has(url))).toEqual([]);
        expect(requested).toContain(`${t.url}/openapi/${name}.json`);
        expect(problems).toEqual([]);
      } finally {
        await browser.close();
        await rm(userDataDir, { recursive: true, force: true });
      }
    },
    60_000,
  );
});
