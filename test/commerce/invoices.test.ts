// The Commerce view of invoices (issue 15 §2): create with items and exact totals, get by id and by
// reference (public), the OData list, PaymentMethods, the QR code and send; expiry and overdue on
// the sandbox clock. The invoice is the same row the Checkout interface's /v1/invoices shows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { delivered } from '../support/events.js';
import { startTestServer, type TestServer } from '../support/server.js';

let t: TestServer;
let sk: string;
beforeAll(async () => {
  t = await startTestServer();
  sk = t.merchantA.keys.test.secret;
});
afterAll(async () => {
  await t?.close();
});

/** The contract's example: 4 x 150 at 10 %, 2 x 89.50 - 9 at 5 %, invoice discount 20, shipping 12.50. */
const consulting = {
  currencyCode: 'USD',
  description: 'Website redesign',
  taxRate: 10,
  discount: 20,
  shippingCost: 12.5,
  sourceInfo: { firstName: 'Ana', lastName: 'Lopez', email: 'ana@example.com', addressLine1: '1 Main St', city: 'Austin', country: 'US' },
  items: [
    { name: 'Consulting hours', unitCost: 150, quantity: 4, invoiceItemTypeId: 'Service' },
    { name: 'USB-C dock', unitCost: 89.5, quantity: 2, discount: 9, taxRate: 5 },
  ],
};

const create = (body: Record<string, unknown>, key = sk) => t.call('POST', '/v1/invoice', { apiKey: key, body });
async function created(body: Record<string, unknown> = consulting, key = sk) {
  const res = await create(body, key);
  expect(res.status, res.text).toBe(201);
  return res.json;
}
const odata = (query: Record<string, string>, key = sk) => t.call('GET', `/v1/invoice?${new URLSearchParams(query).toString()}`, { apiKey: key });
const eventsOf = async (merchantId: number, id: number) =>
  (
    await t.database.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('merchant_id', '=', merchantId)
      .where('type', 'like', 'invoice.%')
      .orderBy('seq')
      .execute()
  )
    .map(delivered)
    .filter((e) => (e.data as { id: number }).id === id)
    .map((e) => e.type);

