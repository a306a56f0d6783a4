// The transfer rules (commerce-api.md, "Transfer" and "Account and balance"), called directly on
// the domain: the fee rule (server/domain/transfers/transfer-fee.ts: 1% of the amount, rounded half
// up to the currency's minor unit, split by feePayer) and the balance rules of a transfer
// (createTransfer on a database of its own: only the available balance leaves, the destination
// gets its share when the transfer completes, every posting balances, a failed one returns it all)
// and when a transfer completes (transfer-timing.ts). The HTTP tests of the same rules are in
// transfers.test.ts.
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FeePayer, TransferAction } from '../../server/domain/transfers/transfer.tables.js';
import type { WalletAccountRow } from '../../server/domain/accounts/account.tables.js';
import { accountBalance, listAccounts } from '../../server/domain/accounts/account.service.js';
import { post } from '../../server/domain/ledger/ledger.service.js';
import { createMerchant } from '../../server/domain/merchants/merchant.service.js';
import { transferFee } from '../../server/domain/transfers/transfer-fee.js';
import { completeDueTransfers, failTransferNow } from '../../server/domain/transfers/transfer-processing.js';
import { completesAt, institutionOf } from '../../server/domain/transfers/transfer-timing.js';
import { createTransfer, type TransferRequest } from '../../server/domain/transfers/transfer.service.js';
import { ManualClock } from '../../server/shared/clock.js';
import { AppError } from '../../server/shared/errors.js';
import type { Tenant } from '../../server/shared/tenant.js';
import { useTestDatabase } from '../support/domain.js';

const PAYERS: FeePayer[] = ['Sender', 'Receiver', 'Both'];
const BANK = 'DE89370400440532013000';

