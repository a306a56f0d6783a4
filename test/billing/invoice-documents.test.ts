// An invoice's PDF (`getInvoicePdf`) and emailing it (`sendInvoice`): the file itself, its text as
// poppler reads it, the outbox message with the PDF attached, and the states that cannot be sent.
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/server.js';
import { delivered } from '../support/events.js';
import { describeWithPdftotext, pdfText } from '../support/pdftotext.js';

const t = useTestServer();
const sk = () => t.merchantA.keys.test.secret;

const future = new Date().getUTCFullYear() + 2;
const newInvoice = async (body: Record<string, unknown> = {}) => {
  const res = await t.call('POST', '/v1/invoices', {
    key: sk(),
    body: {
      customer: { email: 'ana@example.com', firstName: 'Ana', lastName: 'Lopez' },
      currency: 'USD',
      lineItems: [{ name: 'Consulting', quantity: 3, unitAmount: 1200.5 }],
      ...body,
    },
  });
  expect(res.status, res.text).toBe(201);
  return res.json;
};
/** GET of a binary answer: status, headers and the bytes. */
async function download(path: string, key = sk()) {
  const res = await fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}
const invoiceEvents = async (id: number) =>
  (
    await t.database.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('merchant_id', '=', t.merchantA.merchantId)
      .where('type', 'like', 'invoice.%')
      .orderBy('seq')
      .execute()
  )
    .map(delivered)
    .filter((e) => (e.data as { id: number }).id === id)
    .map((e) => e.type);
const messagesTo = async (to: string) => (await t.call('GET', `/v1/test-helpers/messages?to=${encodeURIComponent(to)}`, { key: sk() })).json.data;

