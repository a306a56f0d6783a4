// The fixture of the hosted checkout page's tests in Chromium: Till, the merchant's site (its
// success and cancel pages, and a page that mounts the embedded form) and the browser, with
// sessions that return to that site.
import type { IncomingMessage } from 'node:http';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { useChromium } from './browser.js';
import { useShop } from './pages.js';
import { useTestServer } from './server.js';

/** The merchant's pages in the hosted checkout tests: the success and cancel pages, and a page that mounts the embedded form. */
function checkoutShopPage(tillUrl: () => string) {
  return (_req: IncomingMessage, url: URL) => {
    if (url.pathname === '/embed') {
      return `<!doctype html><title>Shop checkout</title><h1>Shop</h1><div id="pay"></div><p id="outcome"></p>
<script src="${tillUrl()}/js/till.js"></script>
<script>
const out = document.getElementById('outcome');
Till({ publishableKey: ${JSON.stringify(url.searchParams.get('pk'))} }).mount('#pay', {
  clientSecret: ${JSON.stringify(url.searchParams.get('cs'))},
  onReady: () => { out.dataset.ready = 'yes'; },
  onSuccess: (e) => { out.textContent = 'success ' + e.sessionId; },
  onDecline: (e) => { out.textContent = 'declined: ' + e.message; },
  onThreeDSecure: () => { out.dataset.threeDs = 'yes'; },
});
</script>`;
    }
    return `<!doctype html><title>Shop</title><h1 id="shop">${url.pathname === '/cancel' ? 'Checkout cancelled' : 'Thank you'}</h1>`;
  };
}

/**
 * A file of hosted checkout tests: Till (its public URL its own, so the pages' links point at it),
 * the merchant's site on another origin, and Chromium; sessions that return to the merchant's site.
 */
export function useHostedCheckout(label: string) {
  const t = useTestServer({ publicUrlIsServer: true });
  const shopUrl = useShop(checkoutShopPage(() => t.url));
  const browser = useChromium(label);
  const sk = () => t.merchantA.keys.test.secret;

  /** A hosted session of merchant A (42.50 USD) that returns to the shop's /done or /cancel. */
  async function hostedSession(body: Record<string, unknown> = {}, key = sk()) {
    const res = await t.call('POST', '/v1/checkout-sessions', {
      key,
      body: {
        amount: 42.5,
        currency: 'USD',
        mode: 'hosted',
        paymentType: 'oneTime',
        successUrl: `${shopUrl()}/done?session={CHECKOUT_SESSION_ID}`,
        cancelUrl: `${shopUrl()}/cancel`,
        ...body,
      },
    });
    expect(res.status, res.text).toBe(201);
    return res.json as { id: string; url: string; clientSecret: string };
  }

  const sessionStatus = async (id: string) => (await t.call('GET', `/v1/checkout-sessions/${id}`, { key: sk() })).json.status as string;

  async function open(url: string): Promise<Page> {
    const page = await browser().newPage();
    await page.goto(url);
    return page;
  }

  return { t, shopUrl, browser, sk, hostedSession, sessionStatus, open };
}
