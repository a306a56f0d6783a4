// The Commerce subscription catalog (issue 16 §2), products and inventory items, over HTTP on a real
// database: the products are the Checkout interface's /v1/products rows (each interface with its
// spelling), PATCH changes only the fields sent, what DELETE refuses, the OData lists, and the
// inventory's serial numbers (unique per product) and status moves. Plans: catalog-plans.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer({ rateLimitScale: 100 });
let m: MerchantCredentials;
beforeAll(async () => {
  m = await t.newMerchant('Catalog merchant');
});

const sk = () => m.keys.test.secret;
const commerce = (method: string, path: string, body?: unknown, key = sk()) => t.call(method, path, { apiKey: key, body });
const odata = (path: string, query: Record<string, string>, key = sk()) => t.call('GET', `${path}?${new URLSearchParams(query).toString()}`, { apiKey: key });
const IMG = (n: number) => `https://cdn.example.com/img/${n}.jpg`;

async function product(body: Record<string, unknown> = {}) {
  const res = await commerce('POST', '/v1/SubscriptionProduct', { name: 'Barista Pro', ...body });
  expect(res.status, res.text).toBe(201);
  return res.json;
}
async function item(productId: number, serialNumber: string, status?: string) {
  return commerce('POST', '/v1/SubscriptionInventoryItem', { productId, serialNumber, ...(status ? { status } : {}) });
}

