// The payer's rejection of an invoice, played by the test helper POST /v1/test-helpers/invoices/{id}/reject:
// a rejected invoice cannot be paid anywhere (a checkout session, the hosted page, the Commerce
// payinvoice), and the Commerce interface, whose status list has no rejected invoice, shows it Cancelled.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { useTestServer } from '../support/server.js';
import { confirmWithCard, invoiceEvents, newInvoice, oneTimeSession } from '../support/billing.js';

const clock = new ManualClock(new Date());
const t = useTestServer({ clock });
const sk = () => t.merchantA.keys.test.secret;
const pk = () => t.merchantA.keys.test.publishable;
const reject = (id: number, key = sk()) => t.call('POST', `/v1/test-helpers/invoices/${id}/reject`, { key });
const card = { name: 'Ana Lopez', cardNumber: '4242424242424242', expiryDate: `12/${(new Date().getUTCFullYear() + 3) % 100}`, cvv: '123' };

describe('rejectTestInvoice', () => {
  it('rejects an open invoice; a repeat answers it unchanged; no event', async () => {
    const inv = await newInvoice(t, sk());
    const res = await reject(inv.id);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ id: inv.id, object: 'invoice', status: 'rejected', amountPaid: 0, voidedAt: null, paidAt: null });
    const again = await reject(inv.id);
    expect(again.status).toBe(200);
    expect(again.json).toEqual(res.json);
    expect((await t.call('GET', `/v1/invoices/${inv.id}`, { key: sk() })).json.status).toBe('rejected');
    expect(await invoiceEvents(t, inv.id)).toEqual([]);
  });

  it("refuses a paid, partly paid, cancelled or draft invoice with 409 invalid_state; another merchant's is 404, a live key 403", async () => {
    const paid = await newInvoice(t, sk());
    expect((await confirmWithCard(t, pk(), (await oneTimeSession(t, sk(), { invoiceId: paid.id })).json)).status).toBe(200);
    const cancelled = await newInvoice(t, sk());
    await t.call('POST', `/v1/invoices/${cancelled.id}/void`, { key: sk() });
    const [partly, draft] = [await newInvoice(t, sk()), await newInvoice(t, sk())];
    await t.database.db.updateTable('invoices').set({ status: 'partially_paid', amount_paid: '10' }).where('id', '=', partly.id).execute();
    await t.database.db.updateTable('invoices').set({ status: 'draft' }).where('id', '=', draft.id).execute();
    for (const inv of [paid, partly, cancelled, draft]) {
      const res = await reject(inv.id);
      expect(res.status, `invoice ${inv.id}`).toBe(409);
      expect(res.json.error.code).toBe('invalid_state');
    }
    const open = await newInvoice(t, sk());
    expect((await reject(open.id, t.merchantB.keys.test.secret)).status).toBe(404);
    const live = await reject(open.id, t.merchantA.keys.live.secret);
    expect(live.status).toBe(403);
    expect(live.json.error.code).toBe('livemode_not_allowed');
    expect((await t.call('GET', `/v1/invoices/${open.id}`, { key: sk() })).json.status).toBe('pending');
  });
});

describe('a rejected invoice cannot be paid', () => {
  it('a checkout session for it answers 409 invoice_not_payable (rule 6d)', async () => {
    const inv = await newInvoice(t, sk());
    await reject(inv.id);
    const res = await oneTimeSession(t, sk(), { invoiceId: inv.id });
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ type: 'conflict', code: 'invoice_not_payable' });
  });

  it('Commerce shows it Cancelled and payinvoice refuses it as a cancelled one; the hosted page offers no way to pay', async () => {
    const [rejected, cancelled] = [await newInvoice(t, sk()), await newInvoice(t, sk())];
    await reject(rejected.id);
    await t.call('POST', `/v1/invoices/${cancelled.id}/void`, { key: sk() });
    expect((await t.call('GET', `/v1/invoice/${rejected.id}`, { apiKey: sk() })).json.status).toBe('Cancelled');
    const pay = (id: number) => t.call('POST', '/api/payment/payinvoice', { apiKey: sk(), body: { invoiceId: id, paymentOptionId: 1, card } });
    const [refused, asCancelled] = [await pay(rejected.id), await pay(cancelled.id)];
    expect(asCancelled.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBe(asCancelled.status);
    expect(refused.json.error).toMatchObject({ type: asCancelled.json.error.type, code: 'invoice_not_payable' });
    const page = await fetch(rejected.hostedUrl.replace(/^https?:\/\/[^/]+/, t.url));
    const html = await page.text();
    expect(html).toContain('data-notice="rejected"');
    expect(html).not.toContain('data-pay=');
  });
});

describe('the Commerce invoice list', () => {
  it("finds a rejected invoice under Status eq 'Cancelled' (it reads Cancelled there) and leaves it out of ne", async () => {
    const [rejected, cancelled, open] = [await newInvoice(t, sk()), await newInvoice(t, sk()), await newInvoice(t, sk())];
    await reject(rejected.id);
    await t.call('POST', `/v1/invoices/${cancelled.id}/void`, { key: sk() });
    const ids = async (filter: string) => {
      const res = await t.call('GET', `/v1/invoice?$filter=${encodeURIComponent(filter)}&$top=100`, { apiKey: sk() });
      expect(res.status, res.text).toBe(200);
      return (res.json.value as { id: number }[]).map((i) => i.id);
    };
    const cancelledIds = await ids("status eq 'Cancelled'");
    expect(cancelledIds).toEqual(expect.arrayContaining([rejected.id, cancelled.id]));
    expect(cancelledIds).not.toContain(open.id);
    const others = await ids("status ne 'Cancelled'");
    expect(others).toContain(open.id);
    expect(others).not.toContain(rejected.id);
    expect(others).not.toContain(cancelled.id);
  });
});
