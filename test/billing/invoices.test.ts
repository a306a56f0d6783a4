// Merchant invoices: create (exact totals, payer, sending), retrieve, list and void. Paying them
// through checkout sessions (creation rule 6) is in invoice-sessions.test.ts.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { useTestServer } from '../support/server.js';
import { confirmWithCard, INVOICE_LINES, invoiceEvents, newInvoice, oneTimeSession } from '../support/billing.js';

const clock = new ManualClock(new Date());
const t = useTestServer({ clock });
const sk = () => t.merchantA.keys.test.secret;
const pk = () => t.merchantA.keys.test.publishable;

describe('creating an invoice', () => {
  it('calculates exact totals: line subtotals, tax by line or invoice rate, discount; pending and payable', async () => {
    const inv = await newInvoice(t, sk(), { taxRate: 8.25, discount: 10, description: 'November work', notes: 'Thank you', metadata: { order: 'A-1' } });
    // 3 × 120.50 = 361.50, tax 8.25% = 29.82 (29.82375 half-up); 45.25 at its own 0%; 406.75 + 29.82 - 10.
    expect(inv).toMatchObject({
      object: 'invoice',
      status: 'pending',
      currency: 'USD',
      subtotal: 406.75,
      taxAmount: 29.82,
      discount: 10,
      total: 426.57,
      amountDue: 426.57,
      amountPaid: 0,
      amountRefunded: 0,
      taxRate: 8.25,
    });
    expect(inv.lineItems).toMatchObject([
      { name: 'Consulting', quantity: 3, unitAmount: 120.5, taxRate: 8.25, subtotal: 361.5, taxAmount: 29.82, total: 391.32 },
      { name: 'Travel', quantity: 1, unitAmount: 45.25, taxRate: 0, subtotal: 45.25, taxAmount: 0, total: 45.25 },
    ]);
    expect(inv.lineItems[0].id).not.toBe(inv.lineItems[1].id);
    expect(inv.customer).toEqual({ email: 'ana@example.com', firstName: 'Ana', lastName: 'Lopez' });
    expect(inv.hostedUrl).toMatch(new RegExp(`/invoice/${inv.identifier}$`));
    expect(inv.metadata).toEqual({ order: 'A-1' });
  });

  it("addresses a customer of the merchant by customerId, with the customer's email and name", async () => {
    const customer = await t.call('POST', '/v1/customers', { key: sk(), body: { email: 'li.wei@example.com', name: 'Li Wei Chen' } });
    const inv = await newInvoice(t, sk(), { customer: undefined, customerId: customer.json.data.id });
    expect(inv).toMatchObject({ customerId: customer.json.data.id, customer: { email: 'li.wei@example.com', firstName: 'Li', lastName: 'Wei Chen' } });
  });

  it("refuses both customerId and customer, neither, another merchant's customer, a past dueDate and a discount above the invoice", async () => {
    const theirs = await t.call('POST', '/v1/customers', { key: t.merchantB.keys.test.secret, body: { email: 'b@example.com' } });
    const attempt = (body: Record<string, unknown>) =>
      t.call('POST', '/v1/invoices', { key: sk(), body: { currency: 'USD', lineItems: INVOICE_LINES, ...body } });
    expect((await attempt({ customerId: theirs.json.data.id, customer: { email: 'x@example.com' } })).json.error).toMatchObject({
      code: 'validation_error',
      param: 'customer',
    });
    expect((await attempt({})).json.error).toMatchObject({ code: 'validation_error', param: 'customerId' });
    expect((await attempt({ customerId: theirs.json.data.id })).json.error).toMatchObject({ code: 'validation_error', param: 'customerId' });
    const customer = { email: 'x@example.com' };
    expect((await attempt({ customer, dueDate: new Date(clock.now().getTime() - 60_000).toISOString() })).json.error).toMatchObject({
      code: 'validation_error',
      param: 'dueDate',
    });
    const tooMuch = await attempt({ customer, discount: 1000 });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.json.error).toMatchObject({ code: 'validation_error', param: 'discount' });
    expect((await attempt({ customer, lineItems: [{ name: 'Odd', quantity: 1, unitAmount: 1.005 }] })).json.error).toMatchObject({
      code: 'validation_error',
      param: 'lineItems[0].unitAmount',
    });
  });

  it('send: true makes it sent, emails the payer a link to its page, and writes invoice.sent', async () => {
    const inv = await newInvoice(t, sk(), { send: true, customer: { email: 'send.me@example.com' } });
    expect(inv.status).toBe('sent');
    expect((await invoiceEvents(t, inv.id)).map((e) => e.type)).toEqual(['invoice.sent']);
    const messages = await t.call('GET', '/v1/test-helpers/messages?to=send.me@example.com', { key: sk() });
    expect(messages.json.data).toHaveLength(1);
    expect(messages.json.data[0]).toMatchObject({ channel: 'email', kind: 'invoice', to: 'send.me@example.com' });
    expect(messages.json.data[0].body).toContain(inv.hostedUrl);
  });

  it('a refund of a payment on an invoice records the refunded amount and writes invoice.refunded', async () => {
    const inv = await newInvoice(t, sk());
    const s = await oneTimeSession(t, sk(), { invoiceId: inv.id });
    const paid = await confirmWithCard(t, pk(), s.json);
    const refunded = await t.call('POST', `/v1/payments/${paid.json.paymentResult.id}/refund`, { key: sk(), body: { amount: 40 } });
    expect(refunded.status).toBe(200);
    expect((await t.call('GET', `/v1/invoices/${inv.id}`, { key: sk() })).json).toMatchObject({ status: 'paid', amountRefunded: 40 });
    const events = await invoiceEvents(t, inv.id);
    expect(events.map((e) => e.type)).toEqual(['invoice.paid', 'invoice.refunded']);
    expect(events[1]!.data).toMatchObject({ status: 'Paid', amountRefunded: 40 });
  });
});

