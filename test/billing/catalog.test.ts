// Products, plans and customers of the Checkout & Billing interface: every rule of the document.
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestServer } from '../support/server.js';

const t = useTestServer();
let sk: string;
beforeAll(async () => {
  // A merchant of its own, so list counts are this file's alone.
  sk = (await t.newMerchant('Catalog')).keys.test.secret;
});

const newProduct = async (name = 'Coffee club') => (await t.call('POST', '/v1/products', { key: sk, body: { name, description: 'Beans every month' } })).json;
const newPlan = async (productId: number, extra: Record<string, unknown> = {}) =>
  t.call('POST', '/v1/plans', { key: sk, body: { productId, name: 'Monthly', amount: 19.99, currency: 'usd', interval: 'month', ...extra } });

describe('products', () => {
  it('create answers 201 with the product, type service by default', async () => {
    const res = await t.call('POST', '/v1/products', { key: sk, body: { name: 'Tea club' } });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ object: 'product', name: 'Tea club', description: null, type: 'service' });
    expect(res.json.createdAt).toMatch(/Z$/);
  });

  it('retrieve answers the same product', async () => {
    const created = await newProduct('Retrieved');
    expect((await t.call('GET', `/v1/products/${created.id}`, { key: sk })).json).toEqual(created);
  });

  it('list pages newest first with limit, startingAfter and hasMore', async () => {
    const ids: number[] = [];
    for (const name of ['P1', 'P2', 'P3']) ids.push((await newProduct(name)).id);
    const first = await t.call('GET', '/v1/products?limit=2', { key: sk });
    expect(first.json.object).toBe('list');
    expect(first.json.data.map((p: any) => p.id)).toEqual([ids[2], ids[1]]);
    expect(first.json.hasMore).toBe(true);
    const next = await t.call('GET', `/v1/products?limit=2&startingAfter=${ids[1]}`, { key: sk });
    expect(next.json.data[0].id).toBe(ids[0]);
  });

  it('the default page is 25', async () => {
    for (let i = 0; i < 26; i++) await newProduct(`Bulk ${i}`);
    const page = await t.call('GET', '/v1/products', { key: sk });
    expect(page.json.data).toHaveLength(25);
    expect(page.json.hasMore).toBe(true);
  });
});

describe('plans', () => {
  it('create answers the plan in the envelope, with an exact amount and upper-case currency', async () => {
    const product = await newProduct();
    const res = await newPlan(product.id);
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ success: true, errorCode: null, errorMessage: null });
    expect(res.json.data).toMatchObject({
      object: 'plan',
      productId: product.id,
      amount: 19.99,
      currency: 'USD',
      interval: 'month',
      intervalCount: 1,
      status: 'available',
      active: true,
    });
  });

  it('active: false at creation makes a draft', async () => {
    const product = await newProduct();
    const res = await newPlan(product.id, { active: false });
    expect(res.json.data).toMatchObject({ active: false, status: 'available' });
  });

  it("a product that is not the merchant's is refused with validation_error on productId", async () => {
    const foreign = (await t.call('POST', '/v1/products', { key: t.merchantB.keys.test.secret, body: { name: 'Not yours' } })).json;
    const res = await newPlan(foreign.id);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ success: false, errorCode: 'validation_error', data: { param: 'productId' } });
  });

  it('amounts keep their exact decimal value and respect the currency minor units', async () => {
    const product = await newProduct();
    expect((await newPlan(product.id, { amount: 0.1 })).json.data.amount).toBe(0.1);
    expect((await newPlan(product.id, { amount: 1234567.89 })).json.data.amount).toBe(1234567.89);
    expect((await newPlan(product.id, { amount: 1500, currency: 'JPY' })).json.data.amount).toBe(1500);
    const fractionalYen = await newPlan(product.id, { amount: 1500.5, currency: 'JPY' });
    expect(fractionalYen.status).toBe(400);
    expect(fractionalYen.json).toMatchObject({ errorCode: 'validation_error', data: { param: 'amount' } });
    const stored = await t.database.db
      .selectFrom('plans')
      .select('amount')
      .where('currency', '=', 'USD')
      .where('product_id', '=', product.id)
      .orderBy('id')
      .executeTakeFirstOrThrow();
    expect(stored.amount).toBe('0.1000');
  });

  it('update changes name, description and active', async () => {
    const product = await newProduct();
    const plan = (await newPlan(product.id)).json.data;
    const res = await t.call('PATCH', `/v1/plans/${plan.id}`, { key: sk, body: { name: 'Monthly (new)', description: 'Renamed', active: false } });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ name: 'Monthly (new)', description: 'Renamed', active: false, amount: 19.99 });
  });

  for (const [field, value] of [
    ['amount', 25],
    ['currency', 'EUR'],
    ['interval', 'year'],
    ['intervalCount', 3],
  ] as const) {
    it(`update of ${field} answers 400 field_immutable and changes nothing`, async () => {
      const product = await newProduct();
      const plan = (await newPlan(product.id)).json.data;
      const res = await t.call('PATCH', `/v1/plans/${plan.id}`, { key: sk, body: { name: 'Changed?', [field]: value } });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ success: false, errorCode: 'field_immutable', data: { type: 'invalid_request', param: field } });
      expect((await t.call('GET', `/v1/plans/${plan.id}`, { key: sk })).json.data).toEqual(plan);
    });
  }

  it('archive sets discontinued; archived plans leave the list unless includeArchived=true', async () => {
    const product = await newProduct();
    const kept = (await newPlan(product.id)).json.data;
    const archived = (await newPlan(product.id)).json.data;
    const res = await t.call('DELETE', `/v1/plans/${archived.id}`, { key: sk });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ id: archived.id, status: 'discontinued' });
    const listed = (await t.call('GET', '/v1/plans?limit=100', { key: sk })).json.data.data.map((p: any) => p.id);
    expect(listed).toContain(kept.id);
    expect(listed).not.toContain(archived.id);
    const all = (await t.call('GET', '/v1/plans?limit=100&includeArchived=true', { key: sk })).json.data.data.map((p: any) => p.id);
    expect(all).toContain(archived.id);
    expect((await t.call('DELETE', `/v1/plans/${archived.id}`, { key: sk })).json.data.status).toBe('discontinued');
  });

  it('an archived plan cannot be updated', async () => {
    const product = await newProduct();
    const plan = (await newPlan(product.id)).json.data;
    await t.call('DELETE', `/v1/plans/${plan.id}`, { key: sk });
    const res = await t.call('PATCH', `/v1/plans/${plan.id}`, { key: sk, body: { name: 'Too late' } });
    expect(res.status).toBe(409);
    expect(res.json.errorCode).toBe('invalid_state');
  });
});

