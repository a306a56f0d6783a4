// The payouts dashboard's figures, computed in SQL over one tenant's batches (and their entries) of
// a currency created in a period. Each figure is a sum or count of the rows behind it.
import { type RawBuilder, sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { ofTenant } from '../../db/scope.js';
import type { PayoutBatchStatus, PayoutBatchType } from './payout.tables.js';
import type { Tenant } from '../../shared/tenant.js';

export type TimeUnit = 'day' | 'week' | 'month';

/** Batches of a currency created from `from` (inclusive) to `until` (exclusive). */
export interface DashboardPeriod {
  currency: string;
  from: Date;
  until: Date;
  unit: TimeUnit;
}

export interface PayoutsSummaryRow {
  total_batches: number;
  total_amount: string;
  total_disbursed: string;
  pending_amount: string;
  completion_rate: string;
  total_entries: number;
  total_succeeded: number;
  total_failed: number;
}

/** The tenant's batches of the period (`pb`), with their bucket, and their entries (`pe`). */
function periodCtes(tenant: Tenant, p: DashboardPeriod): RawBuilder<unknown> {
  return sql`WITH pb AS (
      SELECT id, status, batch_type, date_trunc(${p.unit}, created_at AT TIME ZONE 'UTC')::date AS bucket
      FROM payout_batches
      WHERE ${ofTenant(tenant)} AND currency = ${p.currency} AND created_at >= ${p.from} AND created_at < ${p.until}
    ), pe AS (
      SELECT e.id, e.batch_id, e.amount, e.fee, e.status, e.transfer_type, pb.bucket
      FROM payout_entries e JOIN pb ON pb.id = e.batch_id
      WHERE ${ofTenant(tenant, 'e')}
    )`;
}

const int = (expr: RawBuilder<unknown>) => sql<number>`(${expr})::int`;
const money = (expr: RawBuilder<unknown>) => sql<string>`coalesce(${expr}, 0)::text`;

export async function payoutsSummary(db: Db, tenant: Tenant, p: DashboardPeriod): Promise<PayoutsSummaryRow> {
  const { rows } = await sql<PayoutsSummaryRow>`${periodCtes(tenant, p)}
    SELECT ${int(sql`(SELECT count(*) FROM pb)`)} AS total_batches,
      ${money(sql`sum(amount)`)} AS total_amount,
      ${money(sql`sum(amount) FILTER (WHERE status = 'completed')`)} AS total_disbursed,
      ${money(sql`sum(amount) FILTER (WHERE status IN ('pending', 'processing'))`)} AS pending_amount,
      (CASE WHEN count(*) = 0 THEN 0 ELSE round(100.0 * count(*) FILTER (WHERE status = 'completed') / count(*), 2) END)::text AS completion_rate,
      ${int(sql`count(*)`)} AS total_entries,
      ${int(sql`count(*) FILTER (WHERE status = 'completed')`)} AS total_succeeded,
      ${int(sql`count(*) FILTER (WHERE status = 'failed')`)} AS total_failed
    FROM pe`.execute(db);
  return rows[0]!;
}

export async function payoutsByStatus(
  db: Db,
  tenant: Tenant,
  p: DashboardPeriod,
): Promise<{ status: PayoutBatchStatus; count: number; total_amount: string }[]> {
  const { rows } = await sql<{ status: PayoutBatchStatus; count: number; total_amount: string }>`${periodCtes(tenant, p)}
    SELECT pb.status, ${int(sql`count(DISTINCT pb.id)`)} AS count, ${money(sql`sum(pe.amount)`)} AS total_amount
    FROM pb LEFT JOIN pe ON pe.batch_id = pb.id GROUP BY pb.status ORDER BY pb.status`.execute(db);
  return rows;
}

export interface PayoutsBucketRow {
  bucket: string;
  batch_count: number;
  entry_count: number;
  total_amount: string;
  total_disbursed: string;
  total_failed_amount: string;
}

/** One row per bucket from the period's first to its last, empty ones included, oldest first. */
export async function payoutsTimeSeries(db: Db, tenant: Tenant, p: DashboardPeriod, lastDay: Date): Promise<PayoutsBucketRow[]> {
  const step = sql.lit(`1 ${p.unit}`);
  const { rows } = await sql<PayoutsBucketRow>`${periodCtes(tenant, p)},
    buckets AS (
      SELECT generate_series(date_trunc(${p.unit}, ${p.from}::timestamptz AT TIME ZONE 'UTC'), date_trunc(${p.unit}, ${lastDay}::timestamptz AT TIME ZONE 'UTC'), ${step}::interval)::date AS bucket
    ), batches AS (SELECT bucket, count(*) AS n FROM pb GROUP BY bucket),
    entries AS (
      SELECT bucket, count(*) AS n, sum(amount) AS total, sum(amount) FILTER (WHERE status = 'completed') AS disbursed, sum(amount) FILTER (WHERE status = 'failed') AS failed
      FROM pe GROUP BY bucket
    )
    SELECT to_char(k.bucket, 'YYYY-MM-DD') AS bucket, ${int(sql`coalesce(b.n, 0)`)} AS batch_count, ${int(sql`coalesce(e.n, 0)`)} AS entry_count,
      ${money(sql`e.total`)} AS total_amount, ${money(sql`e.disbursed`)} AS total_disbursed, ${money(sql`e.failed`)} AS total_failed_amount
    FROM buckets k LEFT JOIN batches b ON b.bucket = k.bucket LEFT JOIN entries e ON e.bucket = k.bucket
    ORDER BY k.bucket`.execute(db);
  return rows;
}

export async function payoutsByTransferType(
  db: Db,
  tenant: Tenant,
  p: DashboardPeriod,
): Promise<{ transfer_type: string; count: number; total_amount: string; total_fees: string }[]> {
  const { rows } = await sql<{ transfer_type: string; count: number; total_amount: string; total_fees: string }>`${periodCtes(tenant, p)}
    SELECT transfer_type, ${int(sql`count(*)`)} AS count, ${money(sql`sum(amount)`)} AS total_amount, ${money(sql`sum(fee)`)} AS total_fees
    FROM pe GROUP BY transfer_type ORDER BY transfer_type`.execute(db);
  return rows;
}

export async function payoutsByBatchType(
  db: Db,
  tenant: Tenant,
  p: DashboardPeriod,
): Promise<{ batch_type: PayoutBatchType; batch_count: number; entry_count: number; total_amount: string }[]> {
  const { rows } = await sql<{ batch_type: PayoutBatchType; batch_count: number; entry_count: number; total_amount: string }>`${periodCtes(tenant, p)}
    SELECT pb.batch_type, ${int(sql`count(DISTINCT pb.id)`)} AS batch_count, ${int(sql`count(pe.id)`)} AS entry_count, ${money(sql`sum(pe.amount)`)} AS total_amount
    FROM pb LEFT JOIN pe ON pe.batch_id = pb.id GROUP BY pb.batch_type ORDER BY pb.batch_type`.execute(db);
  return rows;
}
