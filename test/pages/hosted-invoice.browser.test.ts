// The hosted invoice page (`/invoice/{identifier}`) in a real browser: Debian's Chromium driven by
// playwright-core. A payer opens a Commerce invoice's `paymentUrl`, reads its lines and totals,
// pays by card through 3-D Secure or with the wallet QR code, and comes back to the invoice,
// paid; the page follows the invoice's status live through the notification hub.
import { type Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { describeInBrowser, useChromium } from '../support/browser.js';
import { CARD_YEAR, fillCard, usd } from '../support/pages.js';
import { useTestServer } from '../support/server.js';

const EXPIRY = `12/${CARD_YEAR.slice(2)}`;

const t = useTestServer({ publicUrlIsServer: true });
const browser = useChromium('invoice');

const sk = () => t.merchantA.keys.test.secret;

/** A Commerce invoice: 4 × 150 at 10 % tax, 2 × 89.50 less 9 at 5 %, 20 off, 12.50 shipping. */
async function newInvoice(): Promise<{
  id: number;
  identifier: string;
  paymentUrl: string;
  totalCost: number;
  subTotal: number;
  taxAmount: number;
  items: { subTotal: number }[];
}> {
  const res = await t.call('POST', '/v1/invoice', {
    apiKey: sk(),
    body: {
      currencyCode: 'USD',
      description: 'Website redesign',
      taxRate: 10,
      discount: 20,
      shippingCost: 12.5,
      sourceInfo: { firstName: 'Ana', lastName: 'Lopez', email: 'ana@example.com' },
      items: [
        { name: 'Consulting hours', unitCost: 150, quantity: 4, invoiceItemTypeId: 'Service' },
        { name: 'USB-C dock', unitCost: 89.5, quantity: 2, discount: 9, taxRate: 5 },
      ],
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

const payByApi = (invoiceId: number, body: Record<string, unknown> = {}) =>
  t.call('POST', '/api/payment/payinvoice', {
    apiKey: sk(),
    body: { invoiceId, paymentOptionId: 1, card: { name: 'Ana Lopez', cardNumber: '4242424242424242', expiryDate: EXPIRY, cvv: '123' }, ...body },
  });
const invoiceStatus = async (id: number) => (await t.call('GET', `/v1/invoice/${id}`, { apiKey: sk() })).json.status as string;

async function open(url: string): Promise<Page> {
  const page = await browser().newPage();
  await page.goto(url);
  return page;
}

describeInBrowser('hosted invoice page', () => {
  it('shows the merchant, the lines and the exact totals of the invoice, and a button per way to pay', async () => {
    const inv = await newInvoice();
    const page = await open(inv.paymentUrl);
    expect(await page.textContent('h1')).toContain('Invoice from');
    expect(await page.textContent('[data-field=amount]')).toBe(usd(inv.totalCost));
    expect(await page.textContent('[data-field=total]')).toBe(usd(inv.totalCost));
    expect(await page.textContent('[data-field=subtotal]')).toBe(usd(inv.subTotal));
    expect(await page.textContent('[data-field=tax]')).toBe(usd(inv.taxAmount));
    expect(await page.textContent('[data-field=shipping]')).toBe(usd(12.5));
    expect(await page.textContent('table.items')).toContain('Consulting hours');
    // Each line before tax, so the lines add up to the subtotal.
    const lines = await page.$$eval('table.items tr td.num', (cells) => cells.slice(0, 2).map((c) => c.textContent));
    expect(lines).toEqual([usd(inv.items[0]!.subTotal), usd(inv.items[1]!.subTotal)]);
    expect(inv.items[0]!.subTotal + inv.items[1]!.subTotal).toBe(inv.subTotal);
    expect(await page.textContent('table.items')).toContain(`${usd(9)} off`);
    expect(await page.textContent('[data-field=payer]')).toBe('Ana Lopez');
    expect(await page.$$eval('[data-pay]', (buttons) => buttons.map((b) => (b as HTMLElement).dataset.pay))).toEqual(['card', 'wallet:qr']);
    await page.close();
  });

  it('pays by card through 3-D Secure and comes back to the invoice, paid', async () => {
    const inv = await newInvoice();
    const page = await open(inv.paymentUrl);
    await page.click('[data-pay=card]');
    await page.waitForURL(/\/pay\/cs_test_/);
    expect(await page.textContent('[data-field=amount]')).toBe(usd(inv.totalCost));
    await fillCard(page, '4000000000003220');
    await page.waitForURL(/\/3ds\//);
    await page.click('button[value=complete]');
    await page.waitForURL(new RegExp(`/invoice/${inv.identifier}$`));
    await page.waitForSelector('h1[data-state=paid]');
    expect(await page.textContent('[data-notice=paid]')).toContain('Paid on');
    expect(await page.$$('[data-pay]')).toHaveLength(0);
    expect(await invoiceStatus(inv.id)).toBe('Paid');
    await page.close();
  });

  it('pays with the wallet QR code: the checkout page opens on the wallet, and the scan pays the invoice', async () => {
    const inv = await newInvoice();
    const page = await open(inv.paymentUrl);
    await page.click('[data-pay="wallet:qr"]');
    await page.waitForURL(/\/pay\/cs_test_/);
    const sessionId = /\/pay\/(cs_test_[A-Za-z0-9]+)/.exec(page.url())![1]!;
    expect(await page.isHidden('#card-form')).toBe(true);
    await page.click('#qr-show');
    await page.waitForSelector('#qr-image:not([hidden])');
    const paid = await t.call('POST', `/v1/test-helpers/checkout-sessions/${sessionId}/qr-paid`, { key: sk() });
    expect(paid.status, paid.text).toBe(200);
    await page.waitForURL(new RegExp(`/invoice/${inv.identifier}$`));
    await page.waitForSelector('h1[data-state=paid]');
    expect(await invoiceStatus(inv.id)).toBe('Paid');
    await page.close();
  });

  it('follows the status live through the hub: a part payment, then the rest paid elsewhere, update the open page', async () => {
    const inv = await newInvoice();
    const page = await open(inv.paymentUrl);
    await page.waitForSelector('main[data-live=following]');
    const part = await payByApi(inv.id, { amount: 100 });
    expect(part.json, part.text).toMatchObject({ isSuccess: true, amountPaid: 100 });
    await page.waitForSelector('[data-field=status]:text("Partly paid")');
    expect(await page.textContent('[data-field=paid]')).toBe(`−${usd(100)}`);
    expect(await page.textContent('[data-field=amount]')).toBe(usd(inv.totalCost - 100));
    await page.waitForSelector('main[data-live=following]');
    const rest = await payByApi(inv.id);
    expect(rest.json, rest.text).toMatchObject({ isSuccess: true });
    await page.waitForSelector('h1[data-state=paid]');
    await page.close();
  });

  it('a cancelled invoice shows that and offers no payment; an unknown identifier is a 404 page', async () => {
    const inv = await newInvoice();
    const cancelled = await t.call('POST', `/v1/invoices/${inv.id}/void`, { key: sk() });
    expect(cancelled.status, cancelled.text).toBe(200);
    const page = await open(inv.paymentUrl);
    expect(await page.getAttribute('h1', 'data-state')).toBe('cancelled');
    expect(await page.$$('[data-pay]')).toHaveLength(0);
    const missing = await page.goto(`${t.url}/invoice/00000000-0000-4000-8000-000000000000`);
    expect(missing?.status()).toBe(404);
    expect(await page.textContent('h1')).toBe('Invoice not found');
    await page.close();
  });
});
