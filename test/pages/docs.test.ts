// The API references on the server: both bundled contracts as JSON, byte for byte, and `/docs`,
// whose pages load Redoc (served from node_modules) and nothing from elsewhere. Redoc rendering them
// in a browser: docs.browser.test.ts.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/server.js';

const t = useTestServer();

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
    expect(urlsIn(start)).toEqual(['./redoc.js', './this-server.js']);
    const redoc = await get('/docs/assets/redoc.js');
    expect(redoc.status).toBe(200);
    expect(redoc.headers.get('content-type')).toMatch(/javascript/);
    expect(await redoc.text()).toContain('export{RedocStandalone,hydrate,init}');
  });

  it.each(['checkout', 'commerce'])('/docs/%s/try loads Swagger UI from this server, under the same policy', async (name) => {
    const res = await get(`/docs/${name}/try`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const page = await res.text();
    expect(page).toContain(`data-spec-url="/openapi/${name}.json"`);
    const urls = urlsIn(page);
    expect(urls).toEqual([
      '/docs',
      `/docs/${name}`,
      '/docs/assets/swagger-ui/swagger-ui.css',
      '/docs/assets/swagger-ui/swagger-ui-bundle.js',
      '/docs/assets/try.js',
    ]);
    for (const url of urls.slice(2)) expect((await get(url)).status, url).toBe(200);
    expect(urlsIn(await (await get('/docs/assets/try.js')).text())).toEqual(['./this-server.js']);
    // Only the two files of Swagger UI the page loads are served, nothing else of its folder.
    for (const file of ['package.json', 'index.html', '__proto__', '..%2Fpackage.json'])
      expect((await get(`/docs/assets/swagger-ui/${file}`)).status, file).toBe(404);
  });
});