describe('subscription products', () => {
  it('are the Checkout interface products: created on either, read on the other with its spelling', async () => {
    const p = await product({ description: 'Dual boiler', subscriptionProductType: 'Physical', media: [{ mediaUrl: IMG(1) }, { mediaUrl: IMG(2) }] });
    expect(p).toMatchObject({
      merchantId: m.merchantId,
      name: 'Barista Pro',
      description: 'Dual boiler',
      subscriptionProductType: 'Physical',
      media: [
        { mediaUrl: IMG(1), isPrimary: true },
        { mediaUrl: IMG(2), isPrimary: false },
      ],
    });
    const checkout = await t.call('GET', `/v1/products/${p.id}`, { key: sk() });
    expect(checkout.json).toMatchObject({ id: p.id, object: 'product', name: 'Barista Pro', type: 'physical', createdAt: p.createdDateTime });

    const made = await t.call('POST', '/v1/products', { key: sk(), body: { name: 'Made on Checkout', type: 'digital' } });
    const listed = await odata('/v1/SubscriptionProduct', { $filter: `id eq ${made.json.id}` });
    expect(listed.json.value).toEqual([
      {
        id: made.json.id,
        merchantId: m.merchantId,
        name: 'Made on Checkout',
        description: null,
        subscriptionProductType: 'Digital',
        createdDateTime: made.json.createdAt,
      },
    ]);
    expect((await product()).subscriptionProductType).toBe('Service'); // the default
  });

  it('keep at most one primary image (400 on media), and carry media in the list only with $expand=Media', async () => {
    const twice = await commerce('POST', '/v1/SubscriptionProduct', {
      name: 'Two primaries',
      media: [
        { mediaUrl: IMG(1), isPrimary: true },
        { mediaUrl: IMG(2), isPrimary: true },
      ],
    });
    expect(twice.status).toBe(400);
    expect(twice.json.error).toMatchObject({ code: 'validation_error', param: 'media' });
    const p = await product({ media: [{ mediaUrl: IMG(3) }, { mediaUrl: IMG(4), isPrimary: true }] });
    expect(p.media).toEqual([
      { mediaUrl: IMG(3), isPrimary: false },
      { mediaUrl: IMG(4), isPrimary: true },
    ]);
    const plain = await odata('/v1/SubscriptionProduct', { $filter: `id eq ${p.id}` });
    expect(plain.json.value[0].media).toBeUndefined();
    const expanded = await odata('/v1/SubscriptionProduct', { $filter: `id eq ${p.id}`, $expand: 'Media' });
    expect(expanded.json.value[0].media).toEqual(p.media);
    const selected = await odata('/v1/SubscriptionProduct', { $filter: `id eq ${p.id}`, $expand: 'Media', $select: 'name' });
    expect(selected.json.value).toEqual([{ id: p.id, name: 'Barista Pro', media: p.media }]);
    expect((await odata('/v1/SubscriptionProduct', { $expand: 'Plans' })).json.error).toMatchObject({ code: 'parameter_invalid', param: '$expand' });
  });

  it('PATCH changes only the fields sent; media replaces the list; null clears the description', async () => {
    const p = await product({ description: 'Old', subscriptionProductType: 'Physical', media: [{ mediaUrl: IMG(5) }] });
    const renamed = await commerce('PATCH', `/v1/SubscriptionProduct/${p.id}`, { name: 'Barista Max' });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.json).toEqual({ ...p, name: 'Barista Max' });
    const changed = await commerce('PATCH', `/v1/SubscriptionProduct/${p.id}`, {
      description: null,
      media: [{ mediaUrl: IMG(6) }, { mediaUrl: IMG(7), isPrimary: true }],
    });
    expect(changed.json).toEqual({
      ...p,
      name: 'Barista Max',
      description: null,
      media: [
        { mediaUrl: IMG(6), isPrimary: false },
        { mediaUrl: IMG(7), isPrimary: true },
      ],
    });
    const typed = await commerce('PATCH', `/v1/SubscriptionProduct/${p.id}`, { subscriptionProductType: 'Digital' });
    expect(typed.json).toMatchObject({ name: 'Barista Max', description: null, subscriptionProductType: 'Digital' });
    expect((await t.call('GET', `/v1/products/${p.id}`, { key: sk() })).json).toMatchObject({ name: 'Barista Max', description: null, type: 'digital' });
    expect((await commerce('PATCH', `/v1/SubscriptionProduct/${p.id}`, {})).status).toBe(400); // minProperties
    const foreign = await commerce('PATCH', `/v1/SubscriptionProduct/${p.id}`, { name: 'Taken' }, t.merchantB.keys.test.secret);
    expect(foreign.status).toBe(404);
  });

  it('DELETE removes an unused product; a product with plans (archived too) is kept, one with items until they go', async () => {
    const unused = await product();
    expect((await commerce('DELETE', `/v1/SubscriptionProduct/${unused.id}`)).status).toBe(204);
    expect((await t.call('GET', `/v1/products/${unused.id}`, { key: sk() })).status).toBe(404);
    expect((await commerce('DELETE', `/v1/SubscriptionProduct/${unused.id}`)).status).toBe(404);

    const withPlan = await product();
    const plan = await commerce('POST', '/v1/SubscriptionPlan', {
      productId: withPlan.id,
      name: 'Monthly',
      amount: '10.00',
      currency: 'USD',
      timeUnit: 'Month',
    });
    expect((await commerce('DELETE', `/v1/SubscriptionPlan/${plan.json.id}`)).json.status).toBe('Archived');
    const refused = await commerce('DELETE', `/v1/SubscriptionProduct/${withPlan.id}`);
    expect(refused.status).toBe(409);
    expect(refused.json.error).toMatchObject({ type: 'conflict', code: 'invalid_state' });
    expect((await t.call('GET', `/v1/products/${withPlan.id}`, { key: sk() })).status).toBe(200);

    const withItem = await product();
    const unit = await item(withItem.id, 'SN-DEL-1');
    expect((await commerce('DELETE', `/v1/SubscriptionProduct/${withItem.id}`)).status).toBe(409);
    expect((await commerce('DELETE', `/v1/SubscriptionInventoryItem/${unit.json.id}`)).status).toBe(204);
    expect((await commerce('DELETE', `/v1/SubscriptionProduct/${withItem.id}`)).status).toBe(204);
    expect((await commerce('DELETE', `/v1/SubscriptionProduct/${(await product()).id}`, undefined, t.merchantB.keys.test.secret)).status).toBe(404);
  });

  it('list as OData: $filter, $orderby, $top, $skip, $count and a next link; test and live keys see the same products', async () => {
    const other = await t.newMerchant('Catalog list');
    const key = other.keys.test.secret;
    for (const [name, type] of [
      ['Beans', 'Physical'],
      ['Guides', 'Digital'],
      ['Grinder', 'Physical'],
      ['Support', 'Service'],
    ]) {
      expect((await commerce('POST', '/v1/SubscriptionProduct', { name, subscriptionProductType: type }, key)).status).toBe(201);
    }
    const physical = await odata('/v1/SubscriptionProduct', { $filter: "subscriptionProductType eq 'Physical'", $orderby: 'name asc', $count: 'true' }, key);
    expect(physical.json['@odata.count']).toBe(2);
    expect(physical.json.value.map((p: any) => p.name)).toEqual(['Beans', 'Grinder']);
    const paged = await odata('/v1/SubscriptionProduct', { $top: '2', $skip: '1', $count: 'true' }, key);
    expect(paged.json.value.map((p: any) => p.name)).toEqual(['Grinder', 'Guides']); // newest first
    expect(paged.json['@odata.count']).toBe(4);
    expect(paged.json['@odata.nextLink']).toBe('/v1/SubscriptionProduct?$top=2&$skip=3&$count=true');
    const live = await odata('/v1/SubscriptionProduct', { $count: 'true' }, other.keys.live.secret);
    expect(live.json['@odata.count']).toBe(4);
    expect((await odata('/v1/SubscriptionProduct', { $filter: 'price gt 1' }, key)).json.error).toMatchObject({ code: 'parameter_invalid', param: '$filter' });
    expect((await odata('/v1/SubscriptionProduct', { $count: 'true' }, t.merchantB.keys.test.secret)).json.value.map((p: any) => p.name)).not.toContain(
      'Grinder',
    );
  });
});