describe('customers', () => {
  it('create answers 201 with the customer in the envelope', async () => {
    const res = await t.call('POST', '/v1/customers', {
      key: sk,
      body: { email: 'ana@example.com', name: 'Ana', phone: '+15555550100', metadata: { crm: '77' } },
    });
    expect(res.status).toBe(201);
    expect(res.json.data).toMatchObject({
      object: 'customer',
      email: 'ana@example.com',
      name: 'Ana',
      phone: '+15555550100',
      externalId: null,
      metadata: { crm: '77' },
      hasPaymentMethod: false,
    });
  });

  it('without externalId, create returns the existing customer with the same email (200)', async () => {
    const first = await t.call('POST', '/v1/customers', { key: sk, body: { email: 'repeat@example.com', name: 'First' } });
    const again = await t.call('POST', '/v1/customers', { key: sk, body: { email: 'Repeat@Example.com', name: 'Second' } });
    expect(again.status).toBe(200);
    expect(again.json.data).toEqual(first.json.data);
  });

  it('with externalId, create returns the customer with that id and never matches by email', async () => {
    const byEmail = await t.call('POST', '/v1/customers', { key: sk, body: { email: 'shared@example.com' } });
    const acct1 = await t.call('POST', '/v1/customers', { key: sk, body: { email: 'shared@example.com', externalId: 'acct-1' } });
    const acct2 = await t.call('POST', '/v1/customers', { key: sk, body: { email: 'shared@example.com', externalId: 'acct-2' } });
    expect(acct1.status).toBe(201);
    expect(acct2.status).toBe(201);
    expect(new Set([byEmail.json.data.id, acct1.json.data.id, acct2.json.data.id]).size).toBe(3);
    const repeat = await t.call('POST', '/v1/customers', { key: sk, body: { email: 'other@example.com', externalId: 'acct-1' } });
    expect(repeat.status).toBe(200);
    expect(repeat.json.data.id).toBe(acct1.json.data.id);
  });

  it('without externalId, create returns a customer made with an externalId and that email, and makes none', async () => {
    const withId = await t.call('POST', '/v1/customers', { key: sk, body: { email: 'only-crm@example.com', externalId: 'crm-9' } });
    expect(withId.status).toBe(201);
    const plain = await t.call('POST', '/v1/customers', { key: sk, body: { email: 'ONLY-crm@example.com' } });
    expect(plain.status).toBe(200);
    expect(plain.json.data.id).toBe(withId.json.data.id);
    const listed = await t.call('GET', '/v1/customers?email=only-crm@example.com', { key: sk });
    expect(listed.json.data.data).toHaveLength(1);
  });

  it('externalId is at most 100 characters', async () => {
    const res = await t.call('POST', '/v1/customers', { key: sk, body: { email: 'long@example.com', externalId: 'x'.repeat(101) } });
    expect(res.status).toBe(400);
    expect(res.json.data.param).toBe('externalId');
  });

  it('list filters by email or externalId, newest first, 10 by default', async () => {
    for (let i = 0; i < 12; i++) await t.call('POST', '/v1/customers', { key: sk, body: { email: `many-${i}@example.com` } });
    const page = await t.call('GET', '/v1/customers', { key: sk });
    expect(page.status, page.text).toBe(200);
    expect(page.json.data.data).toHaveLength(10);
    expect(page.json.data.hasMore).toBe(true);
    const ids = page.json.data.data.map((c: any) => c.id);
    expect([...ids].sort((a: number, b: number) => b - a)).toEqual(ids);
    const byEmail = await t.call('GET', '/v1/customers?email=MANY-3@example.com', { key: sk });
    expect(byEmail.status, byEmail.text).toBe(200);
    expect(byEmail.json.data.data.map((c: any) => c.email)).toEqual(['many-3@example.com']);
    const byExternal = await t.call('GET', '/v1/customers?externalId=acct-2', { key: sk });
    expect(byExternal.json.data.data).toHaveLength(1);
  });

  it('an unknown customer answers 404 in the envelope', async () => {
    const res = await t.call('GET', '/v1/customers/987654321', { key: sk });
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ success: false, errorCode: 'resource_not_found', data: { type: 'not_found' } });
  });
});
