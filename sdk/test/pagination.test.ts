// list(): every item of a list, page by page. `startingAfter` lists against the real Till server
// (bare and inside the envelope); OData lists against a local server serving OData-shaped pages,
// since the server answers 501 for the Commerce lists today.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCheckoutClient, createCommerceClient, TillNotFoundError, type CommerceSchemas } from '../src/index.js';
import { useTestServer } from '../../test/support/server.js';
import { json, startLocalServer, type LocalServer } from './local-server.js';

describe('startingAfter lists against the Till server', () => {
  const t = useTestServer();

  it('walks customers (in the envelope) and products (bare) across pages, newest first, without duplicates', async () => {
    const till = createCheckoutClient({ baseUrl: t.url, secretKey: t.merchantA.keys.test.secret, throwOnError: true });
    const emails: string[] = [];
    const productIds: string[] = [];
    for (let i = 0; i < 5; i++) {
      const email = `page-${i}-${Date.now()}@example.com`;
      await till.POST('/v1/customers', { body: { email } });
      emails.push(email);
      const product = await till.POST('/v1/products', { body: { name: `Product ${i}` } });
      productIds.push(String(product.data!.id));
    }
    const seen: string[] = [];
    for await (const customer of till.list('/v1/customers', { params: { query: { limit: 2 } } })) seen.push(customer.email);
    expect(seen.filter((e) => emails.includes(e)).sort()).toEqual([...emails].sort());
    expect(new Set(seen).size).toBe(seen.length);

    const pages: number[] = [];
    const products: string[] = [];
    for await (const page of till.list('/v1/products', { params: { query: { limit: 2 } } }).pages()) {
      pages.push(page.length);
      products.push(...page.map((p) => String(p.id)));
    }
    expect(pages.slice(0, 2)).toEqual([2, 2]);
    expect(products.filter((id) => productIds.includes(id))).toEqual([...productIds].reverse());

    const firstThree = await till.list('/v1/customers', { params: { query: { limit: 2 } } }).toArray({ limit: 3 });
    expect(firstThree).toHaveLength(3);
  });

  it('throws the typed error of a failed page, even without throwOnError', async () => {
    const till = createCheckoutClient({ baseUrl: t.url, secretKey: t.merchantA.keys.test.secret });
    const list = till.list('/v1/WebhookConfiguration/{id}/deliveries', { params: { path: { id: 999_999 } } });
    await expect(list.toArray()).rejects.toBeInstanceOf(TillNotFoundError);
  });
});

describe('OData lists against a local server', () => {
  type Link = CommerceSchemas['PaymentLink'];
  const links = Array.from({ length: 7 }, (_, i) => ({ id: 7 - i, identifier: `link-${7 - i}` }) as unknown as Link);
  let server: LocalServer;
  let withNextLink = true;
  beforeAll(async () => {
    server = await startLocalServer((req, res) => {
      const url = new URL(req.url, 'http://x');
      const top = Number(url.searchParams.get('$top') ?? 3);
      const skip = Number(url.searchParams.get('$skip') ?? 0);
      const value = links.slice(skip, skip + top);
      const more = skip + top < links.length;
      const next = new URLSearchParams(url.searchParams);
      next.set('$skip', String(skip + top));
      json(res, 200, { value, '@odata.count': links.length, ...(withNextLink && more ? { '@odata.nextLink': `/v1/PaymentLink?${next}` } : {}) });
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('follows @odata.nextLink, keeping the other options', async () => {
    withNextLink = true;
    const commerce = createCommerceClient({ baseUrl: server.url, apiKey: 'sk_test_4eC39HqLyjWDarjtT1zdp7dc' });
    const before = server.requests.length;
    const ids: number[] = [];
    for await (const link of commerce.list('/v1/PaymentLink', { params: { query: { $top: 3, $orderby: 'id desc' } } })) ids.push(link.id);
    expect(ids).toEqual([7, 6, 5, 4, 3, 2, 1]);
    const urls = server.requests.slice(before).map((r) => new URL(r.url, 'http://x'));
    expect(urls.map((u) => u.searchParams.get('$skip'))).toEqual([null, '3', '6']);
    expect(urls.every((u) => u.searchParams.get('$orderby') === 'id desc')).toBe(true);
    expect(server.requests.at(-1)!.headers['x-api-key']).toBe('sk_test_4eC39HqLyjWDarjtT1zdp7dc');
  });

  it('without a nextLink, advances $skip by $top while pages come back full', async () => {
    withNextLink = false;
    const commerce = createCommerceClient({ baseUrl: server.url, apiKey: 'sk_test_4eC39HqLyjWDarjtT1zdp7dc' });
    const pages: number[][] = [];
    for await (const page of commerce.list('/v1/PaymentLink', { params: { query: { $top: 2, $skip: 1 } } }).pages()) pages.push(page.map((l) => l.id));
    expect(pages).toEqual([
      [6, 5],
      [4, 3],
      [2, 1],
    ]);
    // Without $top there is no way to tell a full page: one page only.
    expect(await commerce.list('/v1/PaymentLink').toArray()).toHaveLength(3);
  });

  it('stops early when the loop breaks, fetching no further page', async () => {
    withNextLink = true;
    const commerce = createCommerceClient({ baseUrl: server.url, apiKey: 'sk_test_4eC39HqLyjWDarjtT1zdp7dc' });
    const before = server.requests.length;
    for await (const link of commerce.list('/v1/PaymentLink', { params: { query: { $top: 3 } } })) {
      if (link.id === 6) break;
    }
    expect(server.requests.length - before).toBe(1);
  });
});
