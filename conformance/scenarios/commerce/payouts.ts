// Behaviour scenarios of the payouts dashboard (commerce-api.md › Dashboards), run with real
// payouts on the sandbox clock (the payout schedule: see PayoutEventObject in the Checkout
// contract). Clock scenarios share one sandbox merchant, so the figures are checked against the
// payouts read back through the events API for the day, not against one payment alone.
import assert from 'node:assert/strict';
import type { Scenario } from '../../types.js';
import { call, expectStatus } from '../fixtures/http.js';
import { secretKey } from '../fixtures/keys.js';
import { madeOnPayoutDay, PAYOUT_CYCLE, payAndPayOut, payoutEvents } from '../fixtures/payouts.js';
import { clocked, COMMERCE_DOC, source } from '../fixtures/scenario.js';

const DASHBOARDS = source(COMMERCE_DOC, 'Resources and their fields', 'Dashboards');

export const payoutScenarios: Scenario[] = [
  clocked(
    'commerce.dashboards.payouts',
    'The payouts dashboard answers summary {totalBatches, totalAmount, totalDisbursed, pendingAmount, completionRate, totalEntries, totalSucceeded, totalFailed} and the arrays statusBreakdown, timeSeries, transferTypeSummary, batchTypeSummary',
    DASHBOARDS,
    ['getPayoutsDashboard', 'listEvents', ...PAYOUT_CYCLE],
    {
      async run(ctx) {
        const cycle = await payAndPayOut(ctx);
        // The day's USD payouts, as their events tell them (one scheduled batch per currency and day).
        const arrived = (await payoutEvents(ctx, 'payout.completed'))
          .map((e) => e.data.object)
          .filter((p) => p.currency === 'USD' && madeOnPayoutDay(cycle, p.createdAt));
        assert.equal(arrived.length, 1, `one USD payout was made on ${cycle.payoutDays.join(' or ')} and arrived`);
        const payoutDay: string = arrived[0].createdAt.slice(0, 10);
        const amount: number = arrived[0].amount;
        assert.ok(amount >= 96.8, `the payout carries the payment's 96.80 net at least (got ${amount})`);
        const res = await call(ctx, 'commerce', 'getPayoutsDashboard', {
          method: 'GET',
          path: '/v1/FinancialDashboard/payouts',
          apiKey: secretKey(ctx),
          query: { startDate: payoutDay, endDate: payoutDay, currencyCode: 'USD', timeUnit: 'Day' },
        });
        expectStatus(res, 200, 'the payouts dashboard');
        assert.deepEqual(res.json.summary, {
          totalBatches: 1,
          totalAmount: amount,
          totalDisbursed: amount,
          pendingAmount: 0,
          completionRate: 100,
          totalEntries: 1,
          totalSucceeded: 1,
          totalFailed: 0,
        });
        assert.deepEqual(res.json.statusBreakdown, [{ status: 'Completed', count: 1, totalAmount: amount }]);
        assert.deepEqual(res.json.timeSeries, [
          { date: payoutDay, batchCount: 1, entryCount: 1, totalAmount: amount, totalDisbursed: amount, totalFailedAmount: 0 },
        ]);
        assert.deepEqual(res.json.transferTypeSummary, [{ transferType: 'BankTransfer', count: 1, totalAmount: amount, totalFees: 0 }]);
        assert.deepEqual(res.json.batchTypeSummary, [{ batchType: 'Scheduled', batchCount: 1, entryCount: 1, totalAmount: amount }]);
        const reversed = await call(ctx, 'commerce', 'getPayoutsDashboard', {
          method: 'GET',
          path: '/v1/FinancialDashboard/payouts',
          apiKey: secretKey(ctx),
          query: { startDate: payoutDay, endDate: '2000-01-01' },
        });
        assert.equal(reversed.status, 400, 'startDate after endDate is refused');
      },
    },
  ),
];
