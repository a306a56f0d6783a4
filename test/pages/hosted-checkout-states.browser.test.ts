// The hosted checkout page's states and notices in a real browser (Debian's Chromium driven by
// playwright-core): a hold, a subscription, sessions no longer payable, the cancel link, and the
// page at a phone's width and a desktop's.
import { mkdir } from 'node:fs/promises';
import { expect, it } from 'vitest';
import { describeInBrowser } from '../support/browser.js';
import { useHostedCheckout } from '../support/hosted-checkout.js';

const { t, shopUrl, browser, sk, hostedSession, open } = useHostedCheckout('states');

describeInBrowser('hosted checkout: states and notices', () => {
  it('a hold session says the card is authorized, not charged', async () => {
    const s = await hostedSession({ captureMethod: 'manual' });
    const page = await open(s.url);
    expect(await page.textContent('[data-notice=hold]')).toContain('authorized for this amount, not charged');
    expect(await page.textContent('#card-form button')).toContain('Authorize');
    await page.close();
  });

  it('a subscription session shows the plan and the card-on-file notice', async () => {
    const product = await t.call('POST', '/v1/products', { key: sk(), body: { name: 'Coffee club' } });
    const plan = await t.call('POST', '/v1/plans', {
      key: sk(),
      body: { productId: product.json.id, name: 'Monthly beans', amount: 19, currency: 'USD', interval: 'month', intervalCount: 1 },
    });
    const customer = await t.call('POST', '/v1/customers', { key: sk(), body: { email: `sub${Date.now()}@example.com`, name: 'Sam' } });
    const s = await hostedSession({
      paymentType: 'subscription',
      amount: undefined,
      currency: undefined,
      subscriptionPlanId: plan.json.data.id,
      clientId: customer.json.data.id,
    });
    const page = await open(s.url);
    expect(await page.textContent('[data-field=plan]')).toContain('Monthly beans');
    expect(await page.textContent('[data-notice=card-on-file]')).toContain('kept on file');
    await page.close();
  });

  it('a cancelled, an expired and a completed session show that, not a form', async () => {
    const cancelled = await hostedSession();
    await t.call('POST', `/v1/checkout-sessions/${cancelled.id}/cancel`, { key: sk() });
    let page = await open(cancelled.url);
    expect(await page.textContent('h1')).toContain('cancelled');
    expect(await page.$('#card-form')).toBeNull();
    await page.close();
    // Another merchant, whose sandbox clock moves past the 30-minute expiry.
    const other = await t.newMerchant('Clockwork shop');
    const expired = await hostedSession({}, other.keys.test.secret);
    const advanced = await t.call('POST', '/v1/test-helpers/clock/advance', { key: other.keys.test.secret, body: { seconds: 31 * 60 } });
    expect(advanced.status, advanced.text).toBe(200);
    page = await open(expired.url);
    expect(await page.textContent('h1')).toContain('expired');
    expect(await page.$('#card-form')).toBeNull();
    await page.close();
  });

  it('the cancel link goes to cancelUrl; the page without its fragment cannot pay', async () => {
    const s = await hostedSession();
    let page = await open(s.url.split('#')[0]!);
    await expect.poll(() => page.textContent('#alert')).toContain('incomplete');
    await page.close();
    page = await open(s.url);
    await page.click('#cancel-link');
    await page.waitForURL(`${shopUrl()}/cancel`);
    await page.close();
  });

  it('keeps screenshots at 360 px and at desktop width', async () => {
    const s = await hostedSession({
      lineItems: [
        { name: 'Blue mug', quantity: 2, unitAmount: 12.5 },
        { name: 'Tea', quantity: 1, unitAmount: 17.5 },
      ],
      enableClickToPay: true,
    });
    await mkdir('out/screenshots', { recursive: true });
    for (const [name, width, height] of [
      ['hosted-checkout-360', 360, 780],
      ['hosted-checkout-desktop', 1280, 900],
    ] as const) {
      const page = await browser().newPage();
      await page.setViewportSize({ width, height });
      await page.goto(s.url);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBe(0);
      await page.screenshot({ path: `out/screenshots/${name}.png`, fullPage: true });
      await page.close();
    }
  });
});
