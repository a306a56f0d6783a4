// GET /v1/FinancialDashboard/payouts (issue 15 §4): computed in SQL for the period, currency and
// time buckets; every figure is checked against the payout rows behind it and as exact numbers.
// The payouts are made by the real schedule on a merchant's sandbox clock (base: a ManualClock).
import { Decimal } from 'decimal.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { ManualClock } from '../../server/shared/clock.js';
import { createTestSession, useTestServer } from '../support/server.js';

// Monday 2 November 2026, 10:00 UTC.
const clock = new ManualClock(new Date('2026-11-02T10:00:00.000Z'));
const t = useTestServer({ clock });
let m: MerchantCredentials;
const HOUR = 3600;
const card = { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: 2030, cvc: '123' };

async function pay(amount: number, currency = 'USD'): Promise<void> {
  const s = await createTestSession(t, m, false, { amount, currency });
  const pk = m.keys.test.publishable;
  const pm = await t.call('POST', `/v1/checkout-sessions/${s.id}/tokenize`, { key: pk, clientSecret: s.clientSecret, body: card });
  const res = await t.call('POST', `/v1/checkout-sessions/${s.id}/confirm`, { key: pk, clientSecret: s.clientSecret, body: { paymentMethodId: pm.json.id } });
  expect(res.status).toBe(200);
}
const advance = async (seconds: number) =>
  expect((await t.call('POST', '/v1/test-helpers/clock/advance', { key: m.keys.test.secret, body: { seconds } })).status).toBe(200);
const dashboard = (query: string, apiKey = m.keys.test.secret) => t.call('GET', `/v1/FinancialDashboard/payouts?${query}`, { apiKey });

beforeAll(async () => {
  m = await t.newMerchant();
  await pay(100); // 96.80 settles Wed 4 Nov 10:00
  await pay(30, 'EUR');
  await advance(62 * HOUR); // Thu 5 Nov 00:00: payout A (USD 96.80) and the EUR one leave
  expect((await t.call('POST', '/v1/test-helpers/payouts/fail-next', { key: m.keys.test.secret })).status).toBe(200);
  await pay(50); // 48.25 settles Sat 7 Nov 00:00
  // Sun 8 Nov: payout B (48.25, armed to fail) leaves; Mon 9 Nov it fails; Tue 10 Nov payout C leaves (arrives Wed).
  await advance(5 * 24 * HOUR + 12 * HOUR);
});

/** The figures, recomputed in JS from the rows behind them (the test's own reading of the rules). */
async function fromRows(currency: string, from: string, until: string) {
  const batches = await t.database.db
    .selectFrom('payout_batches')
    .selectAll()
    .where('merchant_id', '=', m.merchantId)
    .where('livemode', '=', false)
    .where('currency', '=', currency)
    .where('created_at', '>=', new Date(`${from}T00:00:00Z`))
    .where('created_at', '<', new Date(`${until}T00:00:00Z`))
    .execute();
  const ids = batches.map((b) => b.id);
  const entries = ids.length ? await t.database.db.selectFrom('payout_entries').selectAll().where('batch_id', 'in', ids).execute() : [];
  const sum = (rows: { amount: string }[]) => rows.reduce((s, r) => s.plus(r.amount), new Decimal(0)).toNumber();
  const succeeded = entries.filter((e) => e.status === 'completed');
  return {
    totalBatches: batches.length,
    totalAmount: sum(entries),
    totalDisbursed: sum(succeeded),
    pendingAmount: sum(entries.filter((e) => e.status === 'processing' || e.status === 'pending')),
    completionRate: entries.length ? new Decimal(succeeded.length).times(100).dividedBy(entries.length).toDecimalPlaces(2).toNumber() : 0,
    totalEntries: entries.length,
    totalSucceeded: succeeded.length,
    totalFailed: entries.filter((e) => e.status === 'failed').length,
  };
}

