// Lists (checkout-billing-api.md › List wrapper), checked on products, plans, customers and
// invoices: the wrapper, newest first, paging with startingAfter, hasMore and the default limit.
import assert from 'node:assert/strict';
import type { ConformanceContext, Scenario } from '../../types.js';
import { idsOf, listCustomers, listPlansPage, newPlan, newProduct, postCustomer } from '../fixtures/catalog.js';
import { call, envelopeData, expectStatus } from '../fixtures/http.js';
import { emailFor, secretKey, tag } from '../fixtures/keys.js';
import { SUBSCRIBE } from '../fixtures/operations.js';
import { clocked, scenario } from '../fixtures/scenario.js';
import { newInvoice } from '../fixtures/invoices.js';
import { LIST_WRAPPER } from '../fixtures/sections.js';
import { advancePast, dailySubscription, subscriptionOf } from '../fixtures/subscriptions.js';

/** Walks a list one item at a time from a cursor until `until` is seen; answers the ids in order. */
async function walk(
  ctx: ConformanceContext,
  op: 'listProducts' | 'listPlans',
  path: string,
  envelope: boolean,
  from: number,
  until: number,
): Promise<number[]> {
  const seen: number[] = [];
  let cursor = from;
  for (let step = 0; step < 50; step++) {
    const res = await call(ctx, 'checkout', op, { method: 'GET', path, key: secretKey(ctx), query: { limit: 1, startingAfter: cursor } });
    const page = envelope ? envelopeData(res, 200, op) : res.json;
    expectStatus(res, 200, op);
    assert.ok(page.data.length <= 1, 'limit=1 answers at most one item');
    const item = page.data[0];
    assert.ok(item, `the list ended before reaching id ${until} (seen ${seen.join(', ')})`);
    assert.ok(item.id < cursor, `startingAfter=${cursor} must answer older items, got id ${item.id}`);
    seen.push(item.id);
    if (item.id === until) return seen;
    assert.equal(page.hasMore, true, 'hasMore must be true while older items follow');
    cursor = item.id;
  }
  assert.fail(`did not reach id ${until} within 50 pages`);
}

