// A Commerce invoice on its way to the payer (issue 15 §2): its payment methods, the QR code,
// sending it by email and text; and, on the sandbox clock, Overdue past its due date and Expired
// past its validity period.
import { describe, expect, it } from 'vitest';
import { commerceInvoices, consulting } from '../support/commerce.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();
const { sk, created, odata, eventsOf } = commerceInvoices(t);

describe('payment methods, QR code and sending', () => {
  it("PaymentMethods: the merchant's options for the invoice's currency, ids as in merchants.payment_options, switched-off ones with isEnabled false", async () => {
    const m = await t.newMerchant('Options');
    const row = await t.database.db.selectFrom('merchants').select('payment_options').where('id', '=', m.merchantId).executeTakeFirstOrThrow();
    const options = row.payment_options.map((o) => (o.id === 4 ? { ...o, enabled: false } : o.id === 3 ? { ...o, currencies: ['EUR'] } : o));
    await t.database.db
      .updateTable('merchants')
      .set({ payment_options: JSON.stringify(options) })
      .where('id', '=', m.merchantId)
      .execute();
    const inv = await created(consulting, m.keys.test.secret);
    const res = await t.call('GET', `/v1/invoice/${inv.id}/PaymentMethods`, { apiKey: m.keys.test.secret });
    expect(res.status).toBe(200);
    expect(res.json.value).toEqual([
      {
        id: 1,
        code: 'card_visa',
        name: 'Visa',
        paymentMethodId: 'CreditCard',
        paymentProviderTypeId: 'Internal',
        paymentChannel: 'Online',
        isEnabled: true,
        isVerificationRequired: false,
        currencyCode: 'USD',
      },
      {
        id: 2,
        code: 'card_mastercard',
        name: 'Mastercard',
        paymentMethodId: 'CreditCard',
        paymentProviderTypeId: 'Internal',
        paymentChannel: 'Online',
        isEnabled: true,
        isVerificationRequired: false,
        currencyCode: 'USD',
      },
      {
        id: 4,
        code: 'bank_transfer',
        name: 'Bank transfer',
        paymentMethodId: 'BankTransfer',
        paymentProviderTypeId: 'Internal',
        paymentChannel: 'Online',
        isEnabled: false,
        isVerificationRequired: false,
        currencyCode: 'USD',
      },
      {
        id: 5,
        code: 'account_balance',
        name: 'Account balance',
        paymentMethodId: 'AccountBalance',
        paymentProviderTypeId: 'Internal',
        paymentChannel: 'Online',
        isEnabled: true,
        isVerificationRequired: false,
        currencyCode: 'USD',
      },
    ]);
    expect((await t.call('GET', `/v1/invoice/${inv.id}/PaymentMethods`, { apiKey: sk() })).status).toBe(404);
  });

  it('the QR code is a 512 x 512 PNG, without a key; an unknown identifier is 404', async () => {
    const inv = await created();
    const res = await fetch(`${t.url}/v1/invoice/qrcode/${inv.identifier}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    const png = Buffer.from(await res.arrayBuffer());
    expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([512, 512]);
    expect((await fetch(`${t.url}/v1/invoice/qrcode/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
  });

  it('send emails the pay link and makes it Sent with invoice.sent; again is a reminder; another address and a text message on request', async () => {
    const inv = await created({ ...consulting, isDraft: true, sourceInfo: { email: 'payer.send@example.com' } });
    const sent = await t.call('POST', `/v1/invoice/${inv.id}/send`, { apiKey: sk() });
    expect(sent.status).toBe(200);
    expect(sent.json.status).toBe('Sent');
    const again = await t.call('POST', `/v1/invoice/${inv.id}/send`, { apiKey: sk(), body: { email: 'accounts@example.com', sms: '+15551234567' } });
    expect(again.json.status).toBe('Sent');
    const outbox = async (to: string) => (await t.call('GET', `/v1/test-helpers/messages?to=${encodeURIComponent(to)}`, { key: sk() })).json.data;
    const [mail] = await outbox('payer.send@example.com');
    expect(mail).toMatchObject({ channel: 'email', kind: 'invoice' });
    expect(mail.body).toContain(inv.paymentUrl);
    expect(await outbox('accounts@example.com')).toHaveLength(1);
    const [text] = await outbox('+15551234567');
    expect(text).toMatchObject({ channel: 'sms' });
    expect(text.body).toContain(inv.paymentUrl);
    expect(await eventsOf(t.merchantA.merchantId, inv.id)).toEqual(['invoice.sent', 'invoice.sent']);
  });

  it('send without any email is 400 parameter_missing (email); a cancelled invoice is 409 invoice_not_payable', async () => {
    const inv = await created({ currencyCode: 'USD', items: [{ name: 'A', unitCost: 1, quantity: 1 }] });
    const none = await t.call('POST', `/v1/invoice/${inv.id}/send`, { apiKey: sk() });
    expect(none.status).toBe(400);
    expect(none.json.error).toMatchObject({ code: 'parameter_missing', param: 'email' });
    expect((await t.call('POST', `/v1/invoices/${inv.id}/void`, { key: sk() })).status).toBe(200);
    const cancelled = await t.call('POST', `/v1/invoice/${inv.id}/send`, { apiKey: sk(), body: { email: 'x@example.com' } });
    expect(cancelled.status).toBe(409);
    expect(cancelled.json.error.code).toBe('invoice_not_payable');
  });
});

describe('on the sandbox clock', () => {
  it('an unpaid invoice past its paymentDueDate becomes Overdue (invoice.past_due), then past its validTo Expired (invoice.expired), final', async () => {
    const m = await t.newMerchant('Clock');
    const now = Date.now();
    const inv = await created(
      { ...consulting, paymentDueDate: new Date(now + 3_600_000).toISOString(), validTo: new Date(now + 86_400_000).toISOString() },
      m.keys.test.secret,
    );
    const advance = (seconds: number) => t.call('POST', '/v1/test-helpers/clock/advance', { key: m.keys.test.secret, body: { seconds } });
    expect((await advance(2 * 3600)).status).toBe(200);
    expect((await t.call('GET', `/v1/invoice/${inv.id}`, { apiKey: m.keys.test.secret })).json.status).toBe('Overdue');
    expect((await advance(86_400)).status).toBe(200);
    expect((await t.call('GET', `/v1/invoice/${inv.id}`, { apiKey: m.keys.test.secret })).json.status).toBe('Expired');
    expect(await eventsOf(m.merchantId, inv.id)).toEqual(['invoice.past_due', 'invoice.expired']);
    const send = await t.call('POST', `/v1/invoice/${inv.id}/send`, { apiKey: m.keys.test.secret });
    expect(send.status).toBe(409);
    const expired = await odata({ $filter: "status eq 'Expired'", $count: 'true' }, m.keys.test.secret);
    expect(expired.json['@odata.count']).toBe(1);
  });
});
