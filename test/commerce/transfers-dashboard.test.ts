// The transfers dashboard: every figure against the transfer rows behind it, for the period,
// the currency, the institution and each timeUnit.
import { Decimal } from 'decimal.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { ManualClock } from '../../server/shared/clock.js';
import { fundsKit } from '../support/funds.js';
import { useTestServer } from '../support/server.js';

const clock = new ManualClock('2026-03-01T08:00:00Z');
const t = useTestServer({ clock });
let merchant: MerchantCredentials;
beforeAll(async () => {
  const kit = fundsKit(t);
  merchant = await t.newMerchant('Dashboard');
  await kit.funded(merchant, 1000);
  const source = (await kit.account(merchant)).id;
  const receiver = await t.newMerchant('Receiver');
  const till = (await kit.account(receiver)).accountNumber;
  const bank = 'DE89370400440532013000';
  const send = async (at: string, body: Record<string, unknown>) => {
    clock.set(at);
    const res = await t.call('POST', '/v1/transfer', { apiKey: merchant.keys.test.secret, body: { sourceAccountId: source, currencyCode: 'USD', ...body } });
    if (res.status !== 201) throw new Error(res.text);
    return res.json;
  };
  await send('2026-02-28T23:59:59Z', { destinationAccountNumber: bank, amount: 7, transferAction: 'BankTransfer' });
  await send('2026-03-02T10:00:00Z', { destinationAccountNumber: till, amount: 100 });
  await send('2026-03-02T23:30:00Z', { destinationAccountNumber: bank, amount: 50, transferAction: 'BankTransfer', feePayer: 'Receiver' });
  const failed = await send('2026-03-10T12:00:00Z', { destinationAccountNumber: bank, amount: 33.33, transferAction: 'BankWithdrawal', feePayer: 'Both' });
  // A transfer the bank bounced while it was processing.
  const bounced = await t.call('POST', `/v1/test-helpers/transfers/${failed.id}/fail`, { key: merchant.keys.test.secret, body: {} });
  if (bounced.status !== 200) throw new Error(bounced.text);
  await send('2026-04-01T00:00:00Z', { destinationAccountNumber: bank, amount: 10, transferAction: 'CBDCTransfer' });
  clock.set('2026-04-15T12:00:00Z');
  // The merchant's sandbox clock runs what fell due since: every other transfer completes.
  const advanced = await t.call('POST', '/v1/test-helpers/clock/advance', { key: merchant.keys.test.secret, body: { seconds: 1 } });
  if (advanced.status !== 200) throw new Error(advanced.text);
});

const dashboard = (qs: string) => t.call('GET', `/v1/FinancialDashboard/transfers${qs}`, { apiKey: merchant.keys.test.secret });
const MARCH = '?startDate=2026-03-01&endDate=2026-03-31';

