// Payouts (issue 15 §4): settled money is paid out on the clock, in daily batches per currency, only
// through the ledger; `payout.completed` / `payout.failed`; the test helpers make one fail and its
// money returns to the available balance. The base clock is a ManualClock, so every time is exact.
import { describe, expect, it } from 'vitest';
import type { MerchantCredentials } from '../../server/domain/merchants/merchant.service.js';
import { ManualClock } from '../../server/shared/clock.js';
import { createLogger } from '../../server/log.js';
import { createTestSession, useTestServer } from '../support/server.js';

// Monday 2 November 2026, 10:00 UTC.
const start = new Date('2026-11-02T10:00:00.000Z');
const clock = new ManualClock(start);
const t = useTestServer(() => ({ clock, logger: createLogger('error') }));

const HOUR = 3600;
const card = { cardNumber: '4242424242424242', expiryMonth: 12, expiryYear: 2030, cvc: '123' };
const advance = (m: MerchantCredentials, seconds: number) => t.call('POST', '/v1/test-helpers/clock/advance', { key: m.keys.test.secret, body: { seconds } });

/** A 100.00 USD test card payment, captured at once (fee 3.20: 96.80 settles 48 hours later). */
async function pay(m: MerchantCredentials, amount = 100): Promise<number> {
  const s = await createTestSession(t, m, false, { amount });
  const pk = m.keys.test.publishable;
  const pm = await t.call('POST', `/v1/checkout-sessions/${s.id}/tokenize`, { key: pk, clientSecret: s.clientSecret, body: card });
  const res = await t.call('POST', `/v1/checkout-sessions/${s.id}/confirm`, { key: pk, clientSecret: s.clientSecret, body: { paymentMethodId: pm.json.id } });
  expect(res.status).toBe(200);
  return res.json.paymentResult.id as number;
}

/** The merchant's test-mode USD ledger, by account (exact strings). */
async function balances(m: MerchantCredentials): Promise<Record<string, string>> {
  const rows = await t.database.db
    .selectFrom('ledger_entries')
    .select(['account', (eb) => eb.fn.sum<string>('amount').as('total')])
    .where('merchant_id', '=', m.merchantId)
    .where('livemode', '=', false)
    .where('account', 'in', ['available', 'in_transit', 'paid_out'])
    .groupBy('account')
    .execute();
  const out: Record<string, string> = { available: '0', in_transit: '0', paid_out: '0' };
  for (const r of rows) out[r.account] = Number(r.total).toFixed(2);
  return out;
}

const entries = (m: MerchantCredentials) =>
  t.database.db.selectFrom('payout_entries').selectAll().where('merchant_id', '=', m.merchantId).orderBy('created_at').execute();
const batches = (m: MerchantCredentials) =>
  t.database.db.selectFrom('payout_batches').selectAll().where('merchant_id', '=', m.merchantId).orderBy('created_at').execute();
async function events(m: MerchantCredentials, type: string) {
  const res = await t.call('GET', `/v1/events?type=${type}`, { key: m.keys.test.secret });
  expect(res.status, res.text).toBe(200);
  return res.json.data as any[];
}