describe('creating an invoice', () => {
  it('answers the exact totals of the contract example, each item with its own, Pending and payable', async () => {
    const inv = await created();
    expect(inv).toMatchObject({
      status: 'Pending',
      currencyCode: 'USD',
      subTotal: 770,
      taxAmount: 68.5,
      discount: 20,
      shippingCost: 12.5,
      totalCost: 831,
      totalDue: 831,
      totalPaid: 0,
      taxRate: 10,
    });
    expect(inv.items).toMatchObject([
      {
        name: 'Consulting hours',
        unitCost: 150,
        quantity: 4,
        discount: 0,
        taxRate: 10,
        subTotal: 600,
        taxAmount: 60,
        totalCost: 660,
        shippingCost: 0,
        invoiceItemTypeId: 'Service',
        currencyCode: 'USD',
      },
      {
        name: 'USB-C dock',
        unitCost: 89.5,
        quantity: 2,
        discount: 9,
        taxRate: 5,
        subTotal: 170,
        taxAmount: 8.5,
        totalCost: 178.5,
        shippingCost: 0,
        invoiceItemTypeId: 'Product',
      },
    ]);
    expect(inv.identifier).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(inv.items[0].itemIdentifier).not.toBe(inv.items[1].itemIdentifier);
    expect(inv.sourceInfo).toEqual({
      firstName: 'Ana',
      lastName: 'Lopez',
      email: 'ana@example.com',
      phone: null,
      addressLine1: '1 Main St',
      addressLine2: null,
      city: 'Austin',
      region: null,
      postalCode: null,
      country: 'US',
    });
    expect(inv.merchant).toMatchObject({ id: t.merchantA.merchantId, media: [] });
    expect(inv.paymentUrl).toMatch(new RegExp(`/invoice/${inv.identifier}$`));
    expect(inv.qrCodeUrl).toBe(`/v1/invoice/qrcode/${inv.identifier}`);
  });

  it('rounds unitCost x quantity and the tax half away from zero, once each; a Discount item counts negatively; item shipping is in its total', async () => {
    const inv = await created({
      currencyCode: 'USD',
      items: [
        { name: 'Hours', unitCost: 0.25, quantity: 1.5, taxRate: 8.25 }, // 0.375 → 0.38; 0.38 x 8.25 % = 0.03135 → 0.03
        { name: 'Parcel', unitCost: 10.05, quantity: 3, taxRate: 7.5, shippingCost: 4.99 }, // 30.15; 2.26125 → 2.26; 30.15 + 2.26 + 4.99
        { name: 'Loyalty', unitCost: 5, quantity: 1, invoiceItemTypeId: 'Discount' },
      ],
    });
    expect(inv.items.map((i: { subTotal: number; taxAmount: number; totalCost: number }) => [i.subTotal, i.taxAmount, i.totalCost])).toEqual([
      [0.38, 0.03, 0.41],
      [30.15, 2.26, 37.4],
      [5, 0, 5],
    ]);
    expect(inv).toMatchObject({ subTotal: 25.53, taxAmount: 2.29, shippingCost: 0, discount: 0, totalCost: 32.81, totalDue: 32.81 });
  });

  it("works in the currency's minor unit: JPY has none, KWD three", async () => {
    const yen = await created({ currencyCode: 'JPY', taxRate: 10, items: [{ name: 'Tea', unitCost: 333, quantity: 1.5 }] }); // 499.5 → 500; 50
    expect(yen).toMatchObject({ subTotal: 500, taxAmount: 50, totalCost: 550 });
    const dinar = await created({ currencyCode: 'KWD', items: [{ name: 'Oil', unitCost: 1.234, quantity: 3, taxRate: 5 }] }); // 3.702; 0.1851 → 0.185
    expect(dinar).toMatchObject({ subTotal: 3.702, taxAmount: 0.185, totalCost: 3.887 });
  });

  it('creates a Draft with isDraft, and keeps the validity period, due date and return URLs', async () => {
    const inv = await created({
      ...consulting,
      isDraft: true,
      validFrom: '2030-01-01T00:00:00Z',
      validTo: '2030-02-01T00:00:00Z',
      paymentDueDate: '2030-01-15T00:00:00Z',
      successUrl: 'https://shop.example.com/ok',
      cancelUrl: 'https://shop.example.com/no',
    });
    expect(inv).toMatchObject({
      status: 'Draft',
      validFrom: '2030-01-01T00:00:00.000Z',
      validTo: '2030-02-01T00:00:00.000Z',
      paymentDueDate: '2030-01-15T00:00:00.000Z',
      successUrl: 'https://shop.example.com/ok',
      cancelUrl: 'https://shop.example.com/no',
    });
  });

  it('refuses bad input with a 400 naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ validFrom: '2030-02-01T00:00:00Z', validTo: '2030-01-01T00:00:00Z' }, 'validation_error', 'validTo'],
      [{ validTo: '2030-01-01T00:00:00Z', paymentDueDate: '2030-02-01T00:00:00Z' }, 'validation_error', 'paymentDueDate'],
      [{ items: [{ name: 'A', unitCost: 10, quantity: 1, discount: 10.01 }] }, 'validation_error', 'items[0].discount'],
      [{ items: [{ name: 'A', unitCost: 1.005, quantity: 1 }] }, 'validation_error', 'items[0].unitCost'],
      [
        {
          items: [
            { name: 'A', unitCost: 10, quantity: 1 },
            { name: 'Off', unitCost: 11, quantity: 1, invoiceItemTypeId: 'Discount' },
          ],
        },
        'validation_error',
        'items',
      ],
      [{ discount: 10_000 }, 'validation_error', 'discount'],
      [{ currencyCode: 'XAU' }, 'parameter_invalid', 'currencyCode'],
    ];
    for (const [change, code, param] of cases) {
      const res = await create({ ...consulting, ...change });
      expect(res.status, JSON.stringify(change)).toBe(400);
      expect(res.json.error, JSON.stringify(change)).toMatchObject({ code, param });
    }
  });

  it("refuses a referenceNumber already in use (400 parameter_invalid), even another merchant's", async () => {
    const code = `REF-${Date.now()}`;
    expect((await created({ ...consulting, referenceNumber: code })).referenceNumber).toBe(code);
    const again = await create({ ...consulting, referenceNumber: code }, t.merchantB.keys.test.secret);
    expect(again.status).toBe(400);
    expect(again.json.error).toMatchObject({ code: 'parameter_invalid', param: 'referenceNumber' });
  });
});

