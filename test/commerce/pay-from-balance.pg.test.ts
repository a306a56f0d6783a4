// Paying invoices from one account's balance at once, on PostgreSQL: the balance is locked, so
// payments that together overdraw it cannot all pass.
import { describe, expect, it } from 'vitest';
import { balancePayments } from '../support/funds.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();
const { newInvoice, fundedMerchant, pay, balance, invoiceOf } = balancePayments(t);

describe('race (PostgreSQL)', () => {
  it('three concurrent payments that together overdraw one account: one pays, two fail (200, isSuccess false), the balance never goes below zero', async () => {
    const { m, account } = await fundedMerchant('Race', 100); // 96.80
    const invoices = await Promise.all([1, 2, 3].map(() => newInvoice(m, 60)));
    const results = await Promise.all(invoices.map((inv) => pay(m, { invoiceId: inv.id, sourceAccountId: account.id })));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(results.map((r) => r.json.paymentStatusId).sort()).toEqual(['Failed', 'Failed', 'Success']);
    expect((await balance(m, account.id)).availableAmount).toBe(36.8);
    const paid = await Promise.all(invoices.map((inv) => invoiceOf(m, inv.id)));
    expect(paid.map((i) => i.status).sort()).toEqual(['Paid', 'Pending', 'Pending']);
  });
});
