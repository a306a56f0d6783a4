// The dashboard's reads of a tenant's payments: keyset pages newest first on the index
// `payments_merchant (merchant_id, livemode, id DESC)` with filters, a payment's refunds, and the
// daily counts of the last days for the chart. Always one tenant.
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { ofTenant } from '../../db/scope.js';
import type { Tenant } from '../../shared/tenant.js';
import type { PaymentRow, PaymentStatus } from './payment.tables.js';

/** What a list of payments may be narrowed to. Amounts are decimal strings; dates are instants. */
export interface PaymentListFilter {
  statuses?: PaymentStatus[] | undefined;
  method?: PaymentRow['method_type'] | undefined;
  createdFrom?: Date | undefined;
  createdBefore?: Date | undefined;
  amountMin?: string | undefined;
  amountMax?: string | undefined;
  /** A payment id, a reference number, a checkout session id, or the card holder's email. */
  search?: string | undefined;
  /** The payments of one invoice. */
  invoiceId?: number | undefined;
}

/** A page request: `after` the last id held (older ones), or `before` the first id held (newer ones). */
export interface PaymentCursor {
  limit: number;
  after?: number | undefined;
  before?: number | undefined;
}

/** A payment as a list shows it, with its card's brand, last four digits and billing email. */
export interface PaymentListItem {
  id: number;
  reference_number: string;
  status: PaymentStatus;
  method_type: PaymentRow['method_type'];
  amount: string;
  currency: string;
  refunded_amount: string;
  created_at: Date;
  session_id: string | null;
  brand: string | null;
  last4: string | null;
  billing_email: string | null;
}

function searchCondition(search: string) {
  const text = search.trim();
  if (/^[0-9]{1,10}$/.test(text) && Number(text) <= 2147483647) return sql<boolean>`(p.id = ${Number(text)} OR p.reference_number = ${text})`;
  if (text.startsWith('cs_')) return sql<boolean>`p.session_id = ${text}`;
  if (text.includes('@')) return sql<boolean>`lower(pm.billing_email) = ${text.toLowerCase()}`;
  return sql<boolean>`p.reference_number = ${text}`;
}

/** One page of the tenant's payments, newest first, with one more row than `limit` when more follow in that direction. */
export async function findPaymentPage(db: Db, tenant: Tenant, filter: PaymentListFilter, cursor: PaymentCursor): Promise<PaymentListItem[]> {
  let query = db
    .selectFrom('payments as p')
    .leftJoin('payment_methods as pm', 'pm.id', 'p.payment_method_id')
    .select([
      'p.id',
      'p.reference_number',
      'p.status',
      'p.method_type',
      'p.amount',
      'p.currency',
      'p.refunded_amount',
      'p.created_at',
      'p.session_id',
      sql<string | null>`coalesce(pm.brand, p.card_brand)`.as('brand'),
      'pm.last4',
      'pm.billing_email',
    ])
    .where(ofTenant(tenant, 'p'));
  if (filter.statuses?.length) query = query.where('p.status', 'in', filter.statuses);
  if (filter.method) query = query.where('p.method_type', '=', filter.method);
  if (filter.createdFrom) query = query.where('p.created_at', '>=', filter.createdFrom);
  if (filter.createdBefore) query = query.where('p.created_at', '<', filter.createdBefore);
  if (filter.amountMin !== undefined) query = query.where(sql<boolean>`p.amount >= ${filter.amountMin}::numeric`);
  if (filter.amountMax !== undefined) query = query.where(sql<boolean>`p.amount <= ${filter.amountMax}::numeric`);
  if (filter.search) query = query.where(searchCondition(filter.search));
  if (filter.invoiceId !== undefined) query = query.where('p.invoice_id', '=', filter.invoiceId);
  if (cursor.before !== undefined) {
    const rows = await query
      .where('p.id', '>', cursor.before)
      .orderBy('p.id', 'asc')
      .limit(cursor.limit + 1)
      .execute();
    return rows.reverse();
  }
  if (cursor.after !== undefined) query = query.where('p.id', '<', cursor.after);
  return query
    .orderBy('p.id', 'desc')
    .limit(cursor.limit + 1)
    .execute();
}

/** A payment's refunds, oldest first. */
export async function findRefundsOfPayment(db: Db, tenant: Tenant, paymentId: number) {
  return db
    .selectFrom('refunds')
    .select(['id', 'amount', 'currency', 'status', 'reason', 'from_balance', 'created_at'])
    .where(ofTenant(tenant))
    .where('payment_id', '=', paymentId)
    .orderBy('id', 'asc')
    .execute();
}

/** Per day (UTC) and currency since `since`: the paid volume, and how many payments succeeded and failed. */
export interface DailyPayments {
  day: string;
  currency: string;
  volume: string;
  succeeded: number;
  failed: number;
}

const PAID_STATUSES: PaymentStatus[] = ['succeeded', 'captured', 'partially_refunded', 'refunded', 'pending_reversal'];

export async function findDailyPayments(db: Db, tenant: Tenant, since: Date): Promise<DailyPayments[]> {
  const paid = sql.join(PAID_STATUSES.map((s) => sql.lit(s)));
  const rows = await db
    .selectFrom('payments')
    .select([
      sql<string>`to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`.as('day'),
      'currency',
      sql<string>`coalesce(sum(coalesce(captured_amount, amount)) FILTER (WHERE status IN (${paid})), 0)::text`.as('volume'),
      sql<string>`count(*) FILTER (WHERE status IN (${paid}))`.as('succeeded'),
      sql<string>`count(*) FILTER (WHERE status = 'failed')`.as('failed'),
    ])
    .where(ofTenant(tenant))
    .where('created_at', '>=', since)
    .groupBy(['day', 'currency'])
    .execute();
  return rows.map((r) => ({ day: r.day, currency: r.currency, volume: r.volume, succeeded: Number(r.succeeded), failed: Number(r.failed) }));
}
