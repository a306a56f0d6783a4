// A transfer on the sandbox clock: `Processing`, then `Completed` (an hour on inside Till, the next
// business day out of it) or `Failed` through the test helper, with the `transfer.*` events; a
// failed transfer gives the amount and the fee back through the ledger. The transfers' fee rule,
// refusals and lists are in transfers.test.ts. The base clock is a ManualClock, so every time is exact.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { fundsKit, transfersKit } from '../support/funds.js';
import { useTestServer } from '../support/server.js';

// Wednesday 4 March 2026, 10:00 UTC.
const clock = new ManualClock('2026-03-04T10:00:00.000Z');
const t = useTestServer({ clock });
const kit = fundsKit(t);
const { transfer, balance, funded, transactions, advance, fail, statusOf, transferEvents, ledgerOf } = transfersKit(t);
const HOUR = 3600;

describe('a transfer on the clock: Processing, then Completed or Failed', () => {
  const bank = 'DE89370400440532013000';

  it('out of Till: completes the next business day at the same time (a Friday one on Monday); transfer.completed', async () => {
    const m = await t.newMerchant('Friday');
    expect((await advance(m, 2 * 24 * HOUR)).status).toBe(200); // Friday 6 March, 10:00 (nothing to pay out yet)
    await kit.funded(m, 100);
    const account = await kit.account(m);
    const res = await transfer(m, { sourceAccountId: account.id, destinationAccountNumber: bank, amount: 10, transferAction: 'CBDCTransfer' });
    expect(res.json).toMatchObject({ status: 'Processing', institutionId: 3, completionDateTime: '2026-03-09T10:00:00.000Z' });
    expect((await advance(m, 3 * 24 * HOUR - 1)).status).toBe(200); // Monday 09:59:59
    expect((await statusOf(m, res.json.id)).status).toBe('Processing');
    expect((await advance(m, 1)).status).toBe(200);
    expect((await statusOf(m, res.json.id)).status).toBe('Completed');
    expect(await transferEvents(m)).toEqual([
      ['transfer.processing', res.json.id, 'Processing'],
      ['transfer.completed', res.json.id, 'Completed'],
    ]);
  });

  it('failTestTransfer: the amount and the fee go back to the source through the ledger, exactly; transfer.failed; then 409', async () => {
    const a = await funded();
    const before = await balance(a.merchant, a.account.id);
    // The receiver pays: 0.33 of the fee is withheld from the 33.33 sent.
    const res = await transfer(a.merchant, {
      sourceAccountId: a.account.id,
      destinationAccountNumber: bank,
      amount: 33.33,
      transferAction: 'BankTransfer',
      feePayer: 'Receiver',
    });
    expect((await balance(a.merchant, a.account.id)).availableAmount).toBe(63.47);
    const failed = await fail(a.merchant, res.json.id, { failureReason: 'The bank account is closed.' });
    expect(failed.status, failed.text).toBe(200);
    expect(failed.json).toMatchObject({
      object: 'transfer',
      id: res.json.id,
      status: 'Failed',
      amount: 33.33,
      fee: 0.33,
      failureReason: 'The bank account is closed.',
      completionDate: null,
      isLive: false,
    });
    expect(await balance(a.merchant, a.account.id)).toEqual(before);
    expect(await statusOf(a.merchant, res.json.id)).toMatchObject({ status: 'Failed', failureReason: 'The bank account is closed.', completionDateTime: null });
    const entries = await ledgerOf(res.json.id);
    expect(entries).toEqual([
      { account: 'available', type: 'transfer', amount: '-33.3300' },
      { account: 'transfers', type: 'transfer', amount: '33.0000' },
      { account: 'fees', type: 'transfer_fee', amount: '0.3300' },
      { account: 'transfers', type: 'transfer', amount: '-33.0000' },
      { account: 'available', type: 'transfer', amount: '33.0000' },
      { account: 'fees', type: 'transfer_fee', amount: '-0.3300' },
      { account: 'available', type: 'transfer_fee', amount: '0.3300' },
    ]);
    const booked = (await transactions(a.merchant, '?$top=2')).json.value;
    expect(booked.map((x: any) => [x.type, x.amount, x.description])).toEqual([
      ['Fee', 0.33, 'Transfer fee returned'],
      ['Transfer', 33, 'Transfer failed: returned'],
    ]);
    expect(await transferEvents(a.merchant)).toEqual([
      ['transfer.processing', res.json.id, 'Processing'],
      ['transfer.failed', res.json.id, 'Failed'],
    ]);
    const again = await fail(a.merchant, res.json.id);
    expect(again.status).toBe(409);
    expect(again.json.error).toMatchObject({ code: 'invalid_state', message: `Transfer ${res.json.id} is Failed; only a Processing transfer can fail.` });
    // It stays failed when its time comes.
    expect((await advance(a.merchant, 2 * 24 * HOUR)).status).toBe(200);
    expect((await statusOf(a.merchant, res.json.id)).status).toBe('Failed');
  });

  it("a failed transfer between Till accounts never reaches the destination; a completed one cannot fail; another merchant's is 404, a live key 403", async () => {
    const a = await funded();
    const b = await t.newMerchant('Receiver');
    const bAccount = await kit.account(b);
    const to = { sourceAccountId: a.account.id, destinationAccountNumber: bAccount.accountNumber };
    const first = await transfer(a.merchant, { ...to, amount: 10, feePayer: 'Both' });
    const second = await transfer(a.merchant, { ...to, amount: 20 });
    expect((await fail(a.merchant, first.json.id)).json).toMatchObject({
      status: 'Failed',
      failureReason: 'The receiving institution rejected the transfer (test helper).',
    });
    expect((await fail(b, second.json.id)).status).toBe(404);
    const live = await t.call('POST', `/v1/test-helpers/transfers/${second.json.id}/fail`, { key: a.merchant.keys.live.secret, body: {} });
    expect(live.json.error).toMatchObject({ code: 'livemode_not_allowed' });
    expect((await advance(a.merchant, HOUR)).status).toBe(200);
    expect((await statusOf(a.merchant, second.json.id)).status).toBe('Completed');
    expect((await fail(a.merchant, second.json.id)).json.error).toMatchObject({ code: 'invalid_state' });
    // 96.80 - 20.20: the failed 10.05 came back; the destination got the completed 20 only.
    expect((await balance(a.merchant, a.account.id)).availableAmount).toBe(76.6);
    expect(await balance(b, bAccount.id)).toEqual({ currentAmount: 20, availableAmount: 20, currencyCode: 'USD' });
  });
});
