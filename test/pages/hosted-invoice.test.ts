// The hosted invoice page over HTTP (no browser; the browser test pays on it): which invoices it
// shows and how, what it never shows, the pay buttons' redirect to the hosted checkout page, and
// the states on the sandbox clock. The payment itself is in hosted-invoice.browser.test.ts.
import { describe, expect, it } from 'vitest';
import { usd } from '../support/pages.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer({ publicUrlIsServer: true });

const sk = () => t.merchantA.keys.test.secret;

async function commerceInvoice(body: Record<string, unknown> = {}, key = sk()) {
  const res = await t.call('POST', '/v1/invoice', {
    apiKey: key,
    body: { currencyCode: 'USD', items: [{ name: 'Consulting hours', unitCost: 150, quantity: 2 }], ...body },
  });
  expect(res.status, res.text).toBe(201);
  return res.json as { id: number; identifier: string; paymentUrl: string; totalCost: number; status: string };
}

const page = async (path: string) => {
  const res = await fetch(`${t.url}${path}`);
  return { status: res.status, headers: res.headers, body: await res.text() };
};
const pay = (identifier: string, method: string) =>
  fetch(`${t.url}/invoice/${identifier}/pay`, { method: 'POST', body: new URLSearchParams({ method }), redirect: 'manual' });
const stateOf = (body: string) => /<h1 data-state="([a-z_]+)"/.exec(body)?.[1];

