// The hosted checkout page over HTTP (no browser): what it holds, what it never holds, its
// security headers, its assets, and the pages for sessions it must not show.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMerchant } from '../../server/domain/merchants/merchant.service.js';
import { systemClock } from '../../server/shared/clock.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();

async function session(body: Record<string, unknown> = {}, merchant: { keys: { test: { secret: string } } } = t.merchantA) {
  const res = await t.call('POST', '/v1/checkout-sessions', {
    key: merchant.keys.test.secret,
    body: { amount: 10, currency: 'USD', mode: 'hosted', paymentType: 'oneTime', successUrl: 'https://shop.example.com/done', ...body },
  });
  expect(res.status, res.text).toBe(201);
  return res.json as { id: string; url: string; clientSecret: string };
}

const page = async (path: string) => {
  const res = await fetch(`${t.url}${path}`);
  return { status: res.status, headers: res.headers, body: await res.text() };
};
const dataKey = (body: string) => /data-key="(pk_test_[A-Za-z0-9]+)"/.exec(body)?.[1];

describe('GET /pay/{sessionId}', () => {
  it('holds no client secret; its publishable key works with the secret from the fragment, and is the same on every load', async () => {
    const s = await session();
    const first = await page(`/pay/${s.id}`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^text\/html/);
    expect(first.body).not.toContain('_secret_');
    expect(first.body).not.toContain(t.merchantA.keys.test.secret);
    const key = dataKey(first.body)!;
    expect(key).toBeDefined();
    expect(dataKey((await page(`/pay/${s.id}`)).body)).toBe(key);
    const secret = new URLSearchParams(new URL(s.url).hash.slice(1)).get('cs')!;
    const retrieved = await t.call('GET', `/v1/checkout-sessions/${s.id}`, { key, clientSecret: secret });
    expect(retrieved.status).toBe(200);
    const otherMerchant = await session({}, t.merchantB);
    expect(dataKey((await page(`/pay/${otherMerchant.id}`)).body)).not.toBe(key);
  });

  it('escapes what the merchant and payer wrote', async () => {
    const s = await session({ lineItems: [{ name: '<script>alert(1)</script>', quantity: 1, unitAmount: 10, description: '"><img src=x onerror=alert(2)>' }] });
    const { body } = await page(`/pay/${s.id}`);
    expect(body).not.toContain('<script>alert');
    expect(body).not.toContain('<img src=x');
    expect(body).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
  });

  it('sends a strict CSP: scripts and styles from this server only (the colour rule by hash), no framing, no referrer, no cache', async () => {
    const branded = (
      await createMerchant(t.database.db, systemClock, { name: 'Green Grocer', brandColor: '#0A7D33', logoUrl: 'https://cdn.grocer.example/logo.png' })
    ).credentials;
    const s = await session({}, branded);
    const { headers, body } = await page(`/pay/${s.id}`);
    expect(body).toContain('<img class="logo" src="https://cdn.grocer.example/logo.png" alt="">');
    expect(headers.get('content-security-policy')).toContain("img-src 'self' data: https://cdn.grocer.example");
    const csp = headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    const style = /<style>([^<]*)<\/style>/.exec(body)![1]!;
    expect(style).toContain('--brand:#0a7d33');
    expect(csp).toContain(`'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    expect(body).not.toMatch(/<script>(?!<)/);
    expect(headers.get('x-frame-options')).toBe('DENY');
    expect(headers.get('referrer-policy')).toBe('no-referrer');
    expect(headers.get('cache-control')).toBe('no-store');
  });

  it('labels every input and has live regions for errors and status', async () => {
    const s = await session({ enableClickToPay: true });
    const { body } = await page(`/pay/${s.id}`);
    for (const id of ['cardNumber', 'expiryMonth', 'expiryYear', 'cvc', 'cardName', 'srcEmail', 'srcCode']) expect(body).toContain(`<label for="${id}">`);
    expect(body).toMatch(/id="alert" role="alert" aria-live="assertive"/);
    expect(body).toMatch(/id="status" role="status" aria-live="polite"/);
    expect(body).toContain('<meta name="viewport" content="width=device-width,initial-scale=1">');
  });

  it('an embedded session is shown only framed (?embed=1), where any origin may frame it; a hosted one only unframed', async () => {
    const embedded = (
      await t.call('POST', '/v1/checkout-sessions', {
        key: t.merchantA.keys.test.secret,
        body: { amount: 5, currency: 'USD', mode: 'embedded', paymentType: 'oneTime' },
      })
    ).json;
    const framed = await page(`/pay/${embedded.id}?embed=1`);
    expect(framed.status).toBe(200);
    expect(framed.headers.get('content-security-policy')).toContain('frame-ancestors *');
    expect(framed.headers.get('x-frame-options')).toBeNull();
    expect((await page(`/pay/${embedded.id}`)).status).toBe(404);
    const hosted = await session();
    expect((await page(`/pay/${hosted.id}?embed=1`)).status).toBe(404);
  });

  it('an unknown or malformed session id answers a 404 page', async () => {
    for (const id of ['cs_test_doesnotexist0000', 'not-a-session', 'cs_test_%3Cscript%3E']) {
      const res = await page(`/pay/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toContain('Checkout not found');
      expect(res.body).not.toContain('<script>');
    }
  });
});

describe('page assets', () => {
  it('serves the stylesheet and the bundled script with an ETag, and answers 304 to it', async () => {
    for (const path of ['/assets/page.css', '/assets/checkout.js']) {
      const first = await fetch(`${t.url}${path}`);
      expect(first.status).toBe(200);
      const etag = first.headers.get('etag')!;
      expect((await fetch(`${t.url}${path}`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    }
    const js = await (await fetch(`${t.url}/assets/checkout.js`)).text();
    expect(js).toContain('/v1/checkout-sessions/{id}/tokenize');
    expect(js).not.toContain('node:crypto');
  });

  it('/js/till.js loads on any site', async () => {
    const res = await fetch(`${t.url}/js/till.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.text()).toContain('pk_(test|live)_');
  });
});
