// The merchant dashboard in Chromium: signing in with a secret and with a restricted key, each
// section showing what the API made, a refund made in the page, and on every page: no key or card
// number in its HTML, nothing scrolling sideways at 360 px, no serious or critical axe-core
// violation, no CSP violation; screenshots at 360 and 1280 px in out/screenshots/dashboard/.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeInBrowser, useChromium } from '../support/browser.js';
import { CARDS, paidCardPayment } from '../support/checkout.js';
import { restrictedKey } from '../support/dashboard.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer({ rateLimitScale: 100 });
const browser = useChromium('dashboard', { viewport: { width: 1280, height: 900 } });
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = 'out/screenshots/dashboard';
mkdirSync(SHOTS, { recursive: true });

async function openPage(): Promise<{ page: Page; cspErrors: string[] }> {
  const page = await browser().newPage();
  const cspErrors: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
  });
  return { page, cspErrors };
}

async function signIn(page: Page, key: string): Promise<void> {
  await page.goto(`${t.url}/dashboard/sign-in`);
  await page.fill('#key', key);
  await Promise.all([page.waitForURL(`${t.url}/dashboard`), page.getByRole('button', { name: 'Sign in' }).click()]);
}

/** axe-core's serious and critical violations on the page (its source evaluated in the page: the CSP allows no injected script tag). */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const results = await page.evaluate(async () => (globalThis as any).axe.run(document, { resultTypes: ['violations'] }));
  return (results.violations as { id: string; impact: string; nodes: { target: string[] }[] }[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** The checks every dashboard page passes, at 1280 and 360 px, with a screenshot at each. */
async function checkPage(page: Page, name: string, secrets: string[]): Promise<void> {
  const html = await page.content();
  for (const secret of [...secrets, ...Object.values(CARDS)]) expect(html).not.toContain(secret);
  expect(await seriousViolations(page)).toEqual([]);
  for (const width of [1280, 360]) {
    await page.setViewportSize({ width, height: width === 360 ? 740 : 900 });
    if (width === 360) expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(360);
    await page.screenshot({ path: `${SHOTS}/${name}-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

describeInBrowser('the merchant dashboard in Chromium', () => {
  it('signs in with the secret key; Home, Payments and a payment show what the API made; a refund in the page shows in the API', async () => {
    const secret = t.merchantA.keys.test.secret;
    const paid = await paidCardPayment(t, { body: { amount: 42.5 } });
    await paidCardPayment(t, { cardNumber: CARDS.declined });
    const { page, cspErrors } = await openPage();
    await page.goto(`${t.url}/dashboard`);
    expect(page.url()).toContain('/dashboard/sign-in');
    await checkPage(page, 'sign-in', [secret]);
    await signIn(page, secret);

    await expect(page.locator('[data-field="mode"]').textContent()).resolves.toBe('Test mode');
    await expect(page.locator('#balances [data-field="pending"]').textContent()).resolves.toMatch(/\$/);
    await expect(page.locator('#charts desc').first().textContent()).resolves.toContain('paid over the last 30 days');
    await expect(page.locator('#activity').textContent()).resolves.toContain('payment.succeeded');
    await checkPage(page, 'home', [secret]);

    await page.getByRole('link', { name: 'Payments' }).click();
    await expect(page.locator('table').textContent()).resolves.toContain('$42.50');
    await checkPage(page, 'payments', [secret]);
    await page.selectOption('#f-status', 'failed');
    await Promise.all([page.waitForURL(/status=failed/), page.getByRole('button', { name: 'Filter' }).click()]);
    const failedRows = await page.locator('tbody tr').allTextContents();
    expect(failedRows.length).toBeGreaterThan(0);
    expect(failedRows.every((row) => row.includes('failed'))).toBe(true);

    await page.goto(`${t.url}/dashboard/payments/${paid.paymentId}`);
    await expect(page.locator('#timeline').textContent()).resolves.toContain('payment.succeeded');
    await checkPage(page, 'payment', [secret]);
    await page.fill('#refund-amount', '12.50');
    await Promise.all([page.waitForURL(/done=refunded/), page.getByRole('button', { name: 'Refund' }).click()]);
    await expect(page.locator('#notice').textContent()).resolves.toBe('The refund was made.');
    await expect(page.locator('#timeline').textContent()).resolves.toContain('payment.refunded');
    const events = await t.call('GET', '/v1/events?type=payment.refunded', { key: secret });
    expect(events.json.data.find((e: any) => e.data.object.id === paid.paymentId)?.data.object.refundAmount).toBe(12.5);
    expect(cspErrors).toEqual([]);

    await Promise.all([page.waitForURL(/sign-in/), page.getByRole('button', { name: 'Sign out' }).click()]);
    await page.goto(`${t.url}/dashboard/payments`);
    expect(page.url()).toContain('/dashboard/sign-in');
    await page.close();
  });

  it('a restricted key sees only its sections: with payment.read the payments, without it a refusal', async () => {
    const reader = await restrictedKey(t, t.merchantA, ['payment.read']);
    const { page } = await openPage();
    await signIn(page, reader);
    await expect(page.locator('nav.sections').textContent()).resolves.toContain('Payments');
    await page.getByRole('link', { name: 'Payments' }).click();
    expect(await page.locator('tbody tr').count()).toBeGreaterThan(0);
    expect(await page.content()).not.toContain(reader);
    await page.close();

    const eventsOnly = await restrictedKey(t, t.merchantA, ['event.read']);
    const other = await openPage();
    await signIn(other.page, eventsOnly);
    await expect(other.page.locator('nav.sections').textContent()).resolves.not.toContain('Payments');
    const refused = await other.page.goto(`${t.url}/dashboard/payments`);
    expect(refused?.status()).toBe(403);
    await expect(other.page.locator('#error-message').textContent()).resolves.toContain('payment.read');
    await checkPage(other.page, 'refused', [eventsOnly]);
    await other.page.close();
  });
});
