// The hosted payment-link page (`/pay/link/{identifier}`) in a real browser: Debian's Chromium
// driven by playwright-core. A payer opens a link (its paymentUrl, or its embed snippet on the
// merchant's own site, another origin), fills the payer form (an amount, a password, an email code
// where the link asks), lands on the invoice page and pays there; the link counts it all.
import { type Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeInBrowser, useChromium } from '../support/browser.js';
import { fillCard, usd, useShop } from '../support/pages.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer({ publicUrlIsServer: true });
/** The snippet the merchant pasted into its shop page. */
let snippet = '';
const shopUrl = useShop(() => `<!doctype html><title>Acme shop</title><h1>Acme shop</h1><p>Our beans:</p>${snippet}`);
const browser = useChromium('link');

const sk = () => t.merchantA.keys.test.secret;

async function newLink(body: Record<string, unknown>) {
  const res = await t.call('POST', '/v1/PaymentLink', { apiKey: sk(), body });
  expect(res.status, res.text).toBe(201);
  return res.json;
}
const readLink = async (id: number) => (await t.call('GET', `/v1/PaymentLink?$filter=id eq ${id}`, { apiKey: sk() })).json.value[0];

async function fillPayer(page: Page, email = 'ana@example.com') {
  if (await page.$('#payer-form input#email')) await page.fill('#email', email);
  await page.fill('#firstName', 'Ana');
  await page.fill('#lastName', 'Lopez');
}

async function payByCard(page: Page) {
  await page.click('[data-pay=card]');
  await page.waitForURL(/\/pay\/cs_test_/);
  await fillCard(page, '4242424242424242');
}

