// Merchant locations and the merchant's default currency (issue 35 §16, Till's design where
// commerce-api.md shows no shapes): every merchant has a primary location, an invoice answers its
// issuing location (`merchantLocationId` honoured, another merchant's refused), and the default
// currency is the one accounts use when none is named. Run on a sandbox merchant of their own, so
// the merchant given keeps its locations.
import assert from 'node:assert/strict';
import type { ConformanceContext, HttpResult, RequestSpec, Scenario } from '../../types.js';
import { call, expectError, expectStatus } from '../fixtures/http.js';
import { tag } from '../fixtures/keys.js';
import { COMMERCE_DOC, scenario, source } from '../fixtures/scenario.js';

const INVOICE = source(COMMERCE_DOC, 'Resources and their fields', 'Invoice');
const OTHER_OPS = source(COMMERCE_DOC, 'Endpoints', 'Other listed operations');

const commerce = (ctx: ConformanceContext, operationId: string, spec: Omit<RequestSpec, 'apiKey'>, apiKey: string): Promise<HttpResult> =>
  call(ctx, 'commerce', operationId, { ...spec, apiKey });

/** A sandbox merchant of the given one, with this default currency: its secret key. */
async function sandboxKey(ctx: ConformanceContext, defaultCurrency: string): Promise<string> {
  const body = { name: `conformance ${tag(ctx)} locations`.slice(0, 100), defaultCurrency };
  const res = await call(ctx, 'checkout', 'createTestMerchant', { method: 'POST', path: '/v1/test-helpers/merchants', key: ctx.options.secretKey, body });
  expectStatus(res, 201, 'a sandbox merchant');
  return res.json.secretKey;
}

const newInvoice = (ctx: ConformanceContext, key: string, extra: Record<string, unknown> = {}) =>
  commerce(
    ctx,
    'createCommerceInvoice',
    { method: 'POST', path: '/v1/invoice', body: { currencyCode: 'EUR', items: [{ name: 'Conformance', unitCost: 10, quantity: 1 }], ...extra } },
    key,
  );

export const locationScenarios: Scenario[] = [
  scenario(
    'commerce.other.merchant-locations',
    'Invoices answer `merchantLocation`: the primary one by default, the one `merchantLocationId` names (created with `POST /v1/merchantLocation`); another merchant’s location is neither listed nor usable',
    INVOICE,
    ['createTestMerchant', 'listMerchantLocations', 'createMerchantLocation', 'createCommerceInvoice', 'getCommerceInvoice'],
    async (ctx) => {
      const key = await sandboxKey(ctx, 'EUR');
      const list = async (apiKey: string) => {
        const res = await commerce(ctx, 'listMerchantLocations', { method: 'GET', path: '/v1/merchantLocation' }, apiKey);
        expectStatus(res, 200, 'the locations');
        return res.json.value as any[];
      };
      const [primary, ...others] = await list(key);
      assert.ok(primary?.isPrimary, 'a new merchant has a primary location');
      assert.equal(others.length, 0, 'and only that one');
      const body = { name: 'Second shop', address: { addressLine1: '1 Test St', city: 'Austin', country: 'US' } };
      const made = await commerce(ctx, 'createMerchantLocation', { method: 'POST', path: '/v1/merchantLocation', body }, key);
      expectStatus(made, 201, 'a further location');
      assert.equal(made.json.isPrimary, false);
      assert.deepEqual(
        (await list(key)).map((l) => l.id),
        [primary.id, made.json.id],
        'primary first',
      );

      const plain = await newInvoice(ctx, key);
      expectStatus(plain, 201, 'an invoice without merchantLocationId');
      assert.deepEqual(plain.json.merchantLocation, primary, 'the primary location');
      const named = await newInvoice(ctx, key, { merchantLocationId: made.json.id });
      expectStatus(named, 201, 'an invoice naming a location');
      assert.deepEqual(named.json.merchantLocation, made.json);
      const read = await commerce(ctx, 'getCommerceInvoice', { method: 'GET', path: `/v1/invoice/${named.json.id}` }, key);
      assert.deepEqual(read.json.merchantLocation, made.json, 'read back');

      const own = ctx.options.apiKey ?? ctx.options.secretKey;
      assert.ok(!(await list(own)).some((l) => l.id === made.json.id), "another merchant's list leaves it out");
      const foreign = await newInvoice(ctx, own, { merchantLocationId: made.json.id, currencyCode: 'USD' });
      expectError(foreign, 400, 'invalid_request', 'parameter_invalid', 'merchantLocationId');
    },
  ),
  scenario(
    'commerce.other.default-currency',
    'A merchant’s `defaultCurrency` is the currency its accounts open in when it has booked nothing, and the dashboards count when `currencyCode` is left out',
    OTHER_OPS,
    ['createTestMerchant', 'getMerchant', 'listAccounts', 'getTransfersDashboard'],
    async (ctx) => {
      const key = await sandboxKey(ctx, 'JPY');
      const merchant = await commerce(ctx, 'getMerchant', { method: 'GET', path: '/v1/merchant' }, key);
      expectStatus(merchant, 200, 'the merchant');
      assert.equal(merchant.json.defaultCurrency, 'JPY');
      const accounts = await commerce(ctx, 'listAccounts', { method: 'GET', path: '/v1/account' }, key);
      expectStatus(accounts, 200, 'the accounts');
      assert.deepEqual(
        accounts.json.value.map((a: any) => a.currencyCode),
        ['JPY'],
        'one account, in the default currency',
      );
      const dashboard = await commerce(ctx, 'getTransfersDashboard', { method: 'GET', path: '/v1/FinancialDashboard/transfers' }, key);
      expectStatus(dashboard, 200, 'the transfers dashboard without currencyCode');
    },
  ),
];
