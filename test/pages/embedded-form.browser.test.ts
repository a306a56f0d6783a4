// The embedded form in a real browser (Debian's Chromium driven by playwright-core): a merchant's
// page on another origin mounts it with /js/till.js and hears what happens to the payment.
import { expect, it } from 'vitest';
import { describeInBrowser } from '../support/browser.js';
import { CARD_YEAR, TILL_ANSWERED } from '../support/pages.js';
import { useHostedCheckout } from '../support/hosted-checkout.js';

const { t, shopUrl, browser, sk, sessionStatus } = useHostedCheckout('embed');

describeInBrowser('embedded form', () => {
  it('a merchant page on another origin mounts the form with /js/till.js, and hears the decline and the success', async () => {
    const res = await t.call('POST', '/v1/checkout-sessions', { key: sk(), body: { amount: 9.99, currency: 'EUR', mode: 'embedded', paymentType: 'oneTime' } });
    const s = res.json;
    const page = await browser().newPage();
    await page.goto(`${shopUrl()}/embed?pk=${t.merchantA.keys.test.publishable}&cs=${s.clientSecret}`);
    await page.waitForSelector('#outcome[data-ready=yes]', { state: 'attached' });
    const frame = page.frameLocator('iframe');
    await frame.locator('[data-field=amount]').waitFor();
    expect(await frame.locator('[data-field=amount]').textContent()).toBe('€9.99');
    for (const [number, expected] of [
      ['4000000000009995', /^declined: /],
      ['4242424242424242', new RegExp(`^success ${s.id}$`)],
    ] as const) {
      await frame.locator('#cardNumber').fill(number);
      await frame.locator('#expiryMonth').fill('12');
      await frame.locator('#expiryYear').fill(CARD_YEAR);
      await frame.locator('#cvc').fill('123');
      await frame.locator('#card-form button[type=submit]').click();
      await expect.poll(() => page.textContent('#outcome'), TILL_ANSWERED).toMatch(expected);
    }
    expect(await sessionStatus(s.id)).toBe('completed');
    await page.close();
  });
});