describe('reading an invoice', () => {
  it('by id with the key; 404 for another merchant or the other mode; the Checkout interface shows the same row', async () => {
    const inv = await created();
    const got = await t.call('GET', `/v1/invoice/${inv.id}`, { apiKey: sk });
    expect(got.status).toBe(200);
    expect(got.json).toEqual(inv);
    expect((await t.call('GET', `/v1/invoice/${inv.id}`, { apiKey: t.merchantB.keys.test.secret })).status).toBe(404);
    expect((await t.call('GET', `/v1/invoice/${inv.id}`, { apiKey: t.merchantA.keys.live.secret })).status).toBe(404);
    const checkout = await t.call('GET', `/v1/invoices/${inv.id}`, { key: sk });
    expect(checkout.json).toMatchObject({
      id: inv.id,
      identifier: inv.identifier,
      reference: inv.referenceNumber,
      status: 'pending',
      total: 831,
      amountDue: 831,
      subtotal: 770,
      taxAmount: 68.5,
      discount: 20,
    });
  });

  it('by reference without a key, with the default expansion; $expand names only the navigations', async () => {
    const inv = await created();
    const path = `/v1/invoice/getByReference(code='${inv.referenceNumber}')`;
    const got = await t.call('GET', path, {});
    expect(got.status).toBe(200);
    expect(got.json).toEqual(inv);
    for (const key of ['merchant', 'sourceInfo', 'destinationInfo', 'items', 'merchantLocation']) expect(got.json).toHaveProperty(key);
    expect((await t.call('GET', `${path}?$expand=items,merchant`, {})).json).toEqual(inv);
    const bad = await t.call('GET', `${path}?$expand=payments`, {});
    expect(bad.status).toBe(400);
    expect(bad.json.error).toMatchObject({ code: 'parameter_invalid', param: '$expand' });
    expect((await t.call('GET', `/v1/invoice/getByReference(code='NO-SUCH-REF')`, {})).status).toBe(404);
  });
});

