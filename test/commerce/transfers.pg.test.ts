// Transfers out of one account at once, on PostgreSQL: the source balance is locked, so transfers
// that together overdraw it cannot all be made.
import { describe, expect, it } from 'vitest';
import { transfersKit } from '../support/funds.js';
import { useTestServer } from '../support/server.js';

const t = useTestServer();
const { transfer, balance, funded } = transfersKit(t);

describe('race (PostgreSQL)', () => {
  it('two concurrent transfers that together overdraw: one is made, the other refused', async () => {
    const a = await funded();
    const send = () =>
      transfer(a.merchant, { sourceAccountId: a.account.id, destinationAccountNumber: 'DE89370400440532013000', amount: 60, transferAction: 'BankTransfer' });
    const results = await Promise.all([send(), send(), send()]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    expect(await balance(a.merchant, a.account.id)).toEqual({ currentAmount: 36.2, availableAmount: 36.2, currencyCode: 'USD' });
  });
});