describe('GET /invoice/{identifier}', () => {
  it('is the paymentUrl of a Commerce invoice and the hostedUrl of a Checkout one: the same page', async () => {
    const commerce = await commerceInvoice();
    expect(commerce.paymentUrl).toBe(`${t.url}/invoice/${commerce.identifier}`);
    const shown = await page(`/invoice/${commerce.identifier}`);
    expect(shown.status).toBe(200);
    expect(stateOf(shown.body)).toBe('payable');
    expect(shown.body).toContain(usd(300));
    const checkout = await t.call('POST', '/v1/invoices', {
      key: sk(),
      body: { customer: { email: 'ana@example.com' }, currency: 'USD', lineItems: [{ name: 'Design', quantity: 1, unitAmount: 75 }] },
    });
    expect(checkout.status, checkout.text).toBe(201);
    expect(checkout.json.hostedUrl).toBe(`${t.url}/invoice/${checkout.json.identifier}`);
    const other = await page(new URL(checkout.json.hostedUrl).pathname);
    expect(other.status).toBe(200);
    expect(other.body).toContain(usd(75));
  });

  it('answers a 404 page for a draft (not issued yet), an unknown identifier and one that is not a UUID', async () => {
    const draft = await commerceInvoice({ isDraft: true });
    for (const path of [`/invoice/${draft.identifier}`, '/invoice/6f1c2a9e-0000-4000-8000-000000000000', '/invoice/not-a-uuid', "/invoice/1' or '1'='1"]) {
      const res = await page(path);
      expect(res.status, path).toBe(404);
      expect(res.body).toContain('Invoice not found');
      expect(res.body).not.toContain('Consulting');
    }
  });

  it('escapes what the merchant and payer wrote, sends the security headers, and holds no key or secret', async () => {
    const inv = await commerceInvoice({
      description: '<script>alert(1)</script>',
      sourceInfo: { firstName: '"><img src=x onerror=alert(2)>', email: 'x@example.com' },
      items: [{ name: '<b>bold</b>', unitCost: 10, quantity: 1 }],
    });
    const { body, headers } = await page(`/invoice/${inv.identifier}`);
    expect(body).not.toContain('<script>alert');
    expect(body).not.toContain('<img src=x');
    expect(body).not.toContain('<b>bold');
    expect(body).toContain('&#60;b&#62;bold');
    expect(headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(headers.get('content-security-policy')).toContain("connect-src 'self'");
    expect(headers.get('x-frame-options')).toBe('DENY');
    expect(headers.get('cache-control')).toBe('no-store');
    expect(body).not.toMatch(/sk_test_|pk_test_|_secret_/);
  });

  it('links only to http(s) return addresses of the invoice', async () => {
    const inv = await commerceInvoice({ cancelUrl: 'https://shop.example.com/back' });
    expect((await page(`/invoice/${inv.identifier}`)).body).toContain('href="https://shop.example.com/back"');
    // The contract takes any URI; the page links to none that runs script.
    const hostile = await commerceInvoice({ cancelUrl: 'javascript:alert(1)' });
    const body = (await page(`/invoice/${hostile.identifier}`)).body;
    expect(stateOf(body)).toBe('payable');
    expect(body).not.toContain('javascript:');
    expect(body).not.toContain('cancel-link');
  });
});

describe('POST /invoice/{identifier}/pay', () => {
  it('opens the hosted checkout page for what is due, the chosen method first, the secret in the fragment; a second press reuses it', async () => {
    const inv = await commerceInvoice({ successUrl: 'https://shop.example.com/thanks' });
    const first = await pay(inv.identifier, 'wallet:qr');
    expect(first.status).toBe(303);
    const location = first.headers.get('location')!;
    expect(location).toMatch(/^\/pay\/cs_test_[A-Za-z0-9]+\?method=wallet%3Aqr#cs=cs_test_[A-Za-z0-9]+_secret_[A-Za-z0-9]+$/);
    const sessionId = /\/pay\/(cs_test_[A-Za-z0-9]+)/.exec(location)![1]!;
    const session = (await t.call('GET', `/v1/checkout-sessions/${sessionId}`, { key: sk() })).json;
    expect(session).toMatchObject({
      amount: 300,
      currency: 'USD',
      mode: 'hosted',
      successUrl: 'https://shop.example.com/thanks',
      cancelUrl: `${t.url}/invoice/${inv.identifier}`,
    });
    const checkoutPage = await page(location.split('#')[0]!);
    expect(checkoutPage.body).toContain('data-method="wallet:qr"');
    const again = await pay(inv.identifier, 'card');
    expect(again.headers.get('location')).toContain(`/pay/${sessionId}?method=card#cs=`);
  });

  it('goes back to the invoice page for a method the merchant does not offer, and for an invoice already paid', async () => {
    const inv = await commerceInvoice();
    for (const method of ['bank', '', 'card<script>']) {
      const res = await pay(inv.identifier, method);
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe(`/invoice/${inv.identifier}`);
    }
    const paid = await t.call('POST', '/api/payment/payinvoice', {
      apiKey: sk(),
      body: {
        invoiceId: inv.id,
        paymentOptionId: 1,
        card: { name: 'A', cardNumber: '4242424242424242', expiryDate: `12/${(new Date().getUTCFullYear() + 2) % 100}`, cvv: '123' },
      },
    });
    expect(paid.json, paid.text).toMatchObject({ isSuccess: true });
    const res = await pay(inv.identifier, 'card');
    expect(res.headers.get('location')).toBe(`/invoice/${inv.identifier}`);
    const shown = await page(`/invoice/${inv.identifier}`);
    expect(stateOf(shown.body)).toBe('paid');
    expect(shown.body).not.toContain('data-pay=');
  });

  it('shows why a payment could not start: less than 1.00 due', async () => {
    const inv = await commerceInvoice({ items: [{ name: 'Sticker', unitCost: 0.5, quantity: 1 }] });
    const res = await pay(inv.identifier, 'card');
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('The payment could not start: amount must be at least 1.00 USD.');
  });
});

describe('on the sandbox clock', () => {
  it('not yet valid, then payable, overdue (still payable), then expired: the page follows the invoice', async () => {
    const m = await t.newMerchant('Invoice page clock');
    const key = m.keys.test.secret;
    const now = Date.now();
    const hour = 3_600_000;
    const inv = await commerceInvoice(
      {
        validFrom: new Date(now + hour).toISOString(),
        paymentDueDate: new Date(now + 3 * hour).toISOString(),
        validTo: new Date(now + 24 * hour).toISOString(),
      },
      key,
    );
    const advance = (seconds: number) => t.call('POST', '/v1/test-helpers/clock/advance', { key, body: { seconds } });
    let shown = await page(`/invoice/${inv.identifier}`);
    expect(stateOf(shown.body)).toBe('not_yet_valid');
    expect((await pay(inv.identifier, 'card')).headers.get('location')).toBe(`/invoice/${inv.identifier}`);
    expect((await advance(2 * 3600)).status).toBe(200);
    expect(stateOf((await page(`/invoice/${inv.identifier}`)).body)).toBe('payable');
    expect((await advance(2 * 3600)).status).toBe(200);
    shown = await page(`/invoice/${inv.identifier}`);
    expect(stateOf(shown.body)).toBe('payable');
    expect(shown.body).toContain('data-notice="overdue"');
    expect((await advance(24 * 3600)).status).toBe(200);
    shown = await page(`/invoice/${inv.identifier}`);
    expect(stateOf(shown.body)).toBe('expired');
    expect(shown.body).not.toContain('data-pay=');
  });
});
