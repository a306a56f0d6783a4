// The hosted checkout page and the embedded form in a real browser: Debian's Chromium driven by
// playwright-core. A payer opens the session's `url`, pays with each method, and lands on the
// merchant's success page; a merchant page on another origin mounts the embedded form.
import { mkdir } from 'node:fs/promises';
import { type Server, createServer } from 'node:http';
import { type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { browserAvailable, describeInBrowser, launchChromium } from '../support/browser.js';
import { type TestServer, startTestServer } from '../support/server.js';

const YEAR = String(new Date().getUTCFullYear() + 3);

let t: TestServer;
let browser: BrowserContext;
let shop: Server;
let shopUrl: string;

/** The merchant's site: success and cancel pages, and a page that mounts the embedded form. */
function shopServer(): Server {
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://shop');
    if (url.pathname === '/embed') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(`<!doctype html><title>Shop checkout</title><h1>Shop</h1><div id="pay"></div><p id="outcome"></p>
<script src="${t.url}/js/till.js"></script>
<script>
const out = document.getElementById('outcome');
Till({ publishableKey: ${JSON.stringify(url.searchParams.get('pk'))} }).mount('#pay', {
  clientSecret: ${JSON.stringify(url.searchParams.get('cs'))},
  onReady: () => { out.dataset.ready = 'yes'; },
  onSuccess: (e) => { out.textContent = 'success ' + e.sessionId; },
  onDecline: (e) => { out.textContent = 'declined: ' + e.message; },
  onThreeDSecure: () => { out.dataset.threeDs = 'yes'; },
});
</script>`);
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><title>Shop</title><h1 id="shop">${url.pathname === '/cancel' ? 'Checkout cancelled' : 'Thank you'}</h1>`);
  });
}

beforeAll(async () => {
  if (!browserAvailable) return;
  t = await startTestServer({ publicUrlIsServer: true });
  shop = shopServer();
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  const address = shop.address();
  // Another origin than Till's: localhost rather than 127.0.0.1.
  shopUrl = `http://localhost:${typeof address === 'object' && address ? address.port : 0}`;
  browser = await launchChromium('pay');
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (shop ? shop.close(() => resolve()) : resolve()));
  await t?.close();
});

const sk = () => t.merchantA.keys.test.secret;

