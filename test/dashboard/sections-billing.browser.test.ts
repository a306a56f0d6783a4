// The dashboard's billing and money sections in Chromium: each shows what the API made, and on
// every page no key or card number in its HTML, nothing scrolling sideways at 360 px, no serious
// or critical axe-core violation, no CSP violation; screenshots at 360 and 1280 px in
// out/screenshots/dashboard/. Cancelling a subscription in the page is seen by the API.
import { expect, it } from 'vitest';
import { describeInBrowser, useChromium } from '../support/browser.js';
import { billingObjects } from '../support/dashboard-billing.js';
import { checkDashboardPage as checkPage, openDashboardPage, signInPage } from '../support/dashboard-browser.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer({ rateLimitScale: 100 });
const browser = useChromium('dashboard-sections', { viewport: { width: 1280, height: 900 } });

describeInBrowser('the billing and money sections in Chromium', () => {
  it('each section and object page shows what the API made and passes the page checks; a cancel in the page is seen by the API', async () => {
    const m = await t.newMerchant('Roastery');
    const o = await billingObjects(t, m);
    const secret = m.keys.test.secret;
    const { page, cspErrors } = await openDashboardPage(browser());
    await signInPage(page, t.url, secret);

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
