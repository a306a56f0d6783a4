// The customer portal in a real browser (Debian's Chromium driven by playwright-core): the customer
// opens the URL of a portal session, replaces the card (the 3-D Secure card through the sandbox
// issuer's page), switches plan after seeing the proration, and cancels.
import { type Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeInBrowser, useChromium } from '../support/browser.js';
import { CARD_YEAR, newCustomer, newPlan, newPortal, newSubscription } from '../support/portal.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer({ publicUrlIsServer: true, rateLimitScale: 100 });
const browser = useChromium('portal', { viewport: { width: 375, height: 740 } });

/** A page that records Content-Security-Policy violations. */
async function openPage(): Promise<{ page: Page; cspErrors: string[] }> {
  const page = await browser().newPage();
  const cspErrors: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
  });
  return { page, cspErrors };
}

async function fillCard(page: Page, cardNumber: string) {
  const form = page.locator('#card-form');
  if (!(await form.isVisible())) await page.locator('#card summary').click();
  await page.fill('#cardNumber', cardNumber);
  await page.fill('#expiryMonth', '12');
  await page.fill('#expiryYear', String(CARD_YEAR));
  await page.fill('#cvc', '123');
  await page.fill('#cardName', 'Pat Portal');
  await Promise.all([page.waitForLoadState('load'), form.getByRole('button', { name: 'Save card' }).click()]);
}

describeInBrowser('the customer portal in Chromium', () => {
  it("replaces the card on file, then replaces it with the 3-D Secure card after completing the issuer's page; fits a phone screen with no CSP violation", async () => {
    const plan = await newPlan(t, t.merchantA);
    const customer = await newCustomer(t, t.merchantA);
    const subscription = await newSubscription(t, t.merchantA, plan.id, customer.id);
    const { session } = await newPortal(t, t.merchantA, customer.id, { returnUrl: 'https://shop.example.com/account' });
    const { page, cspErrors } = await openPage();
    await page.goto(session.url);
    await expect(page.locator('[data-field="card"]').textContent()).resolves.toContain('4444');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await expect(page.locator('#return-link').getAttribute('href')).resolves.toBe('https://shop.example.com/account');

    await fillCard(page, '4242424242424242');
    await expect(page.locator('#status').textContent()).resolves.toContain('Your card is saved.');
    await expect(page.locator('[data-field="card"]').textContent()).resolves.toContain('Visa •••• 4242');

    await fillCard(page, '4000000000003220');
    expect(page.url()).toMatch(/\/card\/3ds\/3ds_/);
    await expect(page.locator('[data-field="card"]').textContent()).resolves.toContain('3220');
    await Promise.all([page.waitForURL(/done=card-saved/), page.getByRole('button', { name: 'Complete authentication' }).click()]);
    await expect(page.locator('[data-field="card"]').textContent()).resolves.toContain('Visa •••• 3220');
    const row = await t.database.db
      .selectFrom('subscriptions')
      .innerJoin('payment_methods', 'payment_methods.id', 'subscriptions.payment_method_id')
      .select('payment_methods.last4')
      .where('subscriptions.id', '=', subscription.id)
      .executeTakeFirstOrThrow();
    expect(row.last4).toBe('3220');
    expect(cspErrors).toEqual([]);
    await page.close();
  });

  it('a 3-D Secure card the customer fails to authenticate is not kept', async () => {
    const customer = await newCustomer(t, t.merchantA);
    const { session } = await newPortal(t, t.merchantA, customer.id);
    const { page } = await openPage();
    await page.goto(session.url);
    await expect(page.locator('[data-field="card"]').textContent()).resolves.toContain('No card on file.');
    await fillCard(page, '4000000000003220');
    await Promise.all([page.waitForURL(/done=card-not-authenticated/), page.getByRole('button', { name: 'Fail authentication' }).click()]);
    await expect(page.locator('#alert').textContent()).resolves.toContain('was not saved');
    await expect(page.locator('[data-field="card"]').textContent()).resolves.toContain('No card on file.');
    await page.close();
  });

  it('switches plan after seeing the proration, then cancels at period end and then at once', async () => {
    const plan = await newPlan(t, t.merchantA, { amount: 20, name: 'Basic' });
    const bigger = await newPlan(t, t.merchantA, { amount: 50, name: 'Premium' });
    const customer = await newCustomer(t, t.merchantA);
    const subscription = await newSubscription(t, t.merchantA, plan.id, customer.id);
    const { session } = await newPortal(t, t.merchantA, customer.id);
    const { page, cspErrors } = await openPage();
    await page.goto(session.url);
    const panel = page.locator(`[data-subscription="${subscription.id}"]`);
    await expect(panel.locator('[data-field="plan"]').textContent()).resolves.toBe('Basic');

    await Promise.all([page.waitForLoadState('load'), panel.locator('[data-action="change-plan"]').click()]);
    await Promise.all([page.waitForLoadState('load'), page.locator(`[data-plan="${bigger.id}"] button`).click()]);
    await expect(page.locator('h1').textContent()).resolves.toBe('Confirm your new plan');
    await expect(page.locator('[data-field="credit"]').textContent()).resolves.toMatch(/^−\$\d+\.\d\d$/);
    await expect(page.locator('[data-field="net"]').textContent()).resolves.toMatch(/^\$\d+\.\d\d$/);
    expect((await t.database.db.selectFrom('subscriptions').select('plan_id').where('id', '=', subscription.id).executeTakeFirstOrThrow()).plan_id).toBe(
      plan.id,
    );
    await Promise.all([page.waitForURL(/done=plan-changed/), page.getByRole('button', { name: 'Confirm Premium' }).click()]);
    await expect(panel.locator('[data-field="plan"]').textContent()).resolves.toBe('Premium');

    await Promise.all([page.waitForURL(/done=cancel-scheduled/), panel.locator('[data-action="cancel-at-period-end"]').click()]);
    await expect(panel.locator('[data-notice="cancel-at-period-end"]').isVisible()).resolves.toBe(true);
    await Promise.all([page.waitForURL(/done=canceled/), panel.locator('[data-action="cancel-now"]').click()]);
    await expect(panel.locator('[data-field="status"]').textContent()).resolves.toBe('Canceled');
    await expect(panel.locator('form').count()).resolves.toBe(0);
    expect(cspErrors).toEqual([]);
    if (process.env.TILL_PORTAL_SCREENSHOT) await page.screenshot({ path: process.env.TILL_PORTAL_SCREENSHOT, fullPage: true });
    await page.close();
  });
});
