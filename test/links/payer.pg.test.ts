// Payments through one payment link at once, on PostgreSQL: a use is taken by a conditional update
// of the link's row, so payments racing past maxUses or maxUsesPerCustomer cannot all be counted.
import { describe, expect, it } from 'vitest';
import { beans, payer, payerKit } from '../support/links.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();
const { newLink, readLink, invoiced, pay } = payerKit(t);

describe('race (PostgreSQL)', () => {
  it('payments racing for the last use of maxUses: exactly one is taken, the others refused, the counters exact', async () => {
    const link = await newLink({ ...beans, maxUses: 2 });
    const invoices = [];
    for (let i = 0; i < 5; i++) invoices.push(await invoiced(link.identifier, { ...payer, email: `race-${i}@example.com` }));
    const results = await Promise.all(invoices.map((inv) => pay(inv.id)));
    expect(results.map((r) => (r.json.isSuccess ? 'paid' : r.json.error?.code)).sort()).toEqual([
      'invoice_not_payable',
      'invoice_not_payable',
      'invoice_not_payable',
      'paid',
      'paid',
    ]);
    expect(await readLink(link.id)).toMatchObject({ completedPaymentCount: 2, totalAmountCollected: '53.04', status: 'Expired', invoiceCount: 5 });
  });

  it('payments of one payer racing past maxUsesPerCustomer: one is taken', async () => {
    const link = await newLink({ ...beans, maxUsesPerCustomer: 1 });
    const invoices = [];
    for (let i = 0; i < 4; i++) invoices.push(await invoiced(link.identifier));
    const results = await Promise.all(invoices.map((inv) => pay(inv.id)));
    expect(results.filter((r) => r.json.isSuccess).length).toBe(1);
    expect(await readLink(link.id)).toMatchObject({ completedPaymentCount: 1, totalAmountCollected: '26.52' });
  });
});