describe('inventory items', () => {
  it('are created Available with their product name; serial numbers are unique per product, case-insensitively', async () => {
    const p = await product({ name: 'Espresso machine' });
    const first = await item(p.id, 'BP-0001');
    expect(first.status, first.text).toBe(201);
    expect(first.json).toMatchObject({ productId: p.id, productName: 'Espresso machine', serialNumber: 'BP-0001', status: 'Available' });
    const dup = await item(p.id, 'bp-0001');
    expect(dup.status).toBe(409);
    expect(dup.json.error).toMatchObject({ type: 'conflict', code: 'invalid_state', param: 'serialNumber' });
    const otherProduct = await product({ name: 'Grinder' });
    expect((await item(otherProduct.id, 'BP-0001')).status).toBe(201); // another product's units are counted apart
    const second = await item(p.id, 'BP-0002', 'Reserved');
    expect(second.json.status).toBe('Reserved');
    const clash = await commerce('PATCH', `/v1/SubscriptionInventoryItem/${second.json.id}`, { serialNumber: 'Bp-0001' });
    expect(clash.status).toBe(409);
    const recased = await commerce('PATCH', `/v1/SubscriptionInventoryItem/${first.json.id}`, { serialNumber: 'bp-0001' });
    expect(recased.json).toMatchObject({ id: first.json.id, serialNumber: 'bp-0001', status: 'Available' });
    const foreign = await item((await commerce('POST', '/v1/SubscriptionProduct', { name: 'Not yours' }, t.merchantB.keys.test.secret)).json.id, 'X-1');
    expect(foreign.status).toBe(400);
    expect(foreign.json.error).toMatchObject({ code: 'validation_error', param: 'productId' });
  });

  it('two creates of one serial number at once: one is made, the other answers 409', async () => {
    const p = await product();
    const results = await Promise.all([item(p.id, 'RACE-1'), item(p.id, 'race-1'), item(p.id, 'Race-1')]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
  });

  it('status moves by PATCH to any listed value; PATCH keeps what was not sent; a rented unit cannot be deleted', async () => {
    const p = await product();
    const unit = (await item(p.id, 'MOVE-1')).json;
    const seen: string[] = [];
    for (const status of ['Reserved', 'Rented', 'Available', 'Discontinued', 'Rented']) {
      const moved = await commerce('PATCH', `/v1/SubscriptionInventoryItem/${unit.id}`, { status });
      expect(moved.status, moved.text).toBe(200);
      expect(moved.json).toEqual({ ...unit, status });
      seen.push((await odata('/v1/SubscriptionInventoryItem', { $filter: `id eq ${unit.id}` })).json.value[0].status);
    }
    expect(seen).toEqual(['Reserved', 'Rented', 'Available', 'Discontinued', 'Rented']);
    const refused = await commerce('DELETE', `/v1/SubscriptionInventoryItem/${unit.id}`);
    expect(refused.status).toBe(409);
    expect(refused.json.error).toMatchObject({ code: 'invalid_state' });
    expect((await commerce('PATCH', `/v1/SubscriptionInventoryItem/${unit.id}`, { status: 'Bogus' })).status).toBe(400);
    await commerce('PATCH', `/v1/SubscriptionInventoryItem/${unit.id}`, { status: 'Discontinued' });
    expect((await commerce('DELETE', `/v1/SubscriptionInventoryItem/${unit.id}`)).status).toBe(204);
    expect((await commerce('PATCH', `/v1/SubscriptionInventoryItem/${unit.id}`, { status: 'Available' })).status).toBe(404);
  });

  it('list as OData by status and productId, with $orderby and $count; both modes see the same items', async () => {
    const [a, b] = [await product(), await product()];
    for (const [p, serial, status] of [
      [a, 'L-3', 'Available'],
      [a, 'L-1', 'Available'],
      [a, 'L-2', 'Rented'],
      [b, 'L-4', 'Available'],
    ] as const) {
      expect((await item(p.id, serial, status)).status).toBe(201);
    }
    const free = await odata('/v1/SubscriptionInventoryItem', {
      $filter: `productId eq ${a.id} and status eq 'Available'`,
      $orderby: 'serialNumber asc',
      $count: 'true',
    });
    expect(free.json['@odata.count']).toBe(2);
    expect(free.json.value.map((i: any) => i.serialNumber)).toEqual(['L-1', 'L-3']);
    const live = await odata('/v1/SubscriptionInventoryItem', { $filter: `productId eq ${a.id}`, $count: 'true' }, m.keys.live.secret);
    expect(live.json['@odata.count']).toBe(3);
    const foreign = await odata('/v1/SubscriptionInventoryItem', { $filter: `productId eq ${a.id}`, $count: 'true' }, t.merchantB.keys.test.secret);
    expect(foreign.json).toEqual({ '@odata.count': 0, value: [] });
    expect((await odata('/v1/SubscriptionInventoryItem', { $filter: "status eq 'Lost'" })).json.error).toMatchObject({
      code: 'parameter_invalid',
      param: '$filter',
    });
  });
});