async function hostedSession(body: Record<string, unknown> = {}, key = sk()) {
  const res = await t.call('POST', '/v1/checkout-sessions', {
    key,
    body: {
      amount: 42.5,
      currency: 'USD',
      mode: 'hosted',
      paymentType: 'oneTime',
      successUrl: `${shopUrl}/done?session={CHECKOUT_SESSION_ID}`,
      cancelUrl: `${shopUrl}/cancel`,
      ...body,
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.json as { id: string; url: string; clientSecret: string };
}

const sessionStatus = async (id: string) => (await t.call('GET', `/v1/checkout-sessions/${id}`, { key: sk() })).json.status as string;

async function open(url: string): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(url);
  return page;
}

async function fillCard(page: Page, number: string, cvc = '123') {
  await page.fill('#cardNumber', number);
  await page.fill('#expiryMonth', '12');
  await page.fill('#expiryYear', YEAR);
  await page.fill('#cvc', cvc);
  await page.click('#card-form button[type=submit]');
}

describeInBrowser('hosted checkout: cards', () => {
  it('shows the merchant, the amount and the lines, and pays with 4242 to the success URL', async () => {
    const s = await hostedSession({
      lineItems: [
        { name: 'Blue mug', quantity: 2, unitAmount: 12.5 },
        { name: 'Tea', quantity: 1, unitAmount: 17.5 },
      ],
    });
    const page = await open(s.url);
    expect(await page.textContent('[data-field=merchant]')).toContain('Merchant A');
    expect(await page.textContent('[data-field=amount]')).toBe('$42.50');
    expect(await page.textContent('table.items')).toContain('Blue mug');
    expect(page.url()).not.toContain('secret');
    await fillCard(page, '4242424242424242');
    await page.waitForURL(`${shopUrl}/done?session=${s.id}`);
    expect(await sessionStatus(s.id)).toBe('completed');
    await page.close();
  });

  it('pays with the Mastercard test card', async () => {
    const s = await hostedSession();
    const page = await open(s.url);
    await fillCard(page, '5555555555554444');
    await page.waitForURL(/\/done/);
    expect(await sessionStatus(s.id)).toBe('completed');
    await page.close();
  });

  it('shows inline errors for a bad number, a past expiry and a short CVC, and the decline message, then pays', async () => {
    const s = await hostedSession();
    const page = await open(s.url);
    await fillCard(page, '4242424242424241');
    await expect.poll(() => page.textContent('#cardNumber-error')).toContain('not valid');
    expect(await page.getAttribute('#cardNumber', 'aria-invalid')).toBe('true');
    await page.fill('#cardNumber', '4242424242424242');
    await page.fill('#expiryYear', '2001');
    await page.click('#card-form button[type=submit]');
    await expect.poll(() => page.textContent('#expiryYear-error')).toContain('expired');
    await page.fill('#expiryYear', YEAR);
    await page.fill('#cvc', '12');
    await page.click('#card-form button[type=submit]');
    await expect.poll(() => page.textContent('#cvc-error')).toContain('3 or 4 digits');
    await fillCard(page, '4000000000009995');
    await expect.poll(() => page.textContent('#alert')).toContain('declined');
    expect(await sessionStatus(s.id)).not.toBe('completed');
    await fillCard(page, '4242424242424242');
    await page.waitForURL(/\/done/);
    expect(await sessionStatus(s.id)).toBe('completed');
    await page.close();
  });

  it('shows the processing error of 4000000000000119, and the session stays payable', async () => {
    const s = await hostedSession();
    const page = await open(s.url);
    await fillCard(page, '4000000000000119');
    // The SDK retries a 502 processing_error (safe: the confirm carries an idempotency key) before the page shows it.
    await expect.poll(() => page.textContent('#alert'), { timeout: 10_000 }).toMatch(/processor/i);
    expect(await sessionStatus(s.id)).not.toBe('completed');
    await page.close();
  });

  it('3-D Secure: the challenge page, back to the hosted page, then to the success URL', async () => {
    const s = await hostedSession();
    const page = await open(s.url);
    await fillCard(page, '4000000000003220');
    await page.waitForURL(/\/3ds\//);
    await page.click('button[value=complete]');
    await page.waitForURL(/\/done/);
    expect(await sessionStatus(s.id)).toBe('completed');
    await page.close();
  });

  it('3-D Secure failed: back on the page with a message, and a second card pays', async () => {
    const s = await hostedSession();
    const page = await open(s.url);
    await fillCard(page, '4000000000003220');
    await page.waitForURL(/\/3ds\//);
    await page.click('button[value=fail]');
    await page.waitForURL(new RegExp(`/pay/${s.id}$`));
    await expect.poll(() => page.textContent('#alert')).toContain('did not confirm');
    await fillCard(page, '4242424242424242');
    await page.waitForURL(/\/done/);
    await page.close();
  });
});

describeInBrowser('hosted checkout: other methods', () => {
  it('a saved card, with the one-time code read from the outbox', async () => {
    const customer = await t.call('POST', '/v1/customers', {
      key: sk(),
      body: { email: `saved${Date.now()}@example.com`, name: 'Ana', phone: `+1 415 555 ${Date.now() % 10000}` },
    });
    const clientId = customer.json.data.id;
    const first = await hostedSession({ clientId, allowSavedCards: true });
    let page = await open(first.url);
    await fillCard(page, '4242424242424242');
    await page.waitForURL(/\/done/);
    await page.close();
    const s = await hostedSession({ clientId, allowSavedCards: true });
    page = await open(s.url);
    await page.click('[data-pick=saved_card]');
    await page.click('#saved-card-list button');
    await page.waitForSelector('#saved-otp-form:not([hidden])');
    const messages = await t.call('GET', `/v1/test-helpers/messages?kind=otp&limit=1`, { key: sk() });
    const code = /\b(\d{6})\b/.exec(messages.json.data[0].body)![1]!;
    await page.fill('#savedOtp', code);
    await page.click('#saved-otp-form button');
    await page.waitForURL(/\/done/);
    expect(await sessionStatus(s.id)).toBe('completed');
    await page.close();
  });

  it('click to pay with the sandbox directory', async () => {
    const s = await hostedSession({ enableClickToPay: true });
    const page = await open(s.url);
    await page.click('[data-pick=click_to_pay]');
    await page.fill('#srcEmail', 'maria.lopez@example.com');
    await page.click('#src-lookup-form button');
    await page.click('#src-card-list button');
    await page.fill('#srcCode', '123456');
    await page.click('#src-auth-form button');
    await page.waitForURL(/\/done/);
    expect(await sessionStatus(s.id)).toBe('completed');
    await page.close();
  });

  it('wallet QR: the image and live status, withdrawn, then paid through the test helper', async () => {
    const s = await hostedSession();
    const page = await open(s.url);
    await page.click('[data-pick="wallet:qr"]');
    await page.click('#qr-show');
    await page.waitForSelector('#qr-image:not([hidden])');
    expect(await page.evaluate(() => (document.getElementById('qr-image') as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    expect(await page.textContent('#status')).toContain('Waiting');
    await page.click('#qr-withdraw');
    await expect.poll(() => page.textContent('#status')).toMatch(/withdrawn/i);
    expect(await page.isHidden('#qr-image')).toBe(true);
    await page.click('#qr-show');
    await page.waitForSelector('#qr-image:not([hidden])');
    const paid = await t.call('POST', `/v1/test-helpers/checkout-sessions/${s.id}/qr-paid`, { key: sk() });
    expect(paid.status, paid.text).toBe(200);
    await page.waitForURL(/\/done/);
    await page.close();
  });
});

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
    await page.waitForURL(`${shopUrl}/cancel`);
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
      const page = await browser.newPage();
      await page.setViewportSize({ width, height });
      await page.goto(s.url);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBe(0);
      await page.screenshot({ path: `out/screenshots/${name}.png`, fullPage: true });
      await page.close();
    }
  });
});

describeInBrowser('embedded form', () => {
  it('a merchant page on another origin mounts the form with /js/till.js, and hears the decline and the success', async () => {
    const res = await t.call('POST', '/v1/checkout-sessions', { key: sk(), body: { amount: 9.99, currency: 'EUR', mode: 'embedded', paymentType: 'oneTime' } });
    const s = res.json;
    const page = await browser.newPage();
    await page.goto(`${shopUrl}/embed?pk=${t.merchantA.keys.test.publishable}&cs=${s.clientSecret}`);
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
      await frame.locator('#expiryYear').fill(YEAR);
      await frame.locator('#cvc').fill('123');
      await frame.locator('#card-form button[type=submit]').click();
      await expect.poll(() => page.textContent('#outcome')).toMatch(expected);
    }
    expect(await sessionStatus(s.id)).toBe('completed');
    await page.close();
  });
});