describeInBrowser('hosted payment-link page', () => {
  it("the embed snippet on the merchant's site opens the link page; the payer's form makes the invoice, paid on the invoice page", async () => {
    const link = await newLink({
      name: 'Single-origin beans',
      currencyCode: 'USD',
      unitPrice: '24.50',
      taxRate: '8.25',
      productName: 'Yirgacheffe 1 kg',
      callToActionText: 'Buy beans',
      buttonColor: '#6F4E37',
    });
    snippet = link.embedCode;
    const shopPage = await browser().newPage();
    await shopPage.goto(shopUrl());
    const button = shopPage.locator('a', { hasText: 'Buy beans' });
    expect(await button.evaluate((a) => getComputedStyle(a).backgroundColor)).toBe('rgb(111, 78, 55)');
    const [page] = await Promise.all([browser().waitForEvent('page'), button.click()]);
    await page!.waitForURL(link.paymentUrl);
    expect(await page!.textContent('h1')).toBe('Single-origin beans');
    expect(await page!.textContent('[data-field=total]')).toBe(usd(26.52));
    await fillPayer(page!);
    await page!.click('#pay');
    await page!.waitForURL(/\/invoice\/[0-9a-f-]{36}$/);
    expect(await page!.textContent('[data-field=amount]')).toBe(usd(26.52));
    expect(await page!.textContent('[data-field=payer]')).toBe('Ana Lopez');
    await payByCard(page!);
    await page!.waitForSelector('h1[data-state=paid]');
    expect(await readLink(link.id)).toMatchObject({ clickCount: 1, invoiceCount: 1, completedPaymentCount: 1, totalAmountCollected: '26.52' });
    await page!.close();
    await shopPage.close();
  });

  it('a variable amount out of range is refused on the page with what was typed kept; in range it makes the invoice', async () => {
    const link = await newLink({
      name: 'Donate',
      currencyCode: 'USD',
      linkType: 'Donation',
      isVariableAmount: true,
      minAmount: '5',
      maxAmount: '100',
      suggestedAmount: '25',
    });
    const page = await browser().newPage();
    await page.goto(link.paymentUrl);
    expect(await page.inputValue('#amount')).toBe('25');
    await fillPayer(page);
    // The browser's own check would stop 500 (max 100): take it off to see the server refuse it.
    await page.$eval('#amount', (input) => input.removeAttribute('max'));
    await page.fill('#amount', '500');
    await page.click('#pay');
    await page.waitForSelector('#alert:not(:empty)');
    expect(await page.textContent('#alert')).toContain('amount must be at least 5');
    expect(await page.inputValue('#firstName')).toBe('Ana');
    await page.fill('#amount', '42.50');
    await page.click('#pay');
    await page.waitForURL(/\/invoice\//);
    expect(await page.textContent('[data-field=amount]')).toBe(usd(42.5));
    await page.close();
  });

  it('a protected link asks for the password, and for an email code (from the outbox) before the invoice', async () => {
    const link = await newLink({
      name: 'Members only',
      currencyCode: 'USD',
      unitPrice: '10',
      isPasswordProtected: true,
      password: 'members-2026',
      isEmailVerificationRequired: true,
    });
    const page = await browser().newPage();
    await page.goto(link.paymentUrl);
    expect(await page.$('#payer-form')).toBeNull();
    await page.fill('#email', 'member@example.com');
    await page.click('#send-code');
    await page.waitForSelector('#payer-form');
    expect(await page.textContent('[data-field=email]')).toBe('member@example.com');
    const message = await t.database.db
      .selectFrom('messages')
      .select('body')
      .where('recipient', '=', 'member@example.com')
      .orderBy('seq', 'desc')
      .executeTakeFirstOrThrow();
    const code = /\b(\d{6})\b/.exec(message.body)![1]!;
    await fillPayer(page);
    await page.fill('#verificationCode', code);
    await page.fill('#password', 'not-the-password');
    await page.click('#pay');
    await page.waitForSelector('#alert:not(:empty)');
    expect(await page.textContent('#alert')).toContain('password');
    await page.fill('#verificationCode', code);
    await page.fill('#password', 'members-2026');
    await page.click('#pay');
    await page.waitForURL(/\/invoice\//);
    expect(await page.textContent('[data-field=amount]')).toBe(usd(10));
    await page.close();
  });

  it('a subscription link offers its plans; the chosen one starts the subscription, paid on its first invoice', async () => {
    const key = sk();
    const product = await t.call('POST', '/v1/products', { key, body: { name: 'Cloud' } });
    const basic = await t.call('POST', '/v1/plans', {
      key,
      body: { productId: product.json.id, name: 'Basic', amount: 9, currency: 'USD', interval: 'month' },
    });
    const pro = await t.call('POST', '/v1/plans', {
      key,
      body: { productId: product.json.id, name: 'Pro', amount: 19.99, currency: 'USD', interval: 'month' },
    });
    const link = await newLink({ name: 'Cloud plans', currencyCode: 'USD', isSubscriptionBased: true, subscriptionProductId: Number(product.json.id) });
    const page = await browser().newPage();
    await page.goto(link.paymentUrl);
    expect(await page.$$eval('[data-plan]', (inputs) => inputs.map((i) => (i as HTMLInputElement).value))).toEqual([
      String(basic.json.data.id),
      String(pro.json.data.id),
    ]);
    await page.check(`[data-plan="${pro.json.data.id}"]`);
    await fillPayer(page, 'subscriber@example.com');
    await page.click('#pay');
    await page.waitForURL(/\/invoice\//);
    expect(await page.textContent('[data-field=amount]')).toBe(usd(19.99));
    await payByCard(page);
    await page.waitForSelector('h1[data-state=paid]');
    const subs = await t.call('GET', '/v1/subscriptions?limit=5', { key });
    const started = (subs.json.data.data ?? subs.json.data).find((x: { planId: number }) => x.planId === pro.json.data.id);
    expect(started).toMatchObject({ status: 'active' });
    await page.close();
  });

  it('an inactive link says so and offers no form; an unknown one is a 404 page', async () => {
    const link = await newLink({ name: 'Paused', currencyCode: 'USD', unitPrice: '3' });
    await t.call('POST', `/v1/PaymentLink/${link.id}/Deactivate`, { apiKey: sk() });
    const page = await browser().newPage();
    await page.goto(link.paymentUrl);
    expect(await page.textContent('[data-notice=inactive]')).toContain('not taking payments');
    expect(await page.$('form')).toBeNull();
    const missing = await page.goto(`${t.url}/pay/link/00000000-0000-4000-8000-000000000000`);
    expect(missing!.status()).toBe(404);
    await page.close();
  });
});
