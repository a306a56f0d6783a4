// Refunding an invoice under concurrency (PostgreSQL): refunds racing on two app instances, some of
// them refunding one payment directly, never refund more than was paid, and every record agrees.
import { describe, expect, it } from 'vitest';
import { call, useTestServer } from '../support/server.js';
import { invoiceRefunds } from '../support/billing.js';

const t = useTestServer();
const sk = () => t.merchantA.keys.test.secret;
const kit = invoiceRefunds(t);

describe('exactness under concurrency (PostgreSQL)', () => {
  it('ten refunds racing on an invoice paid twice, with payment refunds among them, never refund more than was paid', async () => {
    const sibling = await t.startSibling();
    try {
      const { invoice, older, newer } = await kit.paidTwice();
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => {
          const url = i % 2 ? sibling.url : t.url;
          // Every third call refunds the newer payment directly, the others the invoice.
          return i % 3 === 2
            ? call(url, 'POST', `/v1/payments/${newer}/refund`, { key: sk(), body: { amount: 9.99 } })
            : call(url, 'POST', `/v1/invoices/${invoice.id}/refund`, { key: sk(), body: { amount: 19.99 } });
        }),
      );
      const ok = results.filter((r) => r.status === 200);
      const refused = results.filter((r) => r.status !== 200);
      expect(
        refused.every((r) => r.status === 400 && r.json.errorCode === 'validation_error'),
        JSON.stringify(refused.map((r) => r.json)),
      ).toBe(true);
      const rows = await kit.payments([older, newer]);
      const refunded = rows.reduce((sum, r) => sum + Number(r.refunded_amount) * 100, 0);
      expect(refunded).toBeLessThanOrEqual(100_00);
      const answered = ok.reduce((sum, r) => sum + Math.round((r.json.refundAmount as number) * 100), 0);
      expect(Math.round(refunded)).toBe(answered);
      const refunds = await t.database.db.selectFrom('refunds').select('amount').where('payment_id', 'in', [older, newer]).execute();
      expect(Math.round(refunds.reduce((sum, r) => sum + Number(r.amount) * 100, 0))).toBe(answered);
      const row = await t.database.db.selectFrom('invoices').select('amount_refunded').where('id', '=', invoice.id).executeTakeFirstOrThrow();
      expect(Math.round(Number(row.amount_refunded) * 100)).toBe(answered);
      expect(ok.length).toBeGreaterThanOrEqual(5);
    } finally {
      await sibling.close();
    }
  });
});