describe('the OData list', () => {
  let m: MerchantCredentials;
  const ids: number[] = [];
  beforeAll(async () => {
    m = await t.newMerchant('Invoice lister');
    for (const cost of [50, 150, 250, 350, 450])
      ids.push((await created({ currencyCode: 'USD', items: [{ name: 'Work', unitCost: cost, quantity: 1 }] }, m.keys.test.secret)).id);
    await created({ currencyCode: 'EUR', isDraft: true, items: [{ name: 'Draft', unitCost: 999, quantity: 1 }] }, m.keys.test.secret).then((d) =>
      ids.push(d.id),
    );
  });

  it('answers {value}, newest first, with @odata.count only when asked', async () => {
    const all = await odata({}, m.keys.test.secret);
    expect(all.status).toBe(200);
    expect(all.json.value.map((i: { id: number }) => i.id)).toEqual([...ids].reverse());
    expect(all.json).not.toHaveProperty('@odata.count');
    expect(all.json).not.toHaveProperty('@odata.nextLink');
    expect((await odata({ $count: 'true', $top: '1' }, m.keys.test.secret)).json['@odata.count']).toBe(6);
  });

  it('filters with the tenant outside the filter, orders, pages with $top/$skip and @odata.nextLink', async () => {
    const res = await odata({ $filter: "status eq 'Pending' and totalCost gt 100", $orderby: 'totalCost asc', $top: '2', $count: 'true' }, m.keys.test.secret);
    expect(res.json.value.map((i: { totalCost: number }) => i.totalCost)).toEqual([150, 250]);
    expect(res.json['@odata.count']).toBe(4);
    expect(res.json['@odata.nextLink']).toBe(
      `/v1/invoice?$filter=${encodeURIComponent("status eq 'Pending' and totalCost gt 100")}&$orderby=${encodeURIComponent('totalCost asc')}&$top=2&$skip=2&$count=true`,
    );
    const next = await t.call('GET', res.json['@odata.nextLink'], { apiKey: m.keys.test.secret });
    expect(next.json.value.map((i: { totalCost: number }) => i.totalCost)).toEqual([350, 450]);
    expect(next.json).not.toHaveProperty('@odata.nextLink');
    const everyone = await odata({ $filter: 'id gt 0 or id lt 0', $count: 'true' }, m.keys.test.secret);
    expect(everyone.json['@odata.count']).toBe(6);
    expect((await odata({ $filter: "currencyCode eq 'EUR' and status eq 'Draft'" }, m.keys.test.secret)).json.value).toHaveLength(1);
    expect((await odata({ $filter: 'totalDue ge 350' }, m.keys.test.secret)).json.value.map((i: { totalDue: number }) => i.totalDue)).toEqual([999, 450, 350]);
  });

  it('$select returns only the selected fields (and the $expanded navigations)', async () => {
    const res = await odata({ $select: 'id,totalCost,status', $top: '2' }, m.keys.test.secret);
    expect(res.json.value).toEqual([
      { id: ids[5], totalCost: 999, status: 'Draft' },
      { id: ids[4], totalCost: 450, status: 'Pending' },
    ]);
    const withItems = await odata({ $select: 'id', $expand: 'items', $top: '1' }, m.keys.test.secret);
    expect(Object.keys(withItems.json.value[0]).sort()).toEqual(['id', 'items']);
  });

  it('answers 400 parameter_invalid naming the option for an unknown field, a type mismatch, a bad $top', async () => {
    for (const [query, param] of [
      [{ $filter: 'foo eq 1' }, '$filter'],
      [{ $filter: "totalCost eq 'x'" }, '$filter'],
      [{ $filter: "status eq 'Lost'" }, '$filter'],
      [{ $orderby: 'items' }, '$orderby'],
      [{ $select: 'secret' }, '$select'],
      [{ $expand: 'payments' }, '$expand'],
    ] as const) {
      const res = await odata(query as Record<string, string>, m.keys.test.secret);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.json.error, JSON.stringify(query)).toMatchObject({ code: 'parameter_invalid', param });
    }
    expect((await odata({ $top: '101' }, m.keys.test.secret)).status).toBe(400);
  });
});

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
    expect((await t.call('GET', `/v1/invoice/${inv.id}/PaymentMethods`, { apiKey: sk })).status).toBe(404);
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
    const sent = await t.call('POST', `/v1/invoice/${inv.id}/send`, { apiKey: sk });
    expect(sent.status).toBe(200);
    expect(sent.json.status).toBe('Sent');
    const again = await t.call('POST', `/v1/invoice/${inv.id}/send`, { apiKey: sk, body: { email: 'accounts@example.com', sms: '+15551234567' } });
    expect(again.json.status).toBe('Sent');
    const outbox = async (to: string) => (await t.call('GET', `/v1/test-helpers/messages?to=${encodeURIComponent(to)}`, { key: sk })).json.data;
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
    const none = await t.call('POST', `/v1/invoice/${inv.id}/send`, { apiKey: sk });
    expect(none.status).toBe(400);
    expect(none.json.error).toMatchObject({ code: 'parameter_missing', param: 'email' });
    expect((await t.call('POST', `/v1/invoices/${inv.id}/void`, { key: sk })).status).toBe(200);
    const cancelled = await t.call('POST', `/v1/invoice/${inv.id}/send`, { apiKey: sk, body: { email: 'x@example.com' } });
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