describe('the transfer fee rule', () => {
  it('the fee is 1% of the amount, rounded half up to the minor unit of the currency', () => {
    const cases: [string, string, string][] = [
      ['50.00', 'USD', '0.50'],
      ['33.33', 'USD', '0.33'],
      ['0.50', 'USD', '0.01'], // 0.005 → 0.01
      ['0.49', 'USD', '0.00'], // 0.0049 → 0.00
      ['150', 'JPY', '2'], // 1.5 → 2
      ['149', 'JPY', '1'],
      ['12.345', 'KWD', '0.123'], // 0.12345 → 0.123
      ['0.050', 'KWD', '0.001'], // 0.0005 → 0.001
    ];
    for (const [amount, currency, fee] of cases) expect(transferFee(amount, currency, 'Sender').fee, `${amount} ${currency}`).toBe(fee);
  });

  it('feePayer Sender: the sender pays all of the fee; Receiver: the receiver; Both: the sender half of it rounded half up, the receiver the rest', () => {
    expect(transferFee('50.00', 'USD', 'Sender')).toEqual({ fee: '0.50', senderFee: '0.50', receiverFee: '0.00' });
    expect(transferFee('50.00', 'USD', 'Receiver')).toEqual({ fee: '0.50', senderFee: '0.00', receiverFee: '0.50' });
    expect(transferFee('33.33', 'USD', 'Both')).toEqual({ fee: '0.33', senderFee: '0.17', receiverFee: '0.16' }); // 0.165 → 0.17
    expect(transferFee('300', 'JPY', 'Both')).toEqual({ fee: '3', senderFee: '2', receiverFee: '1' }); // 1.5 → 2
  });

  it('for any amount and currency, the parts are whole minor units and sum to the fee exactly', () => {
    const currencies = [
      ['USD', 2],
      ['JPY', 0],
      ['KWD', 3],
    ] as const;
    fc.assert(
      fc.property(
        fc.constantFrom(...currencies),
        fc.integer({ min: 1, max: 10_000_000_000 }),
        fc.constantFrom(...PAYERS),
        ([currency, digits], minor, payer) => {
          const amount = new Decimal(minor).dividedBy(10 ** digits).toFixed(digits);
          const { fee, senderFee, receiverFee } = transferFee(amount, currency, payer);
          // 1% of `minor` minor units, rounded half up, in integers.
          expect(new Decimal(fee).times(10 ** digits).toNumber()).toBe(Math.floor((minor + 50) / 100));
          for (const part of [fee, senderFee, receiverFee]) expect(new Decimal(part).decimalPlaces()).toBeLessThanOrEqual(digits);
          expect(new Decimal(senderFee).plus(receiverFee).equals(fee)).toBe(true);
          expect(new Decimal(senderFee).isNegative() || new Decimal(receiverFee).isNegative()).toBe(false);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('when a transfer completes', () => {
  const at = (iso: string, action: TransferAction) => completesAt(action, new Date(iso)).toISOString();

  it('between Till accounts 1 hour after it was made, any day', () => {
    expect(at('2026-03-06T23:30:00.000Z', 'ExecuteTransfer')).toBe('2026-03-07T00:30:00.000Z');
    expect(at('2026-03-07T10:00:00.000Z', 'ExecuteTransfer')).toBe('2026-03-07T11:00:00.000Z'); // a Saturday
  });

  it('out of Till on the next business day at the same time: 24 hours later, moved past Saturday and Sunday (UTC)', () => {
    expect(at('2026-03-02T10:00:00.000Z', 'BankTransfer')).toBe('2026-03-03T10:00:00.000Z'); // Monday → Tuesday
    expect(at('2026-03-05T23:59:59.000Z', 'BankWithdrawal')).toBe('2026-03-06T23:59:59.000Z'); // Thursday → Friday
    expect(at('2026-03-06T10:00:00.000Z', 'CBDCTransfer')).toBe('2026-03-09T10:00:00.000Z'); // Friday → Monday
    expect(at('2026-03-07T10:00:00.000Z', 'BankTransfer')).toBe('2026-03-09T10:00:00.000Z'); // Saturday → Monday
    expect(at('2026-03-08T10:00:00.000Z', 'BankTransfer')).toBe('2026-03-09T10:00:00.000Z'); // Sunday → Monday
  });

  it('the institution: 1 Till, 2 the bank network, 3 the CBDC network', () => {
    expect((['ExecuteTransfer', 'BankTransfer', 'BankWithdrawal', 'CBDCTransfer'] as const).map(institutionOf)).toEqual([1, 2, 2, 3]);
  });
});

describe('the balance rules of a transfer', () => {
  const clock = new ManualClock('2026-03-02T10:00:00Z');
  const database = useTestDatabase();

  let merchants = 0;
  /** A merchant's test mode and its account in `currency`, with `settled` available and `pending` not settled yet. */
  async function account(settled: string, { currency = 'USD', pending = '0' } = {}): Promise<{ tenant: Tenant; account: WalletAccountRow }> {
    const { merchant } = await createMerchant(database.db, clock, { name: `Transfers ${++merchants}` });
    const tenant = { merchantId: merchant.id, livemode: false };
    const at = clock.now();
    await database.db.transaction().execute(async (trx) => {
      const context = { tenant, paymentId: null, currency, at };
      if (new Decimal(settled).greaterThan(0))
        await post(trx, context, [
          { type: 'payment', amount: settled },
          { type: 'settlement', net: settled },
        ]);
      if (new Decimal(pending).greaterThan(0)) await post(trx, context, [{ type: 'payment', amount: pending }]);
    });
    const found = (await listAccounts(database.db, clock, tenant)).find((a) => a.currency.trim() === currency)!;
    return { tenant, account: found };
  }
  const send = (tenant: Tenant, request: Partial<TransferRequest> & Pick<TransferRequest, 'sourceAccountId' | 'amount'>) =>
    createTransfer(database.db, clock, tenant, {
      destinationAccountNumber: BANK,
      currency: 'USD',
      action: 'BankTransfer' as TransferAction,
      feePayer: 'Sender',
      description: null,
      ...request,
    });
  const balanceOf = async (a: { tenant: Tenant; account: WalletAccountRow }) => {
    const b = await accountBalance(database.db, a.tenant, a.account.id);
    return { current: Number(b.current), available: Number(b.available) };
  };
  async function refusal(call: () => Promise<unknown>): Promise<AppError> {
    const error = await call().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  const entriesOf = (transferId: number) =>
    database.db.selectFrom('ledger_entries').select(['merchant_id', 'account', 'type', 'amount']).where('transfer_id', '=', transferId).orderBy('id').execute();
  const sum = (rows: { amount: string }[]) => rows.reduce((s, r) => s.plus(r.amount), new Decimal(0));
  /** Moves the base clock on and runs the transfers that fell due: how many completed or failed. */
  const later = (seconds: number) => {
    clock.advance(seconds);
    return completeDueTransfers(database.db, clock);
  };

  it('feePayer Sender, between Till accounts: the source pays the amount and the fee, the destination gets the amount', async () => {
    const a = await account('100.00');
    const b = await account('0');
    const transfer = await send(a.tenant, {
      sourceAccountId: a.account.id,
      amount: '50.00',
      action: 'ExecuteTransfer',
      destinationAccountNumber: b.account.account_number,
    });
    expect(transfer).toMatchObject({ status: 'Processing', fee_payer: 'Sender', destination_account_id: b.account.id, institution_id: 1 });
    expect(await balanceOf(a)).toEqual({ current: 49.5, available: 49.5 });
    expect(await balanceOf(b)).toEqual({ current: 0, available: 0 });
    expect(await later(3599)).toBe(0);
    expect(await later(1)).toBe(1);
    expect(await balanceOf(a)).toEqual({ current: 49.5, available: 49.5 });
    expect(await balanceOf(b)).toEqual({ current: 50, available: 50 });
  });

  it('feePayer Receiver: the destination gets the amount less the fee; Both: each pays its part', async () => {
    const a = await account('100.00');
    const b = await account('0');
    const to = { action: 'ExecuteTransfer' as const, destinationAccountNumber: b.account.account_number };
    await send(a.tenant, { sourceAccountId: a.account.id, amount: '10.00', feePayer: 'Receiver', ...to });
    await send(a.tenant, { sourceAccountId: a.account.id, amount: '33.33', feePayer: 'Both', ...to });
    await later(3600);
    expect(await balanceOf(a)).toEqual({ current: 56.5, available: 56.5 }); // 100 - 10 - (33.33 + 0.17)
    expect(await balanceOf(b)).toEqual({ current: 43.07, available: 43.07 }); // (10 - 0.10) + (33.33 - 0.16)
  });

  it('a transfer out of Till with the receiver paying: the fee is withheld from the money sent; every posting sums to zero', async () => {
    const a = await account('100.00');
    const transfer = await send(a.tenant, { sourceAccountId: a.account.id, amount: '20.00', feePayer: 'Receiver' });
    expect(await balanceOf(a)).toEqual({ current: 80, available: 80 });
    const entries = await entriesOf(transfer.id);
    expect(entries.map((e) => [e.account, e.type, Number(e.amount)])).toEqual([
      ['available', 'transfer', -20],
      ['transfers', 'transfer', 19.8],
      ['fees', 'transfer_fee', 0.2],
    ]);
    expect(sum(entries).isZero()).toBe(true);
  });

  it('a failed transfer returns the amount and the sender fee for any fee payer, exactly; the destination gets nothing', async () => {
    for (const feePayer of PAYERS) {
      const a = await account('100.00');
      const b = await account('0');
      const out = await send(a.tenant, { sourceAccountId: a.account.id, amount: '33.33', feePayer });
      const till = await send(a.tenant, {
        sourceAccountId: a.account.id,
        amount: '12.34',
        feePayer,
        action: 'ExecuteTransfer',
        destinationAccountNumber: b.account.account_number,
      });
      for (const transfer of [out, till]) {
        const failed = await failTransferNow(database.db, clock, a.tenant, transfer.id, 'Rejected.');
        expect(failed).toMatchObject({ status: 'Failed', failure_reason: 'Rejected.' });
        const entries = await entriesOf(transfer.id);
        expect(sum(entries).isZero(), feePayer).toBe(true);
        expect(sum(entries.filter((e) => e.account === 'transfers')).isZero(), feePayer).toBe(true);
      }
      expect(await balanceOf(a), feePayer).toEqual({ current: 100, available: 100 });
      await later(7 * 86_400);
      expect(await balanceOf(b), feePayer).toEqual({ current: 0, available: 0 });
    }
  });

  it('availableAmount may be lower than currentAmount: only the available part leaves, amount and fee; short, nothing is written', async () => {
    const a = await account('50.00', { pending: '100.00' });
    expect(await balanceOf(a)).toEqual({ current: 150, available: 50 });
    const short = await refusal(() => send(a.tenant, { sourceAccountId: a.account.id, amount: '49.51' })); // 49.51 + 0.50 > 50
    expect([short.code, short.param, short.message]).toEqual([
      'invalid_state',
      'amount',
      `Account ${a.account.id} has 50.00 USD available; the transfer needs 50.01 USD.`,
    ]);
    expect(await database.db.selectFrom('transfers').select('id').where('source_account_id', '=', a.account.id).execute()).toEqual([]);
    expect(await balanceOf(a)).toEqual({ current: 150, available: 50 });
    await send(a.tenant, { sourceAccountId: a.account.id, amount: '49.50' }); // 49.50 + 0.50 = 50
    expect(await balanceOf(a)).toEqual({ current: 100, available: 0 });
    // With the receiver paying, the sender needs the amount only.
    const b = await account('10.00');
    await send(b.tenant, { sourceAccountId: b.account.id, amount: '10.00', feePayer: 'Receiver' });
    expect(await balanceOf(b)).toEqual({ current: 0, available: 0 });
  });

  it('the destination is another Till account of the same mode and currency, and the currency is the source account one', async () => {
    const a = await account('100.00');
    const euros = await account('100.00', { currency: 'EUR' });
    const from = { sourceAccountId: a.account.id, amount: '1.00', action: 'ExecuteTransfer' as const };
    const cases: [string, Partial<TransferRequest>, string][] = [
      ['unknown', { destinationAccountNumber: 'TL99999999999' }, 'destinationAccountNumber'],
      ['itself', { destinationAccountNumber: a.account.account_number }, 'destinationAccountNumber'],
      ['another currency', { destinationAccountNumber: euros.account.account_number }, 'destinationAccountNumber'],
      ['not the source currency', { destinationAccountNumber: BANK, action: 'BankTransfer', currency: 'EUR' }, 'currencyCode'],
    ];
    for (const [what, request, param] of cases) {
      const e = await refusal(() => send(a.tenant, { ...from, ...request }));
      expect([e.code, e.param], what).toEqual(['validation_error', param]);
    }
    const [live] = await listAccounts(database.db, clock, { ...a.tenant, livemode: true });
    const otherMode = await refusal(() =>
      send({ ...a.tenant, livemode: true }, { ...from, sourceAccountId: live!.id, destinationAccountNumber: euros.account.account_number }),
    );
    expect(otherMode.param).toBe('destinationAccountNumber');
    expect(await balanceOf(a)).toEqual({ current: 100, available: 100 });
  });

  it("another merchant's account cannot send; only an Active account can", async () => {
    const a = await account('100.00');
    const other = await account('0');
    expect((await refusal(() => send(other.tenant, { sourceAccountId: a.account.id, amount: '1.00' }))).code).toBe('resource_not_found');
    await database.db.updateTable('wallet_accounts').set({ status: 'Frozen' }).where('id', '=', a.account.id).execute();
    const frozen = await refusal(() => send(a.tenant, { sourceAccountId: a.account.id, amount: '1.00' }));
    expect([frozen.code, frozen.param]).toEqual(['invalid_state', 'sourceAccountId']);
    expect(await balanceOf(a)).toEqual({ current: 100, available: 100 });
  });
});
