// The Commerce interface as a merchant's server drives it over HTTP (`x-api-key`): its sandbox
// cards, Commerce invoices (`/v1/invoice`) and paying invoices through `payinvoice`. Every kit is
// made per test file from its own server (`useTestServer()`): it keeps no state between files.
import { expect } from 'vitest';
import { delivered } from './events.js';
import { MERCHANT_BALANCES } from './ledger.js';
import type { TestServer } from './server.js';

/** The sandbox processor's test cards, as the Commerce interface's tests use them. */
export const VISA = '4242424242424242';
export const MASTERCARD = '5555555555554444';
/** Asks for a 3-D Secure challenge. */
export const THREE_DS = '4000000000003220';
/** Declined: insufficient funds. */
export const INSUFFICIENT = '4000000000009995';

/** A card's expiry as the Commerce interface takes it (`MM/YY`): December, two years ahead. */
export const CARD_EXPIRY = `12/${String((new Date().getUTCFullYear() + 2) % 100).padStart(2, '0')}`;

/** A `card` of a payment request. */
export const commerceCard = (cardNumber = VISA) => ({ name: 'Ana Lopez', cardNumber, expiryDate: CARD_EXPIRY, cvv: '123' });

/** The contract's example: 4 x 150 at 10 %, 2 x 89.50 - 9 at 5 %, invoice discount 20, shipping 12.50. */
export const consulting = {
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

/** Commerce invoices (`/v1/invoice`) of the file's server; the key is merchant A's test key unless given. */
export function commerceInvoices(t: TestServer) {
  const sk = () => t.merchantA.keys.test.secret;
  const create = (body: Record<string, unknown>, key = sk()) => t.call('POST', '/v1/invoice', { apiKey: key, body });
  return {
    sk,
    create,
    /** An invoice made with `body` (the contract's example by default): 201 or the test fails. */
    async created(body: Record<string, unknown> = consulting, key = sk()) {
      const res = await create(body, key);
      expect(res.status, res.text).toBe(201);
      return res.json;
    },
    odata: (query: Record<string, string>, key = sk()) => t.call('GET', `/v1/invoice?${new URLSearchParams(query).toString()}`, { apiKey: key }),
    /** The `invoice.*` events of one invoice of a merchant, in order. */
    async eventsOf(merchantId: number, id: number) {
      const rows = await t.database.db
        .selectFrom('events')
        .select(['type', 'data'])
        .where('merchant_id', '=', merchantId)
        .where('type', 'like', 'invoice.%')
        .orderBy('seq')
        .execute();
      return rows
        .map(delivered)
        .filter((e) => (e.data as { id: number }).id === id)
        .map((e) => e.type);
    },
  };
}

/** Paying Checkout invoices through the Commerce interface (`POST /api/payment/payinvoice`), as merchant A unless a key is given. */
export function invoicePayments(t: TestServer) {
  const sk = () => t.merchantA.keys.test.secret;
  const pagePath = (url: string) => new URL(url).pathname;
  return {
    sk,
    /** A Checkout invoice of 2 × 150.00 USD = 300.00. */
    async newInvoice(key = sk()): Promise<{ id: number; identifier: string }> {
      const res = await t.call('POST', '/v1/invoices', {
        key,
        body: { customer: { email: 'ana@example.com', firstName: 'Ana' }, currency: 'USD', lineItems: [{ name: 'Design', quantity: 2, unitAmount: 150 }] },
      });
      expect(res.status, res.text).toBe(201);
      return res.json;
    },
    payInvoice: (body: Record<string, unknown>, apiKey = sk(), headers: Record<string, string> = {}) =>
      t.call('POST', '/api/payment/payinvoice', { apiKey, body, headers }),
    /** The invoice as the Checkout interface shows it. */
    readInvoice: async (id: number) => (await t.call('GET', `/v1/invoices/${id}`, { key: sk() })).json,
    /** Merchant A's events about sessions, payments and invoices, in order. */
    async eventsOf() {
      const rows = await t.database.db
        .selectFrom('events')
        .select(['type', 'payment_id', 'session_id'])
        .where('merchant_id', '=', t.merchantA.merchantId)
        .orderBy('seq')
        .execute();
      return rows.filter((e) => e.type.startsWith('checkout.session') || e.payment_id !== null || e.type.startsWith('invoice.'));
    },
    /** What a payment posted on the merchant's balances. */
    ledgerOf: (paymentId: number) =>
      t.database.db
        .selectFrom('ledger_entries')
        .select(['type', 'account', 'amount'])
        .where('account', 'in', MERCHANT_BALANCES)
        .where('payment_id', '=', paymentId)
        .orderBy('id')
        .execute(),
    /** The types of merchant A's `invoice.*` events about one invoice, in order. */
    async invoiceEventTypes(invoiceId: number) {
      const rows = await t.database.db
        .selectFrom('events')
        .select(['type', 'data'])
        .where('merchant_id', '=', t.merchantA.merchantId)
        .where('type', 'like', 'invoice.%')
        .orderBy('seq')
        .execute();
      return rows.filter((e) => JSON.stringify(e.data).includes(`"id":${invoiceId},`)).map((e) => e.type);
    },
    /** Answers the sandbox 3-D Secure challenge at `url` (on the test server) as the payer would. */
    async answerChallenge(url: string, choice: 'complete' | 'fail') {
      const html = await (await fetch(`${t.url}${pagePath(url)}`)).text();
      const token = /name="token" value="([^"]+)"/.exec(html)?.[1] ?? '';
      return fetch(`${t.url}${pagePath(url)}`, { method: 'POST', body: new URLSearchParams({ answer: choice, token }), redirect: 'manual' });
    },
  };
}
