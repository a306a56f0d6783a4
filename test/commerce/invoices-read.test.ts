// Reading Commerce invoices (issue 15 §2): by id with the key, by public reference, and the OData
// list. The invoice is the same row the Checkout interface's /v1/invoices shows.
import { beforeAll, describe, expect, it } from 'vitest';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { commerceInvoices, consulting } from '../support/commerce.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();
const { sk, created, odata } = commerceInvoices(t);

describe('reading an invoice', () => {
  it('by id with the key; 404 for another merchant or the other mode; the Checkout interface shows the same row', async () => {
    const inv = await created();
    const got = await t.call('GET', `/v1/invoice/${inv.id}`, { apiKey: sk() });
    expect(got.status).toBe(200);
    expect(got.json).toEqual(inv);
    expect((await t.call('GET', `/v1/invoice/${inv.id}`, { apiKey: t.merchantB.keys.test.secret })).status).toBe(404);
    expect((await t.call('GET', `/v1/invoice/${inv.id}`, { apiKey: t.merchantA.keys.live.secret })).status).toBe(404);
    const checkout = await t.call('GET', `/v1/invoices/${inv.id}`, { key: sk() });
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

  it('by public code without a key, with the default expansion; $expand names only the navigations', async () => {
    const inv = await created();
    const path = `/v1/invoice/getByReference(code='${inv.code}')`;
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

  it("getByReference takes Till's public code (128 random bits, URL-safe), never the merchant's referenceNumber", async () => {
    const reference = `NW-${Date.now()}`;
    const [a, b] = [await created({ ...consulting, referenceNumber: reference }), await created()];
    for (const inv of [a, b]) expect(Buffer.from(inv.code, 'base64url').toString('base64url')).toBe(inv.code);
    expect(Buffer.from(a.code, 'base64url')).toHaveLength(16);
    expect(a.code).not.toBe(b.code);
    expect(a.code).not.toBe(a.referenceNumber);
    const byCode = await t.call('GET', `/v1/invoice/getByReference(code='${a.code}')`, {});
    expect([byCode.status, byCode.json.id, byCode.json.sourceInfo.email]).toEqual([200, a.id, 'ana@example.com']);
    for (const guess of [reference, a.invoiceNumber, a.identifier.replaceAll('-', '')]) {
      const res = await t.call('GET', `/v1/invoice/getByReference(code='${guess}')`, {});
      expect([res.status, res.json.error?.code], guess).toEqual([404, 'invoice_not_found']);
    }
    // The merchant finds its invoice by its own reference with the key.
    expect((await odata({ $filter: `referenceNumber eq '${reference}'`, $select: 'id,code' })).json.value).toEqual([{ id: a.id, code: a.code }]);
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

// Last in the file: it spends this client address's look-ups.
describe('public look-ups by code', () => {
  it('are limited per client address: past 20 at once, 429 rate_limit_exceeded with Retry-After', async () => {
    const inv = await created();
    const path = `/v1/invoice/getByReference(code='${inv.code}')`;
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => t.call('GET', i % 2 ? path : `/v1/invoice/getByReference(code='NO-SUCH-CODE')`, {})),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 429).length, statuses.join()).toBeGreaterThan(0);
    expect(
      statuses.every((s) => [200, 404, 429].includes(s)),
      statuses.join(),
    ).toBe(true);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.json.error).toMatchObject({ type: 'rate_limit', code: 'rate_limit_exceeded' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    // A key's own calls are not look-ups: the merchant still reads the invoice.
    expect((await t.call('GET', `/v1/invoice/${inv.id}`, { apiKey: sk() })).status).toBe(200);
  });
});
