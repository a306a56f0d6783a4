// The payouts dashboard: the period's rules (Till's design, as the transfers dashboard's) and its
// figures, each computed in SQL (payouts-dashboard.repository.ts).
import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { currencyCode } from '../../shared/money.js';
import type { Tenant } from '../../shared/tenant.js';
import { endOfDay } from '../../shared/time.js';
import * as repo from './payouts-dashboard.repository.js';
import { defaultCurrencyOf } from '../merchants/default-currency.js';

export type { TimeUnit } from './payouts-dashboard.repository.js';

/** The longest period, in days (both ends included). */
export const MAX_PERIOD_DAYS = 366;
const DEFAULT_PERIOD_DAYS = 30;
const DAY_MS = 86_400_000;

export interface DashboardQuery {
  startDate?: string | undefined;
  endDate?: string | undefined;
  currencyCode?: string | undefined;
  timeUnit: repo.TimeUnit;
}

/**
 * The period of a query: `endDate` defaults to today (UTC, by the tenant's clock), `startDate` to
 * 30 days before it; the currency to `defaultCurrency` (the merchant's).
 */
export function resolvePeriod(clock: Clock, query: DashboardQuery, defaultCurrency: string): repo.DashboardPeriod & { firstDay: string; lastDay: string } {
  const end = query.endDate ? new Date(`${query.endDate}T00:00:00Z`) : new Date(Math.floor(clock.now().getTime() / DAY_MS) * DAY_MS);
  const start = query.startDate ? new Date(`${query.startDate}T00:00:00Z`) : new Date(end.getTime() - DEFAULT_PERIOD_DAYS * DAY_MS);
  if (start > end) throw new AppError('validation_error', { param: 'startDate', message: '`startDate` must not be after `endDate`.' });
  const days = (end.getTime() - start.getTime()) / DAY_MS + 1;
  if (days > MAX_PERIOD_DAYS)
    throw new AppError('validation_error', { param: 'startDate', message: `The period is at most ${MAX_PERIOD_DAYS} days; this one has ${days}.` });
  const currency = query.currencyCode ? currencyCode(query.currencyCode, 'currencyCode') : defaultCurrency;
  const day = (d: Date) => d.toISOString().slice(0, 10);
  return { currency, from: start, until: endOfDay(end), unit: query.timeUnit, firstDay: day(start), lastDay: day(end) };
}

/** Everything the payouts dashboard shows, as the rows' sums and counts (decimal strings). */
export interface PayoutsDashboard {
  currency: string;
  summary: repo.PayoutsSummaryRow;
  byStatus: Awaited<ReturnType<typeof repo.payoutsByStatus>>;
  timeSeries: repo.PayoutsBucketRow[];
  byTransferType: Awaited<ReturnType<typeof repo.payoutsByTransferType>>;
  byBatchType: Awaited<ReturnType<typeof repo.payoutsByBatchType>>;
}

export async function payoutsDashboard(db: Db, clock: Clock, tenant: Tenant, query: DashboardQuery): Promise<PayoutsDashboard> {
  const period = resolvePeriod(clock, query, await defaultCurrencyOf(db, tenant.merchantId));
  const lastDay = new Date(`${period.lastDay}T00:00:00Z`);
  return {
    currency: period.currency,
    summary: await repo.payoutsSummary(db, tenant, period),
    byStatus: await repo.payoutsByStatus(db, tenant, period),
    timeSeries: await repo.payoutsTimeSeries(db, tenant, period, lastDay),
    byTransferType: await repo.payoutsByTransferType(db, tenant, period),
    byBatchType: await repo.payoutsByBatchType(db, tenant, period),
  };
}

/** The payouts per day and their total over the last 30 days in the default currency: what the dashboard's chart shows, in two statements at once. */
export async function payoutsPerDay(db: Db, clock: Clock, tenant: Tenant): Promise<Pick<PayoutsDashboard, 'currency' | 'summary' | 'timeSeries'>> {
  const period = resolvePeriod(clock, { timeUnit: 'day' }, await defaultCurrencyOf(db, tenant.merchantId));
  const [summary, timeSeries] = await Promise.all([
    repo.payoutsSummary(db, tenant, period),
    repo.payoutsTimeSeries(db, tenant, period, new Date(`${period.lastDay}T00:00:00Z`)),
  ]);
  return { currency: period.currency, summary, timeSeries };
}
