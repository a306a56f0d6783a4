// The merchant dashboard in Chromium: signing in with a secret and with a restricted key, each
// section showing what the API made, a refund made in the page, and on every page: no key or card
// number in its HTML, nothing scrolling sideways at 360 px, no serious or critical axe-core
// violation, no CSP violation (test/support/dashboard-browser.ts); screenshots at 360 and 1280 px in out/screenshots/dashboard/.
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeInBrowser, useChromium } from '../support/browser.js';
import { CARDS, paidCardPayment } from '../support/checkout.js';
import { restrictedKey } from '../support/dashboard.js';
import { checkDashboardPage as checkPage, openDashboardPage, signInPage } from '../support/dashboard-browser.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer({ rateLimitScale: 100 });
const browser = useChromium('dashboard', { viewport: { width: 1280, height: 900 } });
const openPage = () => openDashboardPage(browser());
const signIn = (page: Page, key: string) => signInPage(page, t.url, key);

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

  it('Checkout sessions and Customers show what the API made, with their pages', async () => {
    const secret = t.merchantA.keys.test.secret;
    const made = await t.call('POST', '/v1/customers', { key: secret, body: { email: 'lena@example.com', name: 'Lena Dashboard' } });
    expect(made.status).toBe(201);
    const paid = await paidCardPayment(t, { body: { amount: 61, customerEmail: 'lena@example.com' } });
    const { page, cspErrors } = await openPage();
    await signIn(page, secret);

    await page.getByRole('link', { name: 'Checkout sessions' }).click();
    await expect(page.locator('table').textContent()).resolves.toContain(paid.sessionId);
    await checkPage(page, 'checkout-sessions', [secret]);
    await page.fill('#f-q', 'lena@example.com');
    await Promise.all([page.waitForURL(/q=lena/), page.getByRole('button', { name: 'Filter' }).click()]);
    expect(await page.locator('tbody tr').count()).toBe(1);
    await page.getByRole('link', { name: '$61.00' }).click();
    await expect(page.locator('#details').textContent()).resolves.toContain('lena@example.com');
    await expect(page.locator('#timeline').textContent()).resolves.toContain('checkout.session.completed');
    await checkPage(page, 'checkout-session', [secret]);

    await page.getByRole('link', { name: 'Customers' }).click();
    await page.getByRole('link', { name: 'Lena Dashboard' }).click();
    await expect(page.locator('#details').textContent()).resolves.toContain('lena@example.com');
    await checkPage(page, 'customer', [secret]);
    await page.getByRole('link', { name: 'Customers' }).first().click();
    await checkPage(page, 'customers', [secret]);
    expect(cspErrors).toEqual([]);
    await page.close();
  });
});