export const lists: Scenario[] = [
  {
    id: 'checkout.lists.wrapper',
    title: 'Lists answer `{object: "list", data, hasMore}`',
    source: LIST_WRAPPER,
    requires: ['listProducts', 'listPlans', 'listCustomers'],
    serverOnly: true,
    async run(ctx) {
      const products = await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: secretKey(ctx), query: { limit: 2 } });
      expectStatus(products, 200, 'list products');
      const pages = [products.json, await listPlansPage(ctx, { limit: 2 }), await listCustomers(ctx, { limit: 2 })];
      for (const page of pages) {
        assert.equal(page.object, 'list');
        assert.ok(Array.isArray(page.data), 'data is an array');
        assert.equal(typeof page.hasMore, 'boolean', 'hasMore is a boolean');
      }
    },
  },
  {
    id: 'checkout.lists.newest-first',
    title: 'List items come newest first (products, plans, customers)',
    source: LIST_WRAPPER,
    requires: ['createProduct', 'listProducts', 'createPlan', 'listPlans', 'createCustomer', 'listCustomers'],
    serverOnly: true,
    async run(ctx) {
      const made: number[] = [];
      for (const n of [1, 2, 3]) made.push((await newProduct(ctx, `order ${n}`)).id);
      const productPage = await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: secretKey(ctx), query: { limit: 100 } });
      assert.deepEqual(
        idsOf(productPage.json).filter((id) => made.includes(id)),
        [...made].reverse(),
        'products: newest first',
      );
      const plansMade: number[] = [];
      for (const n of [1, 2, 3]) plansMade.push((await newPlan(ctx, made[0]!, `order ${n}`)).id);
      assert.deepEqual(
        idsOf(await listPlansPage(ctx, { limit: 100 })).filter((id) => plansMade.includes(id)),
        [...plansMade].reverse(),
        'plans: newest first',
      );
      const email = emailFor(ctx, 'order');
      const customersMade: number[] = [];
      for (const n of [1, 2, 3])
        customersMade.push(envelopeData(await postCustomer(ctx, { email, externalId: `conf-${tag(ctx)}-order-${n}` }), 201, 'create').id);
      assert.deepEqual(idsOf(await listCustomers(ctx, { email, limit: 100 })), [...customersMade].reverse(), 'customers: newest first');
    },
  },
  {
    id: 'checkout.lists.starting-after-paging',
    title: "Repeating a list request with `startingAfter` set to the last item's id answers the next page, with no item twice (products and plans)",
    source: LIST_WRAPPER,
    requires: ['createProduct', 'listProducts', 'createPlan', 'listPlans'],
    serverOnly: true,
    async run(ctx) {
      const made: number[] = [];
      for (const n of [1, 2, 3]) made.push((await newProduct(ctx, `page ${n}`)).id);
      const productWalk = await walk(ctx, 'listProducts', '/v1/products', false, made[2]!, made[0]!);
      assert.ok(productWalk.includes(made[1]!), 'paging products from the newest must pass through the middle one');
      assert.equal(new Set(productWalk).size, productWalk.length, 'no product appears twice');
      const plansMade: number[] = [];
      for (const n of [1, 2, 3]) plansMade.push((await newPlan(ctx, made[0]!, `page ${n}`)).id);
      const planWalk = await walk(ctx, 'listPlans', '/v1/plans', true, plansMade[2]!, plansMade[0]!);
      assert.ok(planWalk.includes(plansMade[1]!), 'paging plans must pass through the middle one');
    },
  },
  {
    id: 'checkout.lists.has-more',
    title: '`hasMore` is true when another page follows and false on the last page',
    source: LIST_WRAPPER,
    requires: ['createCustomer', 'listCustomers'],
    serverOnly: true,
    async run(ctx) {
      // A filter that only this run's customers match gives a list of known length.
      const email = emailFor(ctx, 'hasmore');
      const made: number[] = [];
      for (const n of [1, 2, 3]) made.push(envelopeData(await postCustomer(ctx, { email, externalId: `conf-${tag(ctx)}-hasmore-${n}` }), 201, 'create').id);
      const first = await listCustomers(ctx, { email, limit: 2 });
      assert.deepEqual(idsOf(first), [made[2], made[1]], 'first page: the two newest');
      assert.equal(first.hasMore, true, 'a third customer follows');
      const second = await listCustomers(ctx, { email, limit: 2, startingAfter: made[1]! });
      assert.deepEqual(idsOf(second), [made[0]], 'second page: the oldest');
      assert.equal(second.hasMore, false, 'nothing follows the last page');
      const exact = await listCustomers(ctx, { email, limit: 3 });
      assert.equal(exact.hasMore, false, 'a page holding every item has hasMore false');
    },
  },
  {
    id: 'checkout.lists.default-limit-25',
    title: 'Without `limit` a list answers 25 items (products and plans)',
    source: LIST_WRAPPER,
    requires: ['createProduct', 'listProducts', 'createPlan', 'listPlans'],
    serverOnly: true,
    async run(ctx) {
      const products = await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: secretKey(ctx), query: { limit: 26 } });
      let productId: number | undefined;
      for (let i = products.json.data.length; i < 26; i++) productId = (await newProduct(ctx, `bulk ${i}`)).id;
      const page = await call(ctx, 'checkout', 'listProducts', { method: 'GET', path: '/v1/products', key: secretKey(ctx) });
      assert.equal(page.json.data.length, 25, 'products: the default page is 25');
      assert.equal(page.json.hasMore, true, 'products: more follow');
      const existingPlans = await listPlansPage(ctx, { limit: 26 });
      if (existingPlans.data.length < 26) productId ??= (await newProduct(ctx, 'bulk plans')).id;
      for (let i = existingPlans.data.length; i < 26; i++) await newPlan(ctx, productId!, `bulk ${i}`);
      const planPage = await listPlansPage(ctx, {});
      assert.equal(planPage.data.length, 25, 'plans: the default page is 25');
      assert.equal(planPage.hasMore, true, 'plans: more follow');
    },
  },
  clocked(
    'checkout.lists.subscription-invoices-up-to-100',
    "A subscription's invoice list returns up to 100 items: without `limit` it answers more than the other lists' 25",
    LIST_WRAPPER,
    [...SUBSCRIBE, 'listSubscriptionInvoices'],
    {
      async run(ctx) {
        const { subscriptionId } = await dailySubscription(ctx, 'invoice list up to 100');
        await advancePast(ctx, (await subscriptionOf(ctx, subscriptionId)).currentPeriodEnd, 25 * 86_400);
        const list = async (query: Record<string, number>) =>
          envelopeData(
            await call(ctx, 'checkout', 'listSubscriptionInvoices', {
              method: 'GET',
              path: `/v1/subscriptions/${subscriptionId}/invoices`,
              key: secretKey(ctx),
              query,
            }),
            200,
            "list the subscription's invoices",
          );
        const all = await list({});
        assert.equal(all.data.length, 27, `27 daily invoices (the first and 26 renewals) come in one page without limit, got ${all.data.length}`);
        assert.equal(all.hasMore, false, 'nothing follows');
        const page = await list({ limit: 25 });
        assert.equal(page.data.length, 25, 'limit still sets the page size');
        assert.equal(page.hasMore, true, 'more follow a page of 25');
      },
    },
  ),
  scenario(
    'checkout.lists.invoices-by-reference',
    'Invoices by reference take `limit` and `startingAfter` like every list, and answer at most one invoice for a reference',
    LIST_WRAPPER,
    ['createInvoice', 'listInvoices'],
    async (ctx) => {
      const made: any[] = [];
      for (let n = 0; n < 3; n++) made.push(await newInvoice(ctx));
      const [oldest, middle, newest] = made;
      const list = async (query: Record<string, string | number>) => {
        const res = await call(ctx, 'checkout', 'listInvoices', { method: 'GET', path: '/v1/invoices', key: secretKey(ctx), query });
        expectStatus(res, 200, `list invoices ${JSON.stringify(query)}`);
        assert.equal(res.json.object, 'list', 'the list wrapper');
        return res.json;
      };
      const first = await list({ limit: 2 });
      assert.deepEqual(idsOf(first), [newest.id, middle.id], 'limit=2: the two newest');
      assert.equal(first.hasMore, true);
      assert.deepEqual(idsOf(await list({ limit: 1, startingAfter: middle.id })), [oldest.id], 'startingAfter answers the next older one');
      for (const invoice of made) {
        const found = await list({ reference: invoice.reference, limit: 5 });
        assert.deepEqual(idsOf(found), [invoice.id], `reference ${invoice.reference} finds its one invoice`);
        assert.equal(found.hasMore, false, 'nothing follows the one invoice of a reference');
      }
      assert.deepEqual(idsOf(await list({ reference: newest.reference, startingAfter: newest.id })), [], 'startingAfter past the one invoice leaves nothing');
      assert.deepEqual(idsOf(await list({ reference: newest.reference, startingAfter: middle.id })), [], 'an invoice newer than the cursor is not on the page');
      assert.deepEqual(idsOf(await list({ reference: middle.reference, startingAfter: newest.id, limit: 1 })), [middle.id], 'one older than the cursor is');
      assert.deepEqual(idsOf(await list({ reference: `NOREF${tag(ctx)}`.slice(0, 40).toUpperCase() })), [], 'an unknown reference finds none');
    },
    { ownMerchant: true },
  ),
];
