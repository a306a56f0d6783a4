// The API keys and audit log sections in Chromium: roles and keys made through the API show; a key
// made from the page is shown once (on its answer page only) and works on the API; revoked from
// the page, the API refuses it; the audit log shows these changes by the dashboard session. Every
// page passes checkDashboardPage (no key or card number, 360 px, axe-core, screenshots).
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeInBrowser, useChromium } from '../support/browser.js';
import { checkDashboardPage, openDashboardPage, signInPage } from '../support/dashboard-browser.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();
const browser = useChromium('dashboard-keys', { viewport: { width: 1280, height: 900 } });

async function clickAndWait(page: Page, url: RegExp, button: string): Promise<void> {
  await Promise.all([page.waitForURL(url), page.getByRole('button', { name: button }).click()]);
}

describeInBrowser('the API keys and audit log sections in Chromium', () => {
  it('create a role and a key from the page (shown once), use it on the API, revoke it, see it all in the audit log', async () => {
    const m = await t.newMerchant('Dash keys browser');
    const secret = m.keys.test.secret;
    const role = await t.call('POST', '/v1/role', { apiKey: secret, body: { name: 'Reporting', scopes: ['payment.read'] } });
    const apiKey = await t.call('POST', `/v1/role/${role.json.id}/keys`, { apiKey: secret, body: { description: 'from the API' } });
    const secrets = [secret, apiKey.json.key as string];
    const { page, cspErrors } = await openDashboardPage(browser());
    await signInPage(page, t.url, secret);

    await page.getByRole('link', { name: 'API keys' }).click();
    await expect(page.locator('table').first().textContent()).resolves.toContain('Reporting');
    await checkDashboardPage(page, 'api-keys', secrets);
    await page.getByRole('link', { name: 'Reporting' }).click();
    await expect(page.locator('#keys').textContent()).resolves.toContain(apiKey.json.keyPrefix as string);
    await checkDashboardPage(page, 'api-keys-role', secrets);

    await page.getByRole('link', { name: 'API keys' }).first().click();
    await page.fill('#f-name', 'Page role');
    await page.getByRole('checkbox', { name: /role\.read/ }).check();
    await clickAndWait(page, /done=role_created/, 'Create the role');
    await page.getByRole('link', { name: 'Page role' }).click();
    const rolePage = page.url();
    await page.fill('#f-description', 'made in the page');
    await Promise.all([page.waitForURL(/\/keys\/new$/), page.getByRole('button', { name: 'Create a test key' }).click()]);
    const key = (await page.locator('#new-key').textContent())!.trim();
    expect(key).toMatch(/^rk_test_/);
    expect((await page.content()).split(key)).toHaveLength(2);
    await checkDashboardPage(page, 'api-keys-new-key', secrets);
    // A refresh (post/redirect/get: a GET) shows the key no more and makes no other.
    expect((await page.reload())?.status()).toBe(410);
    expect(await page.content()).not.toContain(key);
    expect((await t.call('GET', '/v1/role', { apiKey: key })).status).toBe(200);
    secrets.push(key);

    await page.goto(rolePage);
    await checkDashboardPage(page, 'api-keys-role-with-key', secrets);
    await clickAndWait(page, /done=revoked/, 'Revoke');
    await expect(page.locator('#keys').textContent()).resolves.toContain('revoked');
    expect((await t.call('GET', '/v1/role', { apiKey: key })).status).toBe(401);

    await page.getByRole('link', { name: 'Audit log' }).click();
    const rows = (await page.locator('tbody tr').allTextContents()).join('\n');
    for (const action of ['role.created', 'restricted_key.created', 'restricted_key.revoked']) expect(rows).toContain(action);
    expect(rows).toMatch(/Dashboard session ds_[0-9a-f]{16}/);
    expect(rows).toContain(`API key ${secret.slice(0, 12)}`);
    await checkDashboardPage(page, 'audit-log', secrets);
    await page.fill('#f-action', 'restricted_key.*');
    await page.selectOption('#f-actorType', 'dashboard');
    await Promise.all([page.waitForURL(/actorType=dashboard/), page.getByRole('button', { name: 'Filter' }).click()]);
    const filtered = (await page.locator('tbody tr').allTextContents()).join('\n');
    expect(filtered).toContain('restricted_key.revoked');
    expect(filtered).not.toContain('role.created');
    expect(filtered).not.toContain('API key');
    await checkDashboardPage(page, 'audit-log-filtered', secrets);
    expect(cspErrors).toEqual([]);
  });
});
