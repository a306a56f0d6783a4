// The transfers dashboard: a period of UTC days (default the 30 days before `endDate`, which
// defaults to today on the tenant's clock), one currency, and time buckets.
import { Decimal } from 'decimal.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { minorUnits } from '../../shared/money.js';
import type { Tenant } from '../../shared/tenant.js';
import { endOfDay } from '../../shared/time.js';
import { defaultCurrencyOf } from '../merchants/default-currency.js';
import { dashboardGroups, dashboardSeries, dashboardSummary, type DashboardScope, type TimeUnit } from './transfer-dashboard.repository.js';

export type { TimeUnit };

export interface DashboardRequest {
  startDate?: string;
  endDate?: string;
  currency?: string;
  institutionId?: number;
  timeUnit: TimeUnit;
}

export interface DashboardGroup {
  key: string;
  count: number;
  amount: string;
  fees: string;
}

/** The dashboard's figures: decimal strings, in `currency`. */
export interface TransfersDashboard {
  currency: string;
  summary: { count: number; source: string; payout: string; fees: string; average: string; completionRate: string };
  byAction: DashboardGroup[];
  byStatus: DashboardGroup[];
  byFeePayer: DashboardGroup[];
  series: Array<{ date: string; count: number; source: string; payout: string; fees: string }>;
}

const DAY_MS = 86_400_000;
const MAX_DAYS = 366;
const day = (date: Date) => date.toISOString().slice(0, 10);

/** The period as UTC instants [from, to), checked: start not after end, at most 366 days. */
export function dashboardPeriod(clock: Clock, startDate: string | undefined, endDate: string | undefined): { from: Date; to: Date; lastDay: string } {
  const end = new Date(`${endDate ?? day(clock.now())}T00:00:00Z`);
  const start = startDate ? new Date(`${startDate}T00:00:00Z`) : new Date(end.getTime() - 30 * DAY_MS);
  if (start > end) throw new AppError('validation_error', { param: 'startDate', message: 'startDate must not be after endDate.' });
  if ((end.getTime() - start.getTime()) / DAY_MS + 1 > MAX_DAYS)
    throw new AppError('validation_error', { param: 'startDate', message: `The period may be at most ${MAX_DAYS} days.` });
  return { from: start, to: endOfDay(end), lastDay: day(end) };
}

/** The transfers dashboard of the tenant; with `institutionId`, of the transfers through that institution only. */
export async function transfersDashboard(db: Db, clock: Clock, tenant: Tenant, request: DashboardRequest): Promise<TransfersDashboard> {
  const period = dashboardPeriod(clock, request.startDate, request.endDate);
  const currency = (request.currency ?? (await defaultCurrencyOf(db, tenant.merchantId))).toUpperCase();
  const scope: DashboardScope = { tenant, currency, from: period.from, to: period.to, units: minorUnits(currency), institutionId: request.institutionId };
  const [summary, byAction, byStatus, byFeePayer, series] = await Promise.all([
    dashboardSummary(db, scope),
    dashboardGroups(db, scope, 'transfer_action'),
    dashboardGroups(db, scope, 'status'),
    dashboardGroups(db, scope, 'fee_payer'),
    dashboardSeries(db, scope, request.timeUnit, period.lastDay),
  ]);
  const count = Number(summary.count);
  const completionRate = count === 0 ? '0' : new Decimal(summary.completed).times(100).dividedBy(count).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed();
  return {
    currency,
    summary: { count, source: summary.source, payout: summary.payout, fees: summary.fees, average: summary.average, completionRate },
    byAction,
    byStatus,
    byFeePayer,
    series: series.map((r) => ({ date: r.bucket, count: r.count, source: r.source, payout: r.payout, fees: r.fees })),
  };
}

/** The transfers by status over the last 30 days in the default currency: what the dashboard's chart shows, in one statement. */
export async function transfersByStatus(db: Db, clock: Clock, tenant: Tenant): Promise<Pick<TransfersDashboard, 'currency' | 'byStatus'>> {
  const period = dashboardPeriod(clock, undefined, undefined);
  const currency = (await defaultCurrencyOf(db, tenant.merchantId)).toUpperCase();
  const scope: DashboardScope = { tenant, currency, from: period.from, to: period.to, units: minorUnits(currency), institutionId: undefined };
  return { currency, byStatus: await dashboardGroups(db, scope, 'status') };
}
