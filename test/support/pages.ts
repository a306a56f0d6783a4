// What the tests of the hosted pages share: a merchant's own site (its success, cancel and shop
// pages, on another origin than Till's), the card form's fields, and amounts as the pages write
// them. The hosted checkout page's fixture in Chromium: hosted-checkout.ts.
import { type IncomingMessage, type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

/** A card expiry year that stays in the future. */
export const CARD_YEAR = String(new Date().getUTCFullYear() + 3);

/** An amount in US dollars, as the pages write it. */
export const usd = (amount: number) => new Intl.NumberFormat('en', { style: 'currency', currency: 'USD' }).format(amount);

/**
 * The merchant's site for the file: every request answered with the HTML `page` writes for it.
 * Started before the file's first test, closed after its last; the function answers its URL. On
 * `localhost`, another origin than Till's `127.0.0.1`, unless `hostname` says otherwise.
 */
export function useShop(page: (req: IncomingMessage, url: URL) => string, { hostname = 'localhost' }: { hostname?: string } = {}): () => string {
  let server: Server | undefined;
  let url = '';
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(page(req, new URL(req.url ?? '/', 'http://shop')));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    url = `http://${hostname}:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });
  return () => url;
}

/** Fills the card form of a checkout page (hosted or invoice) and submits it. */
export async function fillCard(page: Page, number: string, cvc = '123') {
  await page.fill('#cardNumber', number);
  await page.fill('#expiryMonth', '12');
  await page.fill('#expiryYear', CARD_YEAR);
  await page.fill('#cvc', cvc);
  await page.click('#card-form button[type=submit]');
}

/**
 * How long a page may take to show what Till answered (`expect.poll` gives up after 1 s by
 * default): a card payment is a tokenization and a confirmation, and the first call of an
 * operation in a process builds its request and response validators (up to a second each on a
 * loaded 2-core machine), as the embedded form's file, run alone, showed.
 */
export const TILL_ANSWERED = { timeout: 10_000 };
