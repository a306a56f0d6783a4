// The dashboard's billing and money sections in Chromium: each shows what the API made, and on
// every page no key or card number in its HTML, nothing scrolling sideways at 360 px, no serious
// or critical axe-core violation, no CSP violation; screenshots at 360 and 1280 px in
// out/screenshots/dashboard/. Cancelling a subscription in the page is seen by the API.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeInBrowser, useChromium } from '../support/browser.js';
import { CARDS } from '../support/checkout.js';
import { billingObjects } from '../support/dashboard-billing.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer({ rateLimitScale: 100 });
const browser = useChromium('dashboard-sections', { viewport: { width: 1280, height: 900 } });
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = 'out/screenshots/dashboard';
mkdirSync(SHOTS, { recursive: true });

async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const results = await page.evaluate(async () => (globalThis as any).axe.run(document, { resultTypes: ['violations'] }));
  return (results.violations as { id: string; impact: string; nodes: { target: string[] }[] }[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

async function checkPage(page: Page, name: string, secrets: string[]): Promise<void> {
  const html = await page.content();
  for (const secret of [...secrets, ...Object.values(CARDS)]) expect(html, name).not.toContain(secret);
  expect(await seriousViolations(page), name).toEqual([]);
  for (const width of [1280, 360]) {
    await page.setViewportSize({ width, height: width === 360 ? 740 : 900 });
    if (width === 360) expect(await page.evaluate(() => document.scrollingElement!.scrollWidth), name).toBeLessThanOrEqual(360);
    await page.screenshot({ path: `${SHOTS}/${name}-${width}.png`, fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

describeInBrowser('the billing and money sections in Chromium', () => {
  it('each section and object page shows what the API made and passes the page checks; a cancel in the page is seen by the API', async () => {
    const m = await t.newMerchant('Roastery');
    const o = await billingObjects(t, m);
    const secret = m.keys.test.secret;
    const page = await browser().newPage();
    const cspErrors: string[] = [];
    page.on('console', (msg) => {
      if (/Content Security Policy/i.test(msg.text())) cspErrors.push(msg.text());
    });
    await page.goto(`${t.url}/dashboard/sign-in`);
    await page.fill('#key', secret);
    await Promise.all([page.waitForURL(`${t.url}/dashboard`), page.getByRole('button', { name: 'Sign in' }).click()]);

    const pages: [string, string, string][] = [
      ['subscriptions', '/dashboard/subscriptions', 'Beans monthly'],
      ['subscription', `/dashboard/subscriptions/${o.subscriptionId}`, 'Next renewal'],
      ['invoices', '/dashboard/invoices', '$361.50'],
      ['invoice', `/dashboard/invoices/${o.invoiceId}`, 'Consulting'],
      ['payment-links', '/dashboard/payment-links', 'Beans'],
      ['payment-link', `/dashboard/payment-links/${o.linkId}`, 'Collected'],
      ['products', '/dashboard/products', 'Roastery club'],
      ['product', `/dashboard/products/${o.productId}`, 'Roastery club'],
      ['plans', '/dashboard/plans', 'Beans monthly'],
      ['plan', `/dashboard/plans/${o.planId}`, 'Archive the plan'],
      ['payouts', '/dashboard/payouts', 'Payouts per day'],
      ['transfers', '/dashboard/transfers', 'CBDCTransfer'],
      ['transfer', `/dashboard/transfers/${o.transferId}`, 'CBDCTransfer'],
      ['disputes', '/dashboard/disputes', '$30.00'],
      ['dispute', `/dashboard/disputes/${o.disputeId}`, 'dispute.opened'],
    ];
    for (const [name, path, text] of pages) {
      const answer = await page.goto(`${t.url}${path}`);
      expect(answer?.status(), path).toBe(200);
      await expect(page.locator('main').textContent(), path).resolves.toContain(text);
      await checkPage(page, name, [secret]);
    }
    await page.goto(`${t.url}/dashboard/payment-links/${o.linkId}`);
    expect(await page.locator('img.qr').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    await page.goto(`${t.url}/dashboard/payouts`);
    await page.locator('tbody a').first().click();
    await expect(page.locator('h1').textContent()).resolves.toContain('Payout');
    await checkPage(page, 'payout', [secret]);

    await page.goto(`${t.url}/dashboard/subscriptions/${o.subscriptionId}`);
    await Promise.all([page.waitForURL(/done=canceled/), page.getByRole('button', { name: 'Cancel now' }).click()]);
    await expect(page.locator('#notice').textContent()).resolves.toBe('The subscription was canceled.');
    const sub = await t.call('GET', `/v1/subscriptions/${o.subscriptionId}`, { key: secret });
    expect(sub.json.data.status).toBe('canceled');
    expect(cspErrors).toEqual([]);
    await page.close();
  }, 240_000);
});
