// The transfers dashboard's figures, computed in the database over the tenant's transfers in one
// currency and period ([from, to): UTC instants). Every sum is numeric: exact.
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { ofTenant } from '../../db/scope.js';
import type { Tenant } from '../../shared/tenant.js';

export interface DashboardScope {
  tenant: Tenant;
  currency: string;
  from: Date;
  to: Date;
  /** Decimal places of the currency (for the average). */
  units: number;
  /** Only transfers through this institution (1 Till, 2 the bank network, 3 the CBDC network). */
  institutionId?: number;
}

export type TimeUnit = 'day' | 'week' | 'month';

/** The institution filter as SQL: true without one. */
const ofInstitution = (scope: DashboardScope) =>
  scope.institutionId === undefined ? sql<boolean>`true` : sql<boolean>`institution_id = ${scope.institutionId}`;

function inScope(db: Db, scope: DashboardScope) {
  return db
    .selectFrom('transfers')
    .where(ofTenant(scope.tenant))
    .where('currency', '=', scope.currency)
    .where('created_at', '>=', scope.from)
    .where('created_at', '<', scope.to)
    .where(ofInstitution(scope));
}

const sumText = (expr: ReturnType<typeof sql>) => sql<string>`coalesce(sum(${expr}), 0)::text`;

/** Count, sums, the average amount (rounded half up to the minor unit) and the completed count. */
export async function dashboardSummary(db: Db, scope: DashboardScope) {
  return inScope(db, scope)
    .select([
      sql<string>`count(*)::int`.as('count'),
      sumText(sql`amount + sender_fee`).as('source'),
      sumText(sql`amount - receiver_fee`).as('payout'),
      sumText(sql`fee`).as('fees'),
      sql<string>`coalesce(round(avg(amount), ${scope.units}), 0)::text`.as('average'),
      sql<string>`count(*) FILTER (WHERE status = 'Completed')::int`.as('completed'),
    ])
    .executeTakeFirstOrThrow();
}

/** Count, amount and fees per value of a column (transfer action, status or fee payer), largest count first. */
export async function dashboardGroups(db: Db, scope: DashboardScope, column: 'transfer_action' | 'status' | 'fee_payer') {
  return inScope(db, scope)
    .select([
      sql<string>`${sql.ref(column)}`.as('key'),
      sql<number>`count(*)::int`.as('count'),
      sumText(sql`amount`).as('amount'),
      sumText(sql`fee`).as('fees'),
    ])
    .groupBy(column)
    .orderBy(sql`count(*)`, 'desc')
    .orderBy(column)
    .execute();
}

/** One row per bucket from the bucket of `from` to the bucket of the last day, empty buckets included, oldest first. */
export async function dashboardSeries(db: Db, scope: DashboardScope, unit: TimeUnit, lastDay: string) {
  const step = sql.raw(`'1 ${unit}'::interval`);
  const trunc = sql.lit(unit);
  const rows = await sql<{ bucket: string; count: number; source: string; payout: string; fees: string }>`
    WITH buckets AS (
      SELECT generate_series(date_trunc(${trunc}, ${scope.from.toISOString().slice(0, 10)}::date::timestamp), ${lastDay}::date::timestamp, ${step})::date AS bucket
    ), scoped AS (
      SELECT date_trunc(${trunc}, created_at AT TIME ZONE 'UTC')::date AS bucket, amount, sender_fee, receiver_fee, fee
      FROM transfers
      WHERE ${ofTenant(scope.tenant)} AND currency = ${scope.currency} AND created_at >= ${scope.from} AND created_at < ${scope.to} AND ${ofInstitution(scope)}
    )
    SELECT to_char(b.bucket, 'YYYY-MM-DD') AS bucket, count(s.bucket)::int AS count,
      coalesce(sum(s.amount + s.sender_fee), 0)::text AS source, coalesce(sum(s.amount - s.receiver_fee), 0)::text AS payout, coalesce(sum(s.fee), 0)::text AS fees
    FROM buckets b LEFT JOIN scoped s ON s.bucket = b.bucket
    GROUP BY b.bucket ORDER BY b.bucket`.execute(db);
  return rows.rows;
}
