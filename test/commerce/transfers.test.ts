// Transfers between wallet accounts and out of Till, their fee rule, their refusals, the transfer
// list (OData) and the transactions (the ledger as a list). Their way through `Processing` to
// `Completed` or `Failed` is in transfers-clock.test.ts, the race of transfers on one account in
// transfers.pg.test.ts. The base clock is a ManualClock, so every time is exact.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { fundsKit, transfersKit } from '../support/funds.js';
import { useTestServer } from '../support/server.js';

// Wednesday 4 March 2026, 10:00 UTC: an hour on is the same day, so no payout runs in between.
const clock = new ManualClock('2026-03-04T10:00:00.000Z');
const t = useTestServer({ clock });
const kit = fundsKit(t);
const { transfer, balance, funded, transfers, transactions, advance, statusOf, transferEvents, ledgerOf } = transfersKit(t);

const HOUR = 3600;

describe('createTransfer between Till accounts', () => {
  it('Sender pays the 1% fee: the source pays amount + fee at once, the destination gets the amount when it completes 1 hour later, all booked', async () => {
    const a = await funded();
    const b = await t.newMerchant('Receiver');
    const bAccount = await kit.account(b);
    const res = await transfer(a.merchant, {
      sourceAccountId: a.account.id,
      destinationAccountNumber: bAccount.accountNumber,
      amount: 50,
      description: 'rent',
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      transferAction: 'ExecuteTransfer',
      sourceAccountId: a.account.id,
      destinationAccountNumber: bAccount.accountNumber,
      amount: 50,
      fee: 0.5,
      currencyCode: 'USD',
      status: 'Processing',
      feePayer: 'Sender',
      description: 'rent',
      institutionId: 1,
      completionDateTime: '2026-03-04T11:00:00.000Z',
      failureReason: null,
    });
    expect(res.json.referenceNumber).toMatch(/^TRF-/);
    expect(await balance(a.merchant, a.account.id)).toEqual({ currentAmount: 46.3, availableAmount: 46.3, currencyCode: 'USD' });
    // Processing: the money has left the source, the destination has nothing yet.
    expect(await balance(b, bAccount.id)).toEqual({ currentAmount: 0, availableAmount: 0, currencyCode: 'USD' });
    expect((await advance(a.merchant, HOUR - 1)).status).toBe(200);
    expect((await statusOf(a.merchant, res.json.id)).status).toBe('Processing');
    expect((await advance(a.merchant, 1)).json.jobsRun).toBeGreaterThan(0);
    expect(await statusOf(a.merchant, res.json.id)).toMatchObject({ status: 'Completed', completionDateTime: '2026-03-04T11:00:00.000Z' });
    expect(await balance(b, bAccount.id)).toEqual({ currentAmount: 50, availableAmount: 50, currencyCode: 'USD' });
    expect(await balance(a.merchant, a.account.id)).toEqual({ currentAmount: 46.3, availableAmount: 46.3, currencyCode: 'USD' });
    expect(await transferEvents(a.merchant)).toEqual([
      ['transfer.processing', res.json.id, 'Processing'],
      ['transfer.completed', res.json.id, 'Completed'],
    ]);
    expect(await transferEvents(b)).toEqual([]); // the sender's events only
    const txs = (await transactions(a.merchant, '?$top=2')).json.value;
    expect(txs.map((x: any) => [x.type, x.amount, x.balanceAfter, x.referenceNumber, x.accountId])).toEqual([
      ['Fee', -0.5, 46.3, res.json.referenceNumber, a.account.id],
      ['Transfer', -50, 46.8, res.json.referenceNumber, a.account.id],
    ]);
    const received = (await transactions(b)).json.value;
    expect(received.map((x: any) => [x.type, x.amount, x.balanceAfter, x.description])).toEqual([['Transfer', 50, 50, 'Transfer received']]);
  });

  it('Receiver pays: the destination gets the amount less the fee; Both: the sender pays half rounded half up', async () => {
    const a = await funded();
    const b = await t.newMerchant('Receiver');
    const bAccount = await kit.account(b);
    expect(
      (await transfer(a.merchant, { sourceAccountId: a.account.id, destinationAccountNumber: bAccount.accountNumber, amount: 10, feePayer: 'Receiver' })).json,
    ).toMatchObject({ fee: 0.1, feePayer: 'Receiver' });
    // 33.33 × 1% = 0.3333 → 0.33; the sender's half 0.165 → 0.17, the receiver's 0.16.
    expect(
      (await transfer(a.merchant, { sourceAccountId: a.account.id, destinationAccountNumber: bAccount.accountNumber, amount: 33.33, feePayer: 'Both' })).json,
    ).toMatchObject({ fee: 0.33, feePayer: 'Both' });
    // 96.80 - 10 - (33.33 + 0.17) = 53.30
    expect((await balance(a.merchant, a.account.id)).availableAmount).toBe(53.3);
    expect((await advance(a.merchant, HOUR)).status).toBe(200);
    expect(await balance(b, bAccount.id)).toEqual({ currentAmount: 43.07, availableAmount: 43.07, currencyCode: 'USD' });
    const rows = await t.database.db
      .selectFrom('ledger_entries')
      .select(['merchant_id', 'account', 'type', 'amount'])
      .where('transfer_id', 'is not', null)
      .where('merchant_id', 'in', [a.merchant.merchantId, b.merchantId])
      .execute();
    const sum = (pred: (r: (typeof rows)[number]) => boolean) => rows.filter(pred).reduce((s, r) => s + Math.round(Number(r.amount) * 10000), 0) / 10000;
    expect(sum(() => true)).toBe(0);
    expect(sum((r) => r.account === 'fees')).toBe(0.43);
    expect(sum((r) => r.account === 'transfers')).toBe(0);
  });

  it('a bank transfer leaves Till: with Receiver paying, the fee is withheld from the money sent', async () => {
    const a = await funded();
    const res = await transfer(a.merchant, {
      sourceAccountId: a.account.id,
      destinationAccountNumber: 'DE89370400440532013000',
      amount: 20,
      transferAction: 'BankTransfer',
      feePayer: 'Receiver',
    });
    expect(res.json).toMatchObject({
      transferAction: 'BankTransfer',
      destinationAccountNumber: 'DE89370400440532013000',
      amount: 20,
      fee: 0.2,
      status: 'Processing',
      institutionId: 2,
      // Wednesday 10:00: the next business day at the same time.
      completionDateTime: '2026-03-05T10:00:00.000Z',
    });
    expect((await balance(a.merchant, a.account.id)).availableAmount).toBe(76.8);
    const entries = await ledgerOf(res.json.id);
    expect(entries).toEqual([
      { account: 'available', type: 'transfer', amount: '-20.0000' },
      { account: 'transfers', type: 'transfer', amount: '19.8000' },
      { account: 'fees', type: 'transfer_fee', amount: '0.2000' },
    ]);
  });
});

