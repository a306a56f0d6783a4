import { payoutsDashboard, type TimeUnit } from '../../domain/payouts/payouts-dashboard.js';
import { ok } from '../kit.js';
import type { CommerceHandlers } from '../types.js';
import { payoutsDashboardView } from './views/payouts-dashboard.view.js';

const UNIT: Record<'Day' | 'Week' | 'Month', TimeUnit> = { Day: 'day', Week: 'week', Month: 'month' };

/** `GET /v1/FinancialDashboard/payouts`: the payout batches and entries of a period, computed in SQL. */
export const payoutsDashboardHandlers: CommerceHandlers = {
  async getPayoutsDashboard({ db, deps, tenant, query }) {
    const dashboard = await payoutsDashboard(db, deps.clock, tenant, {
      startDate: query.startDate,
      endDate: query.endDate,
      currencyCode: query.currencyCode,
      timeUnit: UNIT[query.timeUnit ?? 'Day'],
    });
    return ok(payoutsDashboardView(dashboard));
  },
};
