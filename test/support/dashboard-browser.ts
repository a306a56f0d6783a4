// The dashboard's page checks in Chromium, for every section's browser test: sign in through the
// form, then on each page no key or card number in its HTML, no serious or critical axe-core
// violation, nothing scrolling sideways at 360 px, and a screenshot at 360 and 1280 px in
// out/screenshots/dashboard/.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { CARDS } from './checkout.js';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
export const SCREENSHOTS = 'out/screenshots/dashboard';

/** A new page of the context that records Content-Security-Policy violations. */
export async function openDashboardPage(context: BrowserContext): Promise<{ page: Page; cspErrors: string[] }> {
  const page = await context.newPage();
  const cspErrors: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
  });
  return { page, cspErrors };
}

/** Signs in through the form with `key`; lands on the home page. */
export async function signInPage(page: Page, baseUrl: string, key: string): Promise<void> {
  await page.goto(`${baseUrl}/dashboard/sign-in`);
  await page.fill('#key', key);
  await Promise.all([page.waitForURL(`${baseUrl}/dashboard`), page.getByRole('button', { name: 'Sign in' }).click()]);
}

/** axe-core's serious and critical violations on the page (its source evaluated in the page: the CSP allows no injected script tag). */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const results = await page.evaluate(async () => (globalThis as any).axe.run(document, { resultTypes: ['violations'] }));
  return (results.violations as { id: string; impact: string; nodes: { target: string[] }[] }[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/**
 * The checks every dashboard page passes (`secrets`: the keys used, which must not show; the
 * sandbox's card numbers never do), with `name`-1280.png and `name`-360.png screenshots.
 */
export async function checkDashboardPage(page: Page, name: string, secrets: string[]): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const html = await page.content();
  for (const secret of [...secrets, ...Object.values(CARDS)]) expect(html).not.toContain(secret);
  expect(await seriousViolations(page)).toEqual([]);
  for (const width of [1280, 360]) {
    await page.setViewportSize({ width, height: width === 360 ? 740 : 900 });
    if (width === 360) expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(360);
    await page.screenshot({ path: `${SCREENSHOTS}/${name}-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}