describe('createTransfer refusals', () => {
  it('a short available balance answers 409 invalid_state and moves nothing', async () => {
    const a = await funded();
    const res = await transfer(a.merchant, {
      sourceAccountId: a.account.id,
      destinationAccountNumber: 'DE89370400440532013000',
      amount: 96,
      transferAction: 'BankTransfer',
    });
    expect(res.status).toBe(409);
    expect(res.json.error).toMatchObject({
      code: 'invalid_state',
      param: 'amount',
      message: `Account ${a.account.id} has 96.80 USD available; the transfer needs 96.96 USD.`,
    });
    expect((await transfers(a.merchant)).json.value).toEqual([]);
    // Pending money cannot leave: only the settled part is available.
    await kit.paid(a.merchant, 100);
    expect(
      (
        await transfer(a.merchant, {
          sourceAccountId: a.account.id,
          destinationAccountNumber: 'DE89370400440532013000',
          amount: 96,
          transferAction: 'BankTransfer',
        })
      ).status,
    ).toBe(409);
    expect(
      (
        await transfer(a.merchant, {
          sourceAccountId: a.account.id,
          destinationAccountNumber: 'DE89370400440532013000',
          amount: 95.84,
          transferAction: 'BankTransfer',
        })
      ).status,
    ).toBe(201);
    expect((await balance(a.merchant, a.account.id)).availableAmount).toBe(0);
  });

  it('an unknown destination, the source itself, another currency or too many decimals: 400 naming the field', async () => {
    const a = await funded();
    const unknown = await transfer(a.merchant, { sourceAccountId: a.account.id, destinationAccountNumber: 'TL99999999999', amount: 1 });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error).toMatchObject({ code: 'validation_error', param: 'destinationAccountNumber' });
    expect(
      (await transfer(a.merchant, { sourceAccountId: a.account.id, destinationAccountNumber: a.account.accountNumber, amount: 1 })).json.error,
    ).toMatchObject({ param: 'destinationAccountNumber' });
    expect(
      (
        await transfer(a.merchant, {
          sourceAccountId: a.account.id,
          destinationAccountNumber: 'DE89370400440532013000',
          amount: 1,
          currencyCode: 'EUR',
          transferAction: 'BankTransfer',
        })
      ).json.error,
    ).toMatchObject({ code: 'validation_error', param: 'currencyCode' });
    expect(
      (
        await transfer(a.merchant, {
          sourceAccountId: a.account.id,
          destinationAccountNumber: 'DE89370400440532013000',
          amount: 1.001,
          transferAction: 'BankTransfer',
        })
      ).json.error,
    ).toMatchObject({ param: 'amount' });
  });

  it("another merchant's source account answers 404; a test account is not a destination in live mode", async () => {
    const a = await funded();
    const other = await t.newMerchant('Other');
    const res = await transfer(other, {
      sourceAccountId: a.account.id,
      destinationAccountNumber: 'DE89370400440532013000',
      amount: 1,
      transferAction: 'BankTransfer',
    });
    expect(res.status).toBe(404);
    const liveAccount = (await t.call('GET', '/v1/account', { apiKey: other.keys.live.secret })).json.value[0];
    const live = await t.call('POST', '/v1/transfer', {
      apiKey: other.keys.live.secret,
      body: { sourceAccountId: liveAccount.id, destinationAccountNumber: a.account.accountNumber, amount: 1, currencyCode: 'USD' },
    });
    expect(live.json.error).toMatchObject({ code: 'validation_error', param: 'destinationAccountNumber' });
  });
});

