import { transfersDashboard } from '../../domain/transfers/transfer-dashboard.js';
import { ok } from '../kit.js';
import type { CommerceHandlers } from '../types.js';
import { transfersDashboardView } from './views/transfers-dashboard.view.js';

export const transfersDashboardHandlers: CommerceHandlers = {
  async getTransfersDashboard({ db, deps, tenant, query }) {
    const request = {
      startDate: query.startDate,
      endDate: query.endDate,
      currency: query.currencyCode,
      institutionId: query.institutionId,
      timeUnit: (query.timeUnit ?? 'Day').toLowerCase() as 'day' | 'week' | 'month',
    };
    return ok(transfersDashboardView(await transfersDashboard(db, deps.clock, tenant, request)));
  },
};