describe('GET /v1/invoices/{id}/pdf', () => {
  it('answers the invoice as application/pdf, a real PDF file, named after its number', async () => {
    const inv = await newInvoice();
    const res = await download(`/v1/invoices/${inv.id}/pdf`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/pdf/);
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${inv.invoiceNumber}.pdf"`);
    expect(res.body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(res.body.subarray(-6).toString('latin1')).toContain('%%EOF');
  });

  it("answers 404 for another merchant's invoice, the other mode's, and an unknown one, as JSON", async () => {
    const inv = await newInvoice();
    for (const key of [t.merchantB.keys.test.secret, t.merchantA.keys.live.secret]) {
      const res = await t.call('GET', `/v1/invoices/${inv.id}/pdf`, { key });
      expect(res.status).toBe(404);
      expect(res.json.error).toMatchObject({ code: 'resource_not_found' });
    }
    expect((await t.call('GET', '/v1/invoices/999999999/pdf', { key: sk() })).status).toBe(404);
  });
});

describeWithPdftotext('the PDF text (pdftotext)', () => {
  it('shows merchant, payer, number, dates, lines, tax, discount, totals, paid and due, and status, amounts exact', async () => {
    const due = new Date(Date.now() + 14 * 86_400_000);
    const inv = await newInvoice({
      taxRate: 8.25,
      discount: 10,
      dueDate: due.toISOString(),
      notes: 'Thank you for your business',
      description: 'November work',
      lineItems: [
        { name: 'Consulting', quantity: 3, unitAmount: 1200.5 },
        { name: 'Travel', description: 'Train to Lyon', quantity: 1, unitAmount: 45.25, taxRate: 0 },
      ],
    });
    const text = pdfText((await download(`/v1/invoices/${inv.id}/pdf`)).body);
    const merchant = await t.database.db.selectFrom('merchants').select('name').where('id', '=', t.merchantA.merchantId).executeTakeFirstOrThrow();
    expect(text).toContain(merchant.name);
    expect(text).toContain('INVOICE');
    expect(text).toContain(`Number: ${inv.invoiceNumber}`);
    expect(text).toContain('Status: Pending');
    expect(text).toContain(`Issued: ${inv.createdAt.slice(0, 10)}`);
    expect(text).toContain(`Due: ${due.toISOString().slice(0, 10)}`);
    expect(text).toContain('Ana Lopez');
    expect(text).toContain('ana@example.com');
    expect(text).toContain('November work');
    // 3 × 1,200.50 = 3,601.50 at 8.25% = 297.12 (297.12375 half-up); 45.25 at 0%.
    expect(text).toMatch(/Consulting\s+3\s+1,200\.50 USD\s+8\.25%\s+3,601\.50 USD/);
    expect(text).toMatch(/Travel\s+1\s+45\.25 USD\s+0%\s+45\.25 USD/);
    expect(text).toContain('Train to Lyon');
    expect(text).toMatch(/Subtotal\s+3,646\.75 USD/);
    expect(text).toMatch(/Tax\s+297\.12 USD/);
    expect(text).toMatch(/Discount\s+-10\.00 USD/);
    expect(text).toMatch(/Total\s+3,933\.87 USD/);
    expect(text).toMatch(/Amount paid\s+0\.00 USD/);
    expect(text).toMatch(/Amount due\s+3,933\.87 USD/);
    expect(text).toContain('Thank you for your business');
  });

  it("prints each currency's minor units exactly (JPY none, BHD three) and the current status", async () => {
    const yen = await newInvoice({ currency: 'JPY', lineItems: [{ name: 'Tea set', quantity: 2, unitAmount: 123456 }] });
    const yenText = pdfText((await download(`/v1/invoices/${yen.id}/pdf`)).body);
    expect(yenText).toMatch(/Total\s+246,912 JPY/);
    const dinar = await newInvoice({ currency: 'BHD', lineItems: [{ name: 'Dates', quantity: 1, unitAmount: 1234.567 }] });
    await t.call('POST', `/v1/invoices/${dinar.id}/void`, { key: sk() });
    const dinarText = pdfText((await download(`/v1/invoices/${dinar.id}/pdf`)).body);
    expect(dinarText).toMatch(/Total\s+1,234\.567 BHD/);
    expect(dinarText).toContain('Status: Cancelled');
    expect(dinarText).toMatch(/Voided: \d{4}-\d\d-\d\d/);
  });

  it('keeps a hundred lines over several pages, and shows names outside Latin-1 without failing', async () => {
    const lineItems = Array.from({ length: 100 }, (_, i) => ({ name: `Item ${i + 1}`, quantity: 1, unitAmount: 1 }));
    const inv = await newInvoice({ lineItems, customer: { email: 'lukasz@example.com', firstName: 'Łukasz', lastName: 'Żółć 王' } });
    const res = await download(`/v1/invoices/${inv.id}/pdf`);
    expect(res.status).toBe(200);
    const text = pdfText(res.body);
    expect(text).toContain('Item 1 ');
    expect(text).toContain('Item 100');
    expect(text.split('\f').filter((page) => page.trim()).length).toBeGreaterThan(1);
    expect(text).toMatch(/Total\s+100\.00 USD/);
    // Ż and ć lose their accents; ł and 王 have no Latin-1 form.
    expect(text).toContain('?ukasz Zó?c ?');
  });

  it('the emailed PDF is the invoice as sent', async () => {
    // A recipient of its own: on PostgreSQL the test database keeps earlier runs' messages.
    const to = `pdf.mail.${Date.now()}@example.com`;
    const inv = await newInvoice({ customer: { email: to, firstName: 'Pia' } });
    await t.call('POST', `/v1/invoices/${inv.id}/send`, { key: sk() });
    const row = await t.database.db
      .selectFrom('message_attachments')
      .innerJoin('messages', 'messages.id', 'message_attachments.message_id')
      .select(['filename', 'content_type', 'content'])
      .where('messages.recipient', '=', to)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ filename: `${inv.invoiceNumber}.pdf`, content_type: 'application/pdf' });
    const text = pdfText(Buffer.from(row.content));
    expect(text).toContain(`Number: ${inv.invoiceNumber}`);
    expect(text).toContain('Status: Sent');
  });
});

