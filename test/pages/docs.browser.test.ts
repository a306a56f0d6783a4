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

describeInBrowser('/docs: the references work against this server', () => {
  it("shows this server's URL, not the contract's template", async () => {
    const browser = await launchChromium('docs-server');
    try {
      const page = await browser.newPage();
      // Redoc shows an operation's URL under its endpoint: this server's, never the contract's `{baseUrl}` template.
      await page.goto(`${t.url}/docs/checkout#/plans/listplans`);
      await expect.poll(() => page.content(), { timeout: 30_000 }).toContain(`${t.url}/v1/plans`);
      const text = await page.content();
      expect(text).not.toContain('{baseUrl}');
    } finally {
      await browser.close();
    }
  }, 60_000);

  it('"try it" sends the request to this server with the key the reader gives, and shows the answer', async () => {
    const browser = await launchChromium('docs-try');
    try {
      const page = await browser.newPage();
      const sent: { url: string; authorization?: string }[] = [];
      page.on('request', (r) => {
        if (r.url().includes('/v1/plans')) sent.push({ url: r.url(), authorization: r.headers().authorization });
      });
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(e.message));
      // A deep link opens the operation (its tag too), "try it out" already on.
      await page.goto(`${t.url}/docs/checkout/try#/Plans/listPlans`);
      await page.getByRole('button', { name: 'Authorize' }).first().click();
      const dialog = page.locator('.modal-ux');
      await dialog.locator('input').first().fill(t.merchantA.keys.test.secret);
      await dialog.getByRole('button', { name: 'Apply credentials' }).first().click();
      await dialog.getByRole('button', { name: 'Close' }).first().click();
      const operation = page.locator('#operations-Plans-listPlans');
      await operation.getByRole('button', { name: 'Execute' }).click();
      await expect
        .poll(() => operation.locator('.live-responses-table tbody .response-col_status').first().textContent(), { timeout: 15_000 })
        .toContain('200');
      expect(sent[0]?.url).toMatch(new RegExp(`^${t.url}/v1/plans`));
      expect(sent[0]?.authorization).toBe(`Bearer ${t.merchantA.keys.test.secret}`);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
