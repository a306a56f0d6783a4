// The developer sections of the dashboard in Chromium (webhooks, events, test clock, request log): each shows what the API made,
// an action in the page shows in the API, and every page passes checkDashboardPage (no key or card
// number, 360 px, axe-core, screenshots in out/screenshots/dashboard/).
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeInBrowser, useChromium } from '../support/browser.js';
import { checkDashboardPage as checkPage, openDashboardPage, signInPage } from '../support/dashboard-browser.js';
import { useWebhookServer } from '../support/webhooks.js';

const w = useWebhookServer();
const browser = useChromium('dashboard-developers', { viewport: { width: 1280, height: 900 } });
const signIn = (page: Page, key: string) => signInPage(page, w.t.url, key);

describeInBrowser('the developer sections of the dashboard in Chromium', () => {
  it('webhooks: endpoints, a test event sent from the page fails, its re-send from the page succeeds, disable shows in the API', async () => {
    const m = await w.t.newMerchant('Dash ops browser');
    const secret = m.keys.test.secret;
    const receiver = await w.receiver((n) => (n === 0 ? 503 : 200));
    const created = await w.configure(m, { sandboxUrl: receiver.url, description: 'Order system' });
    expect(created.status).toBe(201);
    const id = created.json.id as number;
    const secrets = [secret, created.json.sandboxSecret as string, created.json.liveSecret as string];
    const { page, cspErrors } = await openDashboardPage(browser());
    await signIn(page, secret);

    await page.getByRole('link', { name: 'Webhooks' }).click();
    await expect(page.locator('table').textContent()).resolves.toContain('Order system');
    await checkPage(page, 'webhooks', secrets);

    await page.getByRole('link', { name: 'Order system' }).click();
    await Promise.all([page.waitForURL(/done=tested/), page.getByRole('button', { name: 'Send a test event' }).click()]);
    await expect(page.locator('#deliveries table').textContent()).resolves.toContain('webhook.test');
    await expect(page.locator('#deliveries table').textContent()).resolves.toContain('HTTP 503');
    await checkPage(page, 'webhook-endpoint', secrets);

    await page.getByRole('link', { name: 'webhook.test' }).click();
    await expect(page.locator('#attempts').textContent()).resolves.toContain('503');
    await expect(page.locator('#attempts').textContent()).resolves.toMatch(/x-webhook-signature/i);
    await checkPage(page, 'webhook-delivery', secrets);
    await Promise.all([page.waitForURL(/done=resent/), page.getByRole('button', { name: 'Re-send now' }).click()]);
    await expect(page.locator('#notice').textContent()).resolves.toBe('The delivery was re-sent.');
    await expect(page.locator('#details').textContent()).resolves.toContain('succeeded');
    await expect(page.locator('#attempts').textContent()).resolves.toContain('Attempt 2');
    expect(receiver.received).toHaveLength(2);
    expect((await w.deliveries(m, id))[0].status).toBe('succeeded');

    await page.getByRole('link', { name: `Endpoint ${id}` }).click();
    await Promise.all([page.waitForURL(/done=disabled/), page.getByRole('button', { name: 'Disable the endpoint' }).click()]);
    expect((await w.t.call('GET', `/v1/WebhookConfiguration/${id}`, { key: secret })).json.enabled).toBe(false);

    await page.getByRole('link', { name: 'Events' }).click();
    await page.selectOption('#f-type', 'webhook.test');
    await Promise.all([page.waitForURL(/type=webhook.test/), page.getByRole('button', { name: 'Filter' }).click()]);
    const rows = await page.locator('tbody tr').allTextContents();
    expect(rows.length).toBe(1);
    await checkPage(page, 'events', secrets);
    await page.getByRole('link', { name: 'webhook.test' }).click();
    const delivered = JSON.parse((await page.locator('#event-json').textContent())!);
    expect(delivered).toMatchObject({ id: receiver.received[0]!.json.id, type: 'webhook.test' });
    expect(delivered).toEqual(receiver.received[0]!.json);
    await checkPage(page, 'event', secrets);

    await page.getByRole('link', { name: 'Test clock' }).click();
    await checkPage(page, 'test-clock', secrets);
    await page.fill('#f-amount', '2');
    await Promise.all([page.waitForURL(/done=advanced/), page.getByRole('button', { name: 'Advance the clock' }).click()]);
    await expect(page.locator('#notice').textContent()).resolves.toContain('advanced');
    await expect(page.locator('#changes').textContent()).resolves.toContain('item(s) of due work ran');
    await checkPage(page, 'test-clock-advanced', secrets);

    await page.getByRole('link', { name: 'Request log' }).click();
    await page.fill('#f-operation', 'createWebhookConfiguration');
    await Promise.all([page.waitForURL(/operation=createWebhookConfiguration/), page.getByRole('button', { name: 'Filter' }).click()]);
    await expect(page.locator('table').textContent()).resolves.toContain('/v1/WebhookConfiguration');
    await checkPage(page, 'request-log', secrets);
    await page.locator('tbody a').first().click();
    await expect(page.locator('#request-body').textContent()).resolves.toContain('Order system');
    await checkPage(page, 'request', secrets);
    expect(cspErrors).toEqual([]);
    await page.close();
  });
});