describe('the payout schedule', () => {
  it('pays out at 00:00 UTC what was available then, arrives 24 hours later: available → in transit → paid out, payout.completed', async () => {
    const m = await t.newMerchant();
    await pay(m);
    // Settles on Wednesday 4 November at 10:00 (48 hours): available, but not available at that day's start.
    expect((await advance(m, 48 * HOUR)).status).toBe(200);
    expect(await balances(m)).toEqual({ available: '96.80', in_transit: '0', paid_out: '0' });
    expect(await entries(m)).toEqual([]);
    // Thursday 00:00: the day's payout leaves.
    await advance(m, 14 * HOUR);
    expect(await balances(m)).toEqual({ available: '0.00', in_transit: '96.80', paid_out: '0' });
    const [entry] = await entries(m);
    expect(entry).toMatchObject({
      amount: '96.8000',
      currency: 'USD',
      status: 'processing',
      transfer_type: 'BankTransfer',
      destination_type: 'bank_account',
      livemode: false,
    });
    expect(entry!.created_at.toISOString()).toBe('2026-11-05T00:00:00.000Z');
    expect(entry!.arrival_at.toISOString()).toBe('2026-11-06T00:00:00.000Z');
    expect(await batches(m)).toMatchObject([{ batch_type: 'scheduled', status: 'processing', currency: 'USD' }]);
    expect(await events(m, 'payout.completed')).toEqual([]);
    // Friday 00:00: it arrives.
    await advance(m, 24 * HOUR);
    expect(await balances(m)).toEqual({ available: '0.00', in_transit: '0.00', paid_out: '96.80' });
    expect(await batches(m)).toMatchObject([{ status: 'completed' }]);
    const [completed] = await events(m, 'payout.completed');
    expect(completed.livemode).toBe(false);
    expect(completed.created).toBe('2026-11-06T00:00:00.000Z');
    expect(completed.data.object).toEqual({
      object: 'payout',
      id: entry!.id,
      amount: 96.8,
      currency: 'USD',
      status: 'Completed',
      destination: { type: 'bank_account', last4: null },
      failureReason: null,
      arrivalDate: '2026-11-06T00:00:00.000Z',
      isLive: false,
      createdAt: '2026-11-05T00:00:00.000Z',
    });
    // Nothing waits any more: a long advance runs nothing.
    expect((await advance(m, 72 * HOUR)).json.jobsRun).toBe(0);
  });

  it('keeps a balance under the minimum (1.00) and pays nothing out', async () => {
    const m = await t.newMerchant();
    await pay(m, 1); // 1.00 less the fee 0.33: 0.67 settles
    await advance(m, 5 * 24 * HOUR);
    expect(await balances(m)).toEqual({ available: '0.67', in_transit: '0', paid_out: '0' });
    expect(await entries(m)).toEqual([]);
  });

  it("failNextTestPayout: the next payout fails on arrival, its money is available again (payout.failed) and leaves in the next day's payout", async () => {
    const m = await t.newMerchant();
    const armed = await t.call('POST', '/v1/test-helpers/payouts/fail-next', {
      key: m.keys.test.secret,
      body: { failureReason: 'The bank account is closed.' },
    });
    expect(armed.status).toBe(200);
    expect(armed.json).toEqual({ object: 'test_payout_failure', failureReason: 'The bank account is closed.', armedAt: start.toISOString(), livemode: false });
    await pay(m);
    await advance(m, 62 * HOUR); // Thursday 00:00: the payout leaves
    expect(await balances(m)).toEqual({ available: '0.00', in_transit: '96.80', paid_out: '0' });
    await advance(m, 24 * HOUR); // Friday 00:00: it fails instead of arriving
    expect(await balances(m)).toEqual({ available: '96.80', in_transit: '0.00', paid_out: '0' });
    const [first] = await entries(m);
    expect(first).toMatchObject({ status: 'failed', failure_reason: 'The bank account is closed.' });
    expect(await batches(m)).toMatchObject([{ status: 'failed' }]);
    const [failed] = await events(m, 'payout.failed');
    expect(failed.data.object).toMatchObject({
      id: first!.id,
      status: 'Failed',
      failureReason: 'The bank account is closed.',
      arrivalDate: null,
      amount: 96.8,
      isLive: false,
    });
    expect(failed.created).toBe('2026-11-06T00:00:00.000Z');
    // The returned money waits for Saturday's payout, which arrives (one armed failure fails one payout).
    await advance(m, 48 * HOUR);
    expect(await balances(m)).toEqual({ available: '0.00', in_transit: '0.00', paid_out: '96.80' });
    const all = await entries(m);
    expect(all.map((e) => [e.status, e.created_at.toISOString()])).toEqual([
      ['failed', '2026-11-05T00:00:00.000Z'],
      ['completed', '2026-11-07T00:00:00.000Z'],
    ]);
  });

  it("failTestPayout: a payout that arrived is returned by the bank; again is 409, another merchant's is 404, a live key is 403", async () => {
    const m = await t.newMerchant();
    await pay(m);
    await advance(m, 86 * HOUR); // leaves Thursday, arrives Friday 00:00
    const [entry] = await entries(m);
    expect(entry!.status).toBe('completed');
    const other = await t.newMerchant();
    expect((await t.call('POST', `/v1/test-helpers/payouts/${entry!.id}/fail`, { key: other.keys.test.secret })).status).toBe(404);
    expect((await t.call('POST', `/v1/test-helpers/payouts/${entry!.id}/fail`, { key: m.keys.live.secret })).status).toBe(403);
    const res = await t.call('POST', `/v1/test-helpers/payouts/${entry!.id}/fail`, { key: m.keys.test.secret });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      id: entry!.id,
      status: 'Failed',
      failureReason: 'The bank rejected the payout (test helper).',
      arrivalDate: null,
      amount: 96.8,
    });
    expect(await balances(m)).toEqual({ available: '96.80', in_transit: '0.00', paid_out: '0.00' });
    expect((await events(m, 'payout.failed')).map((e) => e.data.object.id)).toEqual([entry!.id]);
    const again = await t.call('POST', `/v1/test-helpers/payouts/${entry!.id}/fail`, { key: m.keys.test.secret });
    expect(again.status).toBe(409);
    expect(again.json.error.code).toBe('invalid_state');
  });
});
