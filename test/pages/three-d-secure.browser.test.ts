// The sandbox 3-D Secure page in a real browser: Debian's Chromium driven by playwright-core
// (never a downloaded browser). The payer opens nextAction.url, clicks a button, and lands on
// the merchant's return URL (a loopback server this test runs).
import { expect, it } from 'vitest';
import { describeInBrowser, useChromium } from '../support/browser.js';
import { useShop } from '../support/pages.js';
import { createTestSession, useTestServer } from '../support/server.js';

const t = useTestServer();
/** Requests the merchant's return page received. */
const returns: string[] = [];
const shopUrl = useShop(
  (req) => {
    returns.push(req.url ?? '');
    return '<!doctype html><title>Shop</title><h1>Back at the shop</h1>';
  },
  { hostname: '127.0.0.1' },
);
/** Chromium with a fresh profile (a persistent context is how a user-data dir is given). */
const browser = useChromium('3ds');

const card = { cardNumber: '4000000000003220', expiryMonth: 12, expiryYear: new Date().getUTCFullYear() + 3, cvc: '123' };

/** A session confirmed with the 3-D Secure card; answers the page URL on the test server and the return URL. */
async function inChallenge(amount: number) {
  const pk = t.merchantA.keys.test.publishable;
  const s = await createTestSession(t, t.merchantA, false, { amount, currency: 'USD' });
  const pm = await t.call('POST', `/v1/checkout-sessions/${s.id}/tokenize`, { key: pk, clientSecret: s.clientSecret, body: card });
  const returnUrl = `${shopUrl()}/checkout/return?session=${s.id}`;
  const res = await t.call('POST', `/v1/checkout-sessions/${s.id}/confirm`, {
    key: pk,
    clientSecret: s.clientSecret,
    body: { paymentMethodId: pm.json.id, returnUrl },
  });
  expect(res.json.nextAction.type).toBe('redirect_to_3ds');
  // nextAction.url carries the configured public base URL; the page is served by this test server.
  return { s, pageUrl: `${t.url}${new URL(res.json.nextAction.url).pathname}`, returnUrl };
}

describeInBrowser('the 3-D Secure page in Chromium', () => {
  it('Complete authentication: the page shows the amount and last4, the browser lands on the return URL, and the session is completed with one payment', async () => {
    const { s, pageUrl, returnUrl } = await inChallenge(49.99);
    const page = await browser().newPage();
    const cspErrors: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspErrors.push(m.text());
    });
    await page.goto(pageUrl);
    await expect(page.locator('[data-field="amount"]').textContent()).resolves.toBe('49.99 USD');
    await expect(page.locator('[data-field="card"]').textContent()).resolves.toContain('3220');
    if (process.env.TILL_3DS_SCREENSHOT) await page.screenshot({ path: process.env.TILL_3DS_SCREENSHOT, fullPage: true });
    await Promise.all([page.waitForURL(returnUrl), page.getByRole('button', { name: 'Complete authentication' }).click()]);
    expect(page.url()).toBe(returnUrl);
    await expect(page.locator('h1').textContent()).resolves.toBe('Back at the shop');
    expect(returns).toContain(`/checkout/return?session=${s.id}`);
    expect(cspErrors).toEqual([]);
    const got = await t.call('GET', `/v1/checkout-sessions/${s.id}`, { key: t.merchantA.keys.test.secret });
    expect(got.json.status).toBe('completed');
    const payments = await t.database.db.selectFrom('payments').select('status').where('session_id', '=', s.id).execute();
    expect(payments).toEqual([{ status: 'succeeded' }]);
    // Back, then answering again: the challenge is used.
    const again = await page.goto(pageUrl);
    expect(again?.status()).toBe(410);
    await page.close();
  });

  it('Fail authentication: the browser lands on the return URL, the payment failed and the session is payable again', async () => {
    const { s, pageUrl, returnUrl } = await inChallenge(12.5);
    const page = await browser().newPage();
    await page.goto(pageUrl);
    await expect(page.locator('[data-field="amount"]').textContent()).resolves.toBe('12.50 USD');
    await Promise.all([page.waitForURL(returnUrl), page.getByRole('button', { name: 'Fail authentication' }).click()]);
    expect(page.url()).toBe(returnUrl);
    const got = await t.call('GET', `/v1/checkout-sessions/${s.id}`, { key: t.merchantA.keys.test.secret });
    expect(got.json.status).toBe('created');
    const payments = await t.database.db.selectFrom('payments').select(['status', 'failure_code']).where('session_id', '=', s.id).execute();
    expect(payments).toEqual([{ status: 'failed', failure_code: 'authentication_failed' }]);
    await page.close();
  });
});