describe('POST /v1/invoices/{id}/send', () => {
  it('emails the payer a link to pay it with the PDF attached: pending becomes sent, invoice.sent', async () => {
    const inv = await newInvoice({ customer: { email: 'send.once@example.com' } });
    const res = await t.call('POST', `/v1/invoices/${inv.id}/send`, { key: sk() });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ id: inv.id, object: 'invoice', status: 'sent' });
    expect(await invoiceEvents(inv.id)).toEqual(['invoice.sent']);
    const [message] = await messagesTo('send.once@example.com');
    expect(message).toMatchObject({ channel: 'email', kind: 'invoice', subject: `Invoice ${inv.invoiceNumber}` });
    expect(message.body).toContain(`Pay it at ${inv.hostedUrl}`);
    expect(message.body).toContain('3,601.50 USD due');
    expect(message.body).toContain(`attached as a PDF (${inv.invoiceNumber}.pdf)`);
  });

  it('sends a sent invoice again as a reminder, keeping its status', async () => {
    const inv = await newInvoice({ send: true, customer: { email: 'remind.me@example.com' } });
    const again = await t.call('POST', `/v1/invoices/${inv.id}/send`, { key: sk() });
    expect(again.json.status).toBe('sent');
    expect(await invoiceEvents(inv.id)).toEqual(['invoice.sent', 'invoice.sent']);
    expect(await messagesTo('remind.me@example.com')).toHaveLength(2);
  });

  it('refuses a cancelled or paid invoice with 409 invalid_state, and sends nothing', async () => {
    const inv = await newInvoice({ customer: { email: 'never.sent@example.com' } });
    await t.call('POST', `/v1/invoices/${inv.id}/void`, { key: sk() });
    const res = await t.call('POST', `/v1/invoices/${inv.id}/send`, { key: sk() });
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({ code: 'invalid_state', message: `Invoice ${inv.id} is cancelled and cannot be sent.` });

    const s = await t.call('POST', '/v1/checkout-sessions', {
      key: sk(),
      body: { amount: 12, currency: 'USD', mode: 'embedded', paymentType: 'oneTime', customerEmail: 'never.sent@example.com' },
    });
    const pk = t.merchantA.keys.test.publishable;
    const pm = await t.call('POST', `/v1/checkout-sessions/${s.json.id}/tokenize`, {
      key: pk,
      clientSecret: s.json.clientSecret,
      body: { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: future, cvc: '123' },
    });
    const confirmed = await t.call('POST', `/v1/checkout-sessions/${s.json.id}/confirm`, {
      key: pk,
      clientSecret: s.json.clientSecret,
      body: { paymentMethodId: pm.json.id },
    });
    const paidId = (await t.call('GET', `/v1/checkout-sessions/${s.json.id}`, { key: sk() })).json.invoiceId;
    expect(confirmed.json.paymentStatus).toBe('paid');
    const paid = await t.call('POST', `/v1/invoices/${paidId}/send`, { key: sk() });
    expect(paid.status).toBe(409);
    expect(paid.json.error.code).toBe('invalid_state');
    expect((await messagesTo('never.sent@example.com')).filter((m: { kind: string }) => m.kind === 'invoice')).toEqual([]);
  });

  it('refuses an invoice without a payer email with 400 validation_error', async () => {
    const s = await t.call('POST', '/v1/checkout-sessions', {
      key: sk(),
      body: { amount: 30, currency: 'USD', mode: 'embedded', paymentType: 'oneTime', captureMethod: 'manual' },
    });
    const pk = t.merchantA.keys.test.publishable;
    const pm = await t.call('POST', `/v1/checkout-sessions/${s.json.id}/tokenize`, {
      key: pk,
      clientSecret: s.json.clientSecret,
      body: { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: future, cvc: '123' },
    });
    await t.call('POST', `/v1/checkout-sessions/${s.json.id}/confirm`, { key: pk, clientSecret: s.json.clientSecret, body: { paymentMethodId: pm.json.id } });
    const invoiceId = (await t.call('GET', `/v1/checkout-sessions/${s.json.id}`, { key: sk() })).json.invoiceId;
    expect((await t.call('GET', `/v1/invoices/${invoiceId}`, { key: sk() })).json).toMatchObject({ status: 'pending', customer: { email: null } });
    const res = await t.call('POST', `/v1/invoices/${invoiceId}/send`, { key: sk() });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: 'validation_error', param: 'customer.email' });
    expect(await invoiceEvents(invoiceId)).toEqual([]);
  });

  it("answers 404 for another merchant's invoice", async () => {
    const inv = await newInvoice();
    expect((await t.call('POST', `/v1/invoices/${inv.id}/send`, { key: t.merchantB.keys.test.secret })).status).toBe(404);
  });
});
