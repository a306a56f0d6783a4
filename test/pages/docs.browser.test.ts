// `/docs` in a real browser (Debian's Chromium driven by playwright-core): Redoc, served from
// node_modules, renders both references, and the pages' policy keeps anything of another origin
// from being fetched.
import type { Request } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeInBrowser, launchChromium } from '../support/browser.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();

describeInBrowser('/docs in a browser', () => {
  // Redoc's sidebar shows Redocly's logo from its CDN; the page's policy blocks it in the browser
  // (Redoc then hides the image), so nothing leaves the machine.
  it.each(['checkout', 'commerce'])(
    'renders the %s reference; the policy blocks anything of another origin before it is sent',
    async (name) => {
      // A browser of its own for each reference: nothing cached from the other.
      const browser = await launchChromium('docs');
      try {
        const page = await browser.newPage();
        const requested: string[] = [];
        const problems: string[] = [];
        const blocked = new Set<string>();
        /** Requests neither answered nor failed yet. */
        const pending = new Set<Request>();
        page.on('request', (r) => {
          requested.push(r.url());
          pending.add(r);
        });
        page.on('requestfinished', (r) => pending.delete(r));
        page.on('requestfailed', (r) => {
          pending.delete(r);
          // Chromium names the reason `csp` (net::ERR_BLOCKED_BY_CSP in older releases).
          if (/^csp$|BLOCKED_BY_CSP/.test(r.failure()?.errorText ?? '')) blocked.add(r.url());
        });
        page.on('pageerror', (e) => problems.push(e.message));
        await page.goto(`${t.url}/docs/${name}`);
        const heading = name === 'checkout' ? 'Till Checkout & Billing API' : 'Till Commerce API';
        await page.getByRole('heading', { name: heading, exact: false }).first().waitFor({ timeout: 30_000 });
        // Rendered: every image has loaded or failed (the logo the policy blocks too), and every request has its outcome.
        await page.waitForFunction(() => [...document.images].every((image) => image.complete));
        await expect.poll(() => pending.size).toBe(0);
        const elsewhere = requested.filter((url) => !url.startsWith(t.url) && !url.startsWith('data:') && !url.startsWith('blob:'));
        expect(elsewhere.filter((url) => !blocked.has(url))).toEqual([]);
        expect(requested).toContain(`${t.url}/openapi/${name}.json`);
        expect(problems).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});