describe('listGatewayTransfers (OData)', () => {
  it('filters by transferAction, orders, pages and counts, only within the tenant', async () => {
    const a = await funded();
    const dest = 'DE89370400440532013000';
    for (const [amount, action] of [
      [5, 'BankTransfer'],
      [7, 'BankWithdrawal'],
      [3, 'BankTransfer'],
      [9, 'CBDCTransfer'],
    ] as const) {
      expect((await transfer(a.merchant, { sourceAccountId: a.account.id, destinationAccountNumber: dest, amount, transferAction: action })).status).toBe(201);
    }
    const all = (await transfers(a.merchant)).json;
    expect(all.value.map((x: any) => x.amount)).toEqual([9, 3, 7, 5]);
    const bank = (await transfers(a.merchant, `?$filter=${encodeURIComponent("transferAction eq 'BankTransfer'")}&$orderby=amount%20asc&$count=true`)).json;
    expect(bank.value.map((x: any) => [x.transferAction, x.amount])).toEqual([
      ['BankTransfer', 3],
      ['BankTransfer', 5],
    ]);
    expect(bank['@odata.count']).toBe(2);
    const page = (await transfers(a.merchant, '?$orderby=amount%20desc&$top=2&$skip=1&$count=true')).json;
    expect(page.value.map((x: any) => x.amount)).toEqual([7, 5]);
    expect(page['@odata.count']).toBe(4);
    expect(page['@odata.nextLink']).toBe('/v1/GatewayTransferDto?$orderby=amount%20desc&$top=2&$skip=3&$count=true');
    // An `or` cannot reach another tenant's rows.
    const other = await t.newMerchant('Other');
    expect((await transfers(other, `?$filter=${encodeURIComponent('id gt 0 or amount gt 0')}`)).json.value).toEqual([]);
  });

  it('a bad option is a 400 naming it', async () => {
    const m = await t.newMerchant('Bad');
    const res = await transfers(m, `?$filter=${encodeURIComponent("nope eq 'x'")}`);
    expect(res.status).toBe(400);
    expect(res.json.error.param).toBe('$filter');
    expect((await transfers(m, `?$filter=${encodeURIComponent("transferAction eq 'Teleport'")}`)).status).toBe(400);
  });
});

describe('listTransactions', () => {
  it('lists every booking on the money with the balance after it, settlement as two bookings, filterable by type', async () => {
    const a = await funded();
    const all = (await transactions(a.merchant, '?$count=true')).json;
    expect(all['@odata.count']).toBe(4);
    expect(all.value.map((x: any) => [x.type, x.amount, x.balanceAfter])).toEqual([
      ['Settlement', 96.8, 96.8],
      ['Settlement', -96.8, 0],
      ['Fee', -3.2, 96.8],
      ['Payment', 100, 100],
    ]);
    const fees = (await transactions(a.merchant, `?$filter=${encodeURIComponent(`type eq 'Fee' and accountId eq ${a.account.id}`)}`)).json.value;
    expect(fees.map((x: any) => x.amount)).toEqual([-3.2]);
  });
});