describe('getTransfersDashboard', () => {
  it('sums the transfers of the period, exactly', async () => {
    const res = await dashboard(MARCH);
    expect(res.status).toBe(200);
    // 100 (fee 1, sender) + 50 (fee 0.50, receiver) + 33.33 (fee 0.33: 0.17 sender, 0.16 receiver).
    expect(res.json.summary).toEqual({
      totalTransfers: 3,
      totalSourceAmount: 184.5,
      totalPayoutAmount: 182.67,
      totalFees: 1.83,
      averageAmount: 61.11,
      completionRate: 66.67,
    });
    expect(res.json.typeBreakdown).toEqual([
      { requestType: 'BankTransfer', count: 1, totalAmount: 50, totalFees: 0.5 },
      { requestType: 'BankWithdrawal', count: 1, totalAmount: 33.33, totalFees: 0.33 },
      { requestType: 'ExecuteTransfer', count: 1, totalAmount: 100, totalFees: 1 },
    ]);
    expect(res.json.statusBreakdown).toEqual([
      { status: 'Completed', count: 2, totalAmount: 150 },
      { status: 'Failed', count: 1, totalAmount: 33.33 },
    ]);
    expect(res.json.feePayerBreakdown).toEqual([
      { feePayer: 'Both', count: 1, totalFeeAmount: 0.33 },
      { feePayer: 'Receiver', count: 1, totalFeeAmount: 0.5 },
      { feePayer: 'Sender', count: 1, totalFeeAmount: 1 },
    ]);
  });

  it('every figure agrees with the rows behind it', async () => {
    const rows = await t.database.db
      .selectFrom('transfers')
      .selectAll()
      .where('merchant_id', '=', merchant.merchantId)
      .where('created_at', '>=', new Date('2026-03-01T00:00:00Z'))
      .where('created_at', '<', new Date('2026-04-01T00:00:00Z'))
      .execute();
    const sum = (f: (r: (typeof rows)[number]) => Decimal.Value) => rows.reduce((s, r) => s.plus(f(r)), new Decimal(0)).toNumber();
    const { summary } = (await dashboard(MARCH)).json;
    expect(summary.totalTransfers).toBe(rows.length);
    expect(summary.totalSourceAmount).toBe(sum((r) => new Decimal(r.amount).plus(r.sender_fee)));
    expect(summary.totalPayoutAmount).toBe(sum((r) => new Decimal(r.amount).minus(r.receiver_fee)));
    expect(summary.totalFees).toBe(sum((r) => r.fee));
  });

  it('timeSeries: one entry per day, week (from Monday) or month, empty ones included', async () => {
    const days = (await dashboard(MARCH)).json.timeSeries;
    expect(days).toHaveLength(31);
    expect(days[0]).toEqual({ date: '2026-03-01', count: 0, totalSourceAmount: 0, totalPayoutAmount: 0, totalFees: 0 });
    expect(days[1]).toEqual({ date: '2026-03-02', count: 2, totalSourceAmount: 151, totalPayoutAmount: 149.5, totalFees: 1.5 });
    expect(days[9]).toEqual({ date: '2026-03-10', count: 1, totalSourceAmount: 33.5, totalPayoutAmount: 33.17, totalFees: 0.33 });
    expect(days.filter((d: any) => d.count > 0)).toHaveLength(2);
    const weeks = (await dashboard(`${MARCH}&timeUnit=Week`)).json.timeSeries;
    expect(weeks.map((w: any) => [w.date, w.count])).toEqual([
      ['2026-02-23', 0],
      ['2026-03-02', 2],
      ['2026-03-09', 1],
      ['2026-03-16', 0],
      ['2026-03-23', 0],
      ['2026-03-30', 0],
    ]);
    const months = (await dashboard('?startDate=2026-02-01&endDate=2026-04-30&timeUnit=Month')).json.timeSeries;
    expect(months.map((m: any) => [m.date, m.count, m.totalSourceAmount])).toEqual([
      ['2026-02-01', 1, 7.07],
      ['2026-03-01', 3, 184.5],
      ['2026-04-01', 1, 10.1],
    ]);
  });

  it('defaults to the 30 days before today on the clock; another currency counts nothing', async () => {
    // 2026-03-16 .. 2026-04-15: only the CBDC transfer of April 1.
    const res = (await dashboard('')).json;
    expect(res.summary).toMatchObject({ totalTransfers: 1, totalSourceAmount: 10.1 });
    expect(res.timeSeries).toHaveLength(31);
    expect(res.timeSeries[0].date).toBe('2026-03-16');
    const eur = (await dashboard(`${MARCH}&currencyCode=EUR`)).json;
    expect(eur.summary).toEqual({ totalTransfers: 0, totalSourceAmount: 0, totalPayoutAmount: 0, totalFees: 0, averageAmount: 0, completionRate: 0 });
    expect(eur.typeBreakdown).toEqual([]);
  });

  it('institutionId counts the transfers through that institution only: 1 Till, 2 the bank network, 3 the CBDC network', async () => {
    const till = (await dashboard(`${MARCH}&institutionId=1`)).json;
    expect(till.summary).toEqual({ totalTransfers: 1, totalSourceAmount: 101, totalPayoutAmount: 100, totalFees: 1, averageAmount: 100, completionRate: 100 });
    expect(till.typeBreakdown).toEqual([{ requestType: 'ExecuteTransfer', count: 1, totalAmount: 100, totalFees: 1 }]);
    const banks = (await dashboard(`${MARCH}&institutionId=2`)).json;
    expect(banks.summary).toMatchObject({ totalTransfers: 2, totalSourceAmount: 83.5, totalFees: 0.83, completionRate: 50 });
    expect(banks.statusBreakdown).toEqual([
      { status: 'Completed', count: 1, totalAmount: 50 },
      { status: 'Failed', count: 1, totalAmount: 33.33 },
    ]);
    expect(banks.timeSeries.filter((d: any) => d.count > 0).map((d: any) => [d.date, d.count])).toEqual([
      ['2026-03-02', 1],
      ['2026-03-10', 1],
    ]);
    expect((await dashboard(`${MARCH}&institutionId=3`)).json.summary.totalTransfers).toBe(0);
    expect((await dashboard('?startDate=2026-04-01&endDate=2026-04-01&institutionId=3')).json.summary).toMatchObject({
      totalTransfers: 1,
      totalSourceAmount: 10.1,
    });
    const none = (await dashboard(`${MARCH}&institutionId=4`)).json;
    expect(none.summary.totalTransfers).toBe(0);
    expect(none.timeSeries.every((d: any) => d.count === 0)).toBe(true);
  });

  it('a start after the end, or a period over 366 days, is a 400 naming startDate', async () => {
    const late = await dashboard('?startDate=2026-04-02&endDate=2026-04-01');
    expect(late.status).toBe(400);
    expect(late.json.error).toMatchObject({ code: 'validation_error', param: 'startDate' });
    expect((await dashboard('?startDate=2025-01-01&endDate=2026-03-31')).json.error).toMatchObject({ param: 'startDate' });
  });

  it('the last day the calendar has (9999-12-31) is a period like any other, by day, with an institution', async () => {
    for (const qs of [
      '?endDate=9999-12-31&timeUnit=Day',
      '?endDate=9999-12-31&currencyCode=USD&institutionId=1&timeUnit=Day',
      '?startDate=9999-12-01&endDate=9999-12-31&timeUnit=Month',
    ]) {
      const res = await dashboard(qs);
      expect(res.status, `${qs}: ${res.text}`).toBe(200);
      expect(res.json.summary.totalTransfers).toBe(0);
      expect(res.json.timeSeries.at(-1).date).toBe(qs.includes('Month') ? '9999-12-01' : '9999-12-31');
    }
  });

  it('another merchant sees none of these transfers', async () => {
    const other = await t.newMerchant('Other');
    const res = await t.call('GET', `/v1/FinancialDashboard/transfers${MARCH}`, { apiKey: other.keys.test.secret });
    expect(res.json.summary.totalTransfers).toBe(0);
  });
});
