// Refunds racing on one payment, across two app instances on one PostgreSQL database.
import { describe, expect, it } from 'vitest';
import { paidCardPayment } from '../support/checkout.js';
import { call, useTestServer } from '../support/server.js';

const t = useTestServer();

describe('exactness under concurrency (PostgreSQL)', () => {
  it('ten refunds racing on one payment never refund more than was paid, and totals stay exact to the cent', async () => {
    const sibling = await t.startSibling();
    try {
      const { paymentId } = await paidCardPayment(t, { body: { amount: 50, metadata: { orderId: 'R-1' } } });
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          call(i % 2 ? sibling.url : t.url, 'POST', `/v1/payments/${paymentId}/refund`, { key: t.merchantA.keys.test.secret, body: { amount: 9.99 } }),
        ),
      );
      const ok = results.filter((r) => r.status === 200);
      expect(ok).toHaveLength(5);
      expect(results.filter((r) => r.status === 400).every((r) => r.json.errorCode === 'validation_error')).toBe(true);
      const payment = await t.database.db.selectFrom('payments').select(['refunded_amount', 'status']).where('id', '=', paymentId).executeTakeFirstOrThrow();
      expect(payment).toEqual({ refunded_amount: '49.9500', status: 'partially_refunded' });
      const refunds = await t.database.db.selectFrom('refunds').select('amount').where('payment_id', '=', paymentId).execute();
      expect(refunds).toHaveLength(5);
    } finally {
      await sibling.close();
    }
  });
});