describe('reading and voiding invoices', () => {
  it("retrieve answers 404 for another merchant's invoice and for the other mode's", async () => {
    const inv = await newInvoice(t, sk());
    expect((await t.call('GET', `/v1/invoices/${inv.id}`, { key: sk() })).json).toMatchObject({ id: inv.id, total: inv.total });
    expect((await t.call('GET', `/v1/invoices/${inv.id}`, { key: t.merchantB.keys.test.secret })).status).toBe(404);
    expect((await t.call('GET', `/v1/invoices/${inv.id}`, { key: t.merchantA.keys.live.secret })).status).toBe(404);
  });

  it('list pages newest first and finds an invoice by its pay-link reference', async () => {
    const [a, b] = [await newInvoice(t, sk()), await newInvoice(t, sk())];
    const page = await t.call('GET', '/v1/invoices?limit=1', { key: sk() });
    expect(page.json).toMatchObject({ object: 'list', hasMore: true });
    expect(page.json.data[0].id).toBe(b.id);
    const next = await t.call('GET', `/v1/invoices?limit=1&startingAfter=${b.id}`, { key: sk() });
    expect(next.json.data[0].id).toBe(a.id);
    const byRef = await t.call('GET', `/v1/invoices?reference=${a.reference}`, { key: sk() });
    expect(byRef.json.data.map((i: { id: number }) => i.id)).toEqual([a.id]);
    expect((await t.call('GET', `/v1/invoices?reference=${a.invoiceNumber}`, { key: sk() })).json.data).toEqual([]);
  });

  it('void cancels an unpaid invoice with invoice.voided; a repeat is a no-op; a paid invoice answers 409', async () => {
    const inv = await newInvoice(t, sk());
    const voided = await t.call('POST', `/v1/invoices/${inv.id}/void`, { key: sk() });
    expect(voided.json).toMatchObject({ status: 'cancelled' });
    expect(voided.json.voidedAt).not.toBeNull();
    expect((await t.call('POST', `/v1/invoices/${inv.id}/void`, { key: sk() })).json).toMatchObject({ status: 'cancelled', voidedAt: voided.json.voidedAt });
    expect((await invoiceEvents(t, inv.id)).map((e) => e.type)).toEqual(['invoice.voided']);

    const paid = await newInvoice(t, sk());
    const s = await oneTimeSession(t, sk(), { invoiceId: paid.id });
    await confirmWithCard(t, pk(), s.json);
    const refused = await t.call('POST', `/v1/invoices/${paid.id}/void`, { key: sk() });
    expect(refused.status).toBe(409);
    expect(refused.json.error.code).toBe('invalid_state');
  });
});
