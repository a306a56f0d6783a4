// Creating a Commerce invoice (issue 15 §2): items and exact totals (the contract's example, the
// rounding, the currency's minor unit), drafts, the validity period and the refusals.
import { describe, expect, it } from 'vitest';
import { commerceInvoices, consulting } from '../support/commerce.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();
const { create, created } = commerceInvoices(t);

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

  it("refuses a referenceNumber the merchant already used in the mode (400 parameter_invalid); another merchant's or the other mode's do not count", async () => {
    const code = `REF-${Date.now()}`;
    expect((await created({ ...consulting, referenceNumber: code })).referenceNumber).toBe(code);
    const again = await create({ ...consulting, referenceNumber: code });
    expect(again.status).toBe(400);
    expect(again.json.error).toMatchObject({ code: 'parameter_invalid', param: 'referenceNumber' });
    for (const key of [t.merchantB.keys.test.secret, t.merchantA.keys.live.secret]) {
      const other = await create({ ...consulting, referenceNumber: code }, key);
      expect(other.status, other.text).toBe(201);
      expect(other.json.referenceNumber).toBe(code);
    }
  });
});
