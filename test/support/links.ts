// Payment links as a payer meets them over HTTP: a link to pay (Beans, 24.50 USD at 8.25 %), its
// public invoice (CreateInvoice), paying it through payinvoice, the verification code in the
// outbox; and a clock that runs with the wall clock and can be moved ahead. Every kit is made per
// test file from its own server (`useTestServer()`): it keeps no state between files.
import { expect } from 'vitest';
import type { Clock } from '../../server/shared/clock.js';
import { commerceCard } from './commerce.js';
import type { TestServer } from './server.js';

/** A payer as a link's page sends it (the email in mixed case: links compare it in any case). */
export const payer = { email: 'Ana@Example.com', firstName: 'Ana', lastName: 'Lopez' };

/** A fixed-price link: 24.50 USD at 8.25 % tax, one item. */
export const beans = {
  name: 'Beans',
  currencyCode: 'USD',
  unitPrice: '24.50',
  taxRate: '8.25',
  productName: 'Yirgacheffe 1 kg',
  productDescription: 'Light roast',
  successUrl: 'https://shop.example.com/thanks',
};

/** The payer's side of merchant A's links (a link is made with merchant A's test key unless another is given). */
export function payerKit(t: TestServer) {
  const sk = () => t.merchantA.keys.test.secret;
  const invoiceFrom = (identifier: string, body: Record<string, unknown> = payer) =>
    t.call('POST', `/v1/PaymentLink/CreateInvoice(identifier='${identifier}')`, { body });
  return {
    sk,
    async newLink(body: Record<string, unknown> = beans, apiKey = sk()) {
      const res = await t.call('POST', '/v1/PaymentLink', { apiKey, body });
      expect(res.status, res.text).toBe(201);
      return res.json;
    },
    /** The link as its merchant reads it (with its counters). */
    readLink: async (id: number, apiKey = sk()) => (await t.call('GET', `/v1/PaymentLink?$filter=id eq ${id}`, { apiKey })).json.value[0],
    invoiceFrom,
    /** An invoice made through the link: 201 or the test fails. */
    async invoiced(identifier: string, body: Record<string, unknown> = payer) {
      const res = await invoiceFrom(identifier, body);
      expect(res.status, res.text).toBe(201);
      return res.json;
    },
    /** Pays an invoice with the Visa test card. */
    pay: (invoiceId: number, apiKey = sk()) =>
      t.call('POST', '/api/payment/payinvoice', { apiKey, body: { invoiceId, paymentOptionId: 1, card: commerceCard() } }),
    /** The verification code last sent to `email` (from the outbox). */
    async lastCode(email: string) {
      const row = await t.database.db
        .selectFrom('messages')
        .select(['body', 'kind'])
        .where('recipient', '=', email)
        .orderBy('seq', 'desc')
        .limit(1)
        .executeTakeFirstOrThrow();
      expect(row.kind).toBe('otp');
      return /\b(\d{6})\b/.exec(row.body)![1]!;
    },
  };
}

/**
 * The wall clock, moved ahead by `advance()`: a test server on it reads real time (so times a
 * test computes from `Date.now()` keep their meaning), and a test that needs time to pass moves it
 * instead of sleeping.
 */
export class AheadClock implements Clock {
  private aheadMs = 0;
  now(): Date {
    return new Date(Date.now() + this.aheadMs);
  }
  advance(ms: number): void {
    this.aheadMs += ms;
  }
}
