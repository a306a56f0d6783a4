// The dashboard's billing and money sections over HTTP: each lists and shows what the API made; an
// action in the page (void an invoice, cancel a subscription, deactivate a link, archive a plan) is
// seen by the API; a restricted key without a section's scope is refused on its page and its form
// POST; a POST without the form token is refused.
import { beforeAll, describe, expect, it } from 'vitest';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { type BillingObjects, billingObjects } from '../support/dashboard-billing.js';
import { DashboardClient, restrictedKey } from '../support/dashboard.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer({ rateLimitScale: 100 });
let m: MerchantCredentials;
let o: BillingObjects;

beforeAll(async () => {
  m = await t.newMerchant('Roastery');
  o = await billingObjects(t, m);
}, 120_000);

async function signedIn(key = m.keys.test.secret): Promise<DashboardClient> {
  const c = new DashboardClient(t.url);
  expect((await c.signIn(key)).status).toBe(303);
  return c;
}

describe('the billing and money sections', () => {
  it('list and show what the API made', async () => {
    const c = await signedIn();
    const pages: [string, string][] = [
      ['/dashboard/subscriptions', 'Beans monthly'],
      [`/dashboard/subscriptions/${o.subscriptionId}`, 'Next renewal'],
      ['/dashboard/invoices', '$361.50'],
      [`/dashboard/invoices/${o.invoiceId}`, 'Consulting'],
      ['/dashboard/payment-links', 'Beans'],
      [`/dashboard/payment-links/${o.linkId}`, `/v1/PaymentLink/qr/`],
      ['/dashboard/products', 'Roastery club'],
      [`/dashboard/products/${o.productId}`, 'Roastery club'],
      ['/dashboard/plans', 'Beans monthly'],
      [`/dashboard/plans/${o.planId}`, 'Archive the plan'],
      ['/dashboard/payouts', 'po_'],
      ['/dashboard/transfers', '$10.00'],
      [`/dashboard/transfers/${o.transferId}`, 'CBDCTransfer'],
      ['/dashboard/disputes', '$30.00'],
      [`/dashboard/disputes/${o.disputeId}`, 'dispute.opened'],
    ];
    for (const [path, text] of pages) {
      const page = await c.get(path);
      expect(page.status, path).toBe(200);
      expect(page.html, path).toContain(text);
      expect(page.html, path).not.toContain(m.keys.test.secret);
    }
    const payout = /href="\/dashboard\/payouts\/(po_[^"]+)"/.exec((await c.get('/dashboard/payouts')).html)![1]!;
    expect((await c.get(`/dashboard/payouts/${payout}`)).html).toContain(payout);
    const pdf = await fetch(`${t.url}/dashboard/invoices/${o.invoiceId}/pdf`, { headers: { cookie: `till_dashboard=${c.cookie('till_dashboard')}` } });
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    expect((await c.get('/dashboard/invoices?status=cancelled')).html).not.toContain(`/dashboard/invoices/${o.invoiceId}"`);
    expect((await c.get('/dashboard/subscriptions/99999999')).status).toBe(404);
    expect((await c.get('/dashboard/disputes/dp_nope')).status).toBe(404);
  });

  it('actions in the pages are seen by the API', async () => {
    const c = await signedIn();
    const key = m.keys.test.secret;
    const voided = await c.submit(`/dashboard/invoices/${o.voidableInvoiceId}`, `/dashboard/invoices/${o.voidableInvoiceId}/void`);
    expect(voided.status).toBe(303);
    expect((await t.call('GET', `/v1/invoices/${o.voidableInvoiceId}`, { key })).json.status).toBe('cancelled');
    const after = await c.get(`/dashboard/invoices/${o.voidableInvoiceId}?done=voided`);
    expect(after.html).toContain('The invoice was voided.');
    expect(after.html).not.toContain('/void"');

    expect((await c.submit(`/dashboard/payment-links/${o.linkId}`, `/dashboard/payment-links/${o.linkId}/deactivate`)).status).toBe(303);
    const link = await t.call('GET', `/v1/PaymentLink?$filter=id eq ${o.linkId}`, { apiKey: key });
    expect(link.json.value[0].status).toBe('Inactive');
    expect((await c.submit(`/dashboard/payment-links/${o.linkId}`, `/dashboard/payment-links/${o.linkId}/activate`)).status).toBe(303);

    expect((await c.submit(`/dashboard/subscriptions/${o.subscriptionId}`, `/dashboard/subscriptions/${o.subscriptionId}/pause`)).status).toBe(303);
    expect((await t.call('GET', `/v1/subscriptions/${o.subscriptionId}`, { key })).json.data.status).toBe('paused');
    expect((await c.submit(`/dashboard/subscriptions/${o.subscriptionId}`, `/dashboard/subscriptions/${o.subscriptionId}/resume`)).status).toBe(303);
    expect((await t.call('GET', `/v1/subscriptions/${o.subscriptionId}`, { key })).json.data.status).toBe('active');
  });

  it('a restricted key without a section scope is refused on its page and its form POST; a POST without the form token is refused', async () => {
    const reader = await signedIn(await restrictedKey(t, m, ['subscription.read', 'invoice.read']));
    expect((await reader.get('/dashboard/subscriptions')).status).toBe(200);
    const page = await reader.get(`/dashboard/invoices/${o.invoiceId}`);
    expect(page.html).not.toContain('/void');
    const csrf = /name="csrf" value="([^"]+)"/.exec((await reader.get('/dashboard/subscriptions')).html)?.[1] ?? '';
    for (const path of [
      '/dashboard/payment-links',
      '/dashboard/plans',
      '/dashboard/products',
      '/dashboard/payouts',
      '/dashboard/transfers',
      '/dashboard/disputes',
    ])
      expect((await reader.get(path)).status, path).toBe(403);
    expect((await reader.post(`/dashboard/invoices/${o.invoiceId}/void`, { csrf })).status).toBe(403);
    expect((await reader.post(`/dashboard/subscriptions/${o.subscriptionId}/cancel`, { csrf, when: 'now' })).status).toBe(403);
    expect((await reader.post(`/dashboard/plans/${o.planId}/archive`, { csrf })).status).toBe(403);
    expect((await t.call('GET', `/v1/invoices/${o.invoiceId}`, { key: m.keys.test.secret })).json.status).not.toBe('cancelled');

    const owner = await signedIn();
    await owner.get(`/dashboard/plans/${o.planId}`);
    expect((await owner.post(`/dashboard/plans/${o.planId}/archive`, {})).status).toBe(403);
    expect((await t.call('GET', `/v1/plans/${o.planId}`, { key: m.keys.test.secret })).json.data.status).not.toBe('archived');
  });
});