describe('getPayoutsDashboard', () => {
  it('the month by week: summary, status breakdown, time series (empty weeks included), transfer and batch types', async () => {
    const res = await dashboard('startDate=2026-11-01&endDate=2026-11-30&currencyCode=usd&timeUnit=Week');
    expect(res.status, res.text).toBe(200);
    expect(res.json.summary).toEqual(await fromRows('USD', '2026-11-01', '2026-12-01'));
    expect(res.json.summary).toEqual({
      totalBatches: 3,
      totalAmount: 193.3,
      totalDisbursed: 96.8,
      pendingAmount: 48.25,
      completionRate: 33.33,
      totalEntries: 3,
      totalSucceeded: 1,
      totalFailed: 1,
    });
    expect(res.json.statusBreakdown).toEqual([
      { status: 'Completed', count: 1, totalAmount: 96.8 },
      { status: 'Failed', count: 1, totalAmount: 48.25 },
      { status: 'Processing', count: 1, totalAmount: 48.25 },
    ]);
    const empty = (date: string) => ({ date, batchCount: 0, entryCount: 0, totalAmount: 0, totalDisbursed: 0, totalFailedAmount: 0 });
    expect(res.json.timeSeries).toEqual([
      empty('2026-10-26'),
      { date: '2026-11-02', batchCount: 2, entryCount: 2, totalAmount: 145.05, totalDisbursed: 96.8, totalFailedAmount: 48.25 },
      { date: '2026-11-09', batchCount: 1, entryCount: 1, totalAmount: 48.25, totalDisbursed: 0, totalFailedAmount: 0 },
      empty('2026-11-16'),
      empty('2026-11-23'),
      empty('2026-11-30'),
    ]);
    expect(res.json.transferTypeSummary).toEqual([{ transferType: 'BankTransfer', count: 3, totalAmount: 193.3, totalFees: 0 }]);
    expect(res.json.batchTypeSummary).toEqual([{ batchType: 'Scheduled', batchCount: 3, entryCount: 3, totalAmount: 193.3 }]);
  });

  it('by day and by month; the period bounds are whole UTC days, both included', async () => {
    const days = await dashboard('startDate=2026-11-05&endDate=2026-11-10');
    expect(days.json.timeSeries.map((p: any) => [p.date, p.batchCount, p.totalAmount])).toEqual([
      ['2026-11-05', 1, 96.8],
      ['2026-11-06', 0, 0],
      ['2026-11-07', 0, 0],
      ['2026-11-08', 1, 48.25],
      ['2026-11-09', 0, 0],
      ['2026-11-10', 1, 48.25],
    ]);
    const later = await dashboard('startDate=2026-11-06&endDate=2026-11-08');
    expect(later.json.summary).toEqual(await fromRows('USD', '2026-11-06', '2026-11-09'));
    expect(later.json.summary.totalBatches).toBe(1);
    const month = await dashboard('startDate=2026-11-01&endDate=2026-11-30&timeUnit=Month');
    expect(month.json.timeSeries).toEqual([
      { date: '2026-11-01', batchCount: 3, entryCount: 3, totalAmount: 193.3, totalDisbursed: 96.8, totalFailedAmount: 48.25 },
    ]);
  });

  it('defaults: USD, the 30 days to today by the test clock, by day', async () => {
    const res = await dashboard('');
    expect(res.status).toBe(200);
    expect(res.json.timeSeries).toHaveLength(31);
    expect(res.json.timeSeries[30].date).toBe('2026-11-10');
    expect(res.json.summary).toEqual(await fromRows('USD', '2026-10-11', '2026-11-11'));
  });

  it('counts one currency: the EUR payout only in the EUR dashboard', async () => {
    const eur = await dashboard('startDate=2026-11-01&endDate=2026-11-30&currencyCode=EUR');
    expect(eur.json.summary).toEqual(await fromRows('EUR', '2026-11-01', '2026-12-01'));
    expect(eur.json.summary.totalBatches).toBe(1);
    expect(eur.json.summary.totalSucceeded).toBe(1);
  });

  it('another merchant and the live mode see none of these payouts', async () => {
    const other = await t.newMerchant();
    for (const key of [other.keys.test.secret, m.keys.live.secret]) {
      const res = await dashboard('startDate=2026-11-01&endDate=2026-11-30', key);
      expect(res.json.summary).toEqual({
        totalBatches: 0,
        totalAmount: 0,
        totalDisbursed: 0,
        pendingAmount: 0,
        completionRate: 0,
        totalEntries: 0,
        totalSucceeded: 0,
        totalFailed: 0,
      });
      expect(res.json.statusBreakdown).toEqual([]);
      expect(res.json.transferTypeSummary).toEqual([]);
      expect(res.json.batchTypeSummary).toEqual([]);
    }
  });

  it('the last day the calendar has (9999-12-31) is a period like any other, its last day in the series', async () => {
    for (const [query, last] of [
      ['endDate=9999-12-31&timeUnit=Day', '9999-12-31'],
      ['startDate=9999-12-01&endDate=9999-12-31&timeUnit=Month', '9999-12-01'],
    ] as const) {
      const res = await dashboard(query);
      expect(res.status, `${query}: ${res.text}`).toBe(200);
      expect(res.json.summary.totalBatches).toBe(0);
      expect(res.json.timeSeries.at(-1).date).toBe(last);
    }
  });

  it('refuses a bad period or currency with 400 naming the field', async () => {
    const reversed = await dashboard('startDate=2026-11-10&endDate=2026-11-01');
    expect(reversed.status).toBe(400);
    expect(reversed.json.error).toMatchObject({ code: 'validation_error', param: 'startDate' });
    const long = await dashboard('startDate=2025-11-01&endDate=2026-11-02');
    expect(long.status).toBe(400);
    expect(long.json.error).toMatchObject({ code: 'validation_error', param: 'startDate' });
    expect((await dashboard('startDate=2025-11-02&endDate=2026-11-02')).status).toBe(200); // 366 days
    const currency = await dashboard('currencyCode=ZZZ');
    expect(currency.status).toBe(400);
    expect(currency.json.error).toMatchObject({ code: 'parameter_invalid', param: 'currencyCode' });
    expect((await dashboard('timeUnit=Year')).status).toBe(400);
  });
});
