// Disputes racing across two app instances on one PostgreSQL database: money moves once.
import { describe, expect, it } from 'vitest';
import { disputeKit } from '../support/checkout.js';
import { call, useTestServer } from '../support/server.js';

const t = useTestServer();
const sk = () => t.merchantA.keys.test.secret;
const { paid, open, paymentOf, disputeEvents, merchantEntries } = disputeKit(t);

describe('exactness under concurrency (PostgreSQL)', () => {
  it('two closes at once move money once: one answers 200, the other 409', async () => {
    const sibling = await t.startSibling();
    try {
      const paymentId = await paid(80);
      const { json: dispute } = await open(paymentId);
      const results = await Promise.all(
        [t.url, sibling.url].map((url) => call(url, 'POST', `/v1/test-helpers/disputes/${dispute.id}/close`, { key: sk(), body: { outcome: 'Lost' } })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      const disputeEntries = (await merchantEntries(paymentId)).filter((e) => e.type.startsWith('dispute'));
      expect(disputeEntries).toEqual([
        { type: 'dispute', account: 'pending', amount: '-80.0000' },
        { type: 'dispute_fee', account: 'pending', amount: '-15.0000' },
      ]);
      expect((await disputeEvents(paymentId)).filter((e) => e.type === 'dispute.closed')).toHaveLength(1);
      const invoice = await t.call('GET', `/v1/invoices/${(await paymentOf(paymentId)).invoice_id}`, { key: sk() });
      expect(invoice.json).toMatchObject({ status: 'pending', amountPaid: 0, amountDue: 80 });
    } finally {
      await sibling.close();
    }
  });

  it('two opens at once on one payment make one dispute', async () => {
    const sibling = await t.startSibling();
    try {
      const paymentId = await paid(35);
      const results = await Promise.all(
        [t.url, sibling.url].map((url) => call(url, 'POST', `/v1/test-helpers/payments/${paymentId}/dispute`, { key: sk(), body: {} })),
      );
      expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
      expect((await t.call('GET', `/v1/disputes?paymentId=${paymentId}`, { key: sk() })).json.data).toHaveLength(1);
    } finally {
      await sibling.close();
    }
  });
});
