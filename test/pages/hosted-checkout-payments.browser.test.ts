// The hosted checkout page in a real browser (Debian's Chromium driven by playwright-core): a payer
// opens the session's `url` and pays by card (test cards, the form's inline errors, declines,
// 3-D Secure) or another way (a saved card, click to pay, the wallet QR code), and lands on the
// merchant's success page.
import { expect, it } from 'vitest';
import { describeInBrowser } from '../support/browser.js';
import { CARD_YEAR, fillCard, TILL_ANSWERED } from '../support/pages.js';
import { useHostedCheckout } from '../support/hosted-checkout.js';

const { t, shopUrl, sk, hostedSession, sessionStatus, open } = useHostedCheckout('pay');

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
    await page.waitForURL(`${shopUrl()}/done?session=${s.id}`);
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
    await page.fill('#expiryYear', CARD_YEAR);
    await page.fill('#cvc', '12');
    await page.click('#card-form button[type=submit]');
    await expect.poll(() => page.textContent('#cvc-error')).toContain('3 or 4 digits');
    await fillCard(page, '4000000000009995');
    await expect.poll(() => page.textContent('#alert'), TILL_ANSWERED).toContain('declined');
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
    await expect.poll(() => page.textContent('#alert'), TILL_ANSWERED).toContain('did not confirm');
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
    await expect.poll(() => page.textContent('#status'), TILL_ANSWERED).toMatch(/withdrawn/i);
    expect(await page.isHidden('#qr-image')).toBe(true);
    await page.click('#qr-show');
    await page.waitForSelector('#qr-image:not([hidden])');
    const paid = await t.call('POST', `/v1/test-helpers/checkout-sessions/${s.id}/qr-paid`, { key: sk() });
    expect(paid.status, paid.text).toBe(200);
    await page.waitForURL(/\/done/);
    await page.close();
  });
});
