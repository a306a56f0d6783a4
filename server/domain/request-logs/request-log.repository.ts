import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { ofTenant } from '../../db/scope.js';
import { type ListPage, listPage, type ListQuery } from '../../odata/index.js';
import type { Tenant } from '../../shared/tenant.js';
import type { NewRequestLogRow, RequestLogRow } from './request-log.tables.js';

// Request logs, always of one tenant; the batch insert and the retention sweep span tenants.

/** One multi-row INSERT of a batch. */
export async function insertRequestLogs(db: Db, rows: NewRequestLogRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('request_logs').values(rows).execute();
}

export async function findRequestLog(db: Db, tenant: Tenant, id: string): Promise<RequestLogRow | undefined> {
  return db.selectFrom('request_logs').selectAll().where('id', '=', id).where(ofTenant(tenant)).executeTakeFirst();
}

/** What a list keeps: each filter is optional; `createdFrom` is inclusive, `createdTo` exclusive. */
export interface RequestLogFilters {
  status?: number | undefined;
  operationId?: string | undefined;
  requestId?: string | undefined;
  createdFrom?: Date | undefined;
  createdTo?: Date | undefined;
}

/** The tenant's logs matching `filters`, newest first, `limit + 1` of them; undefined when `startingAfter` is not one of its logs. */
export async function findRequestLogs(
  db: Db,
  tenant: Tenant,
  filters: RequestLogFilters,
  page: { limit: number; startingAfter?: string | undefined },
): Promise<RequestLogRow[] | undefined> {
  let query = db.selectFrom('request_logs').selectAll().where(ofTenant(tenant));
  if (page.startingAfter !== undefined) {
    const after = await db
      .selectFrom('request_logs')
      .select(['created_at', 'seq'])
      .where('id', '=', page.startingAfter)
      .where(ofTenant(tenant))
      .executeTakeFirst();
    if (!after) return undefined;
    query = query.where(sql<boolean>`(created_at, seq) < (${after.created_at}, ${after.seq}::bigint)`);
  }
  if (filters.status !== undefined) query = query.where('status', '=', filters.status);
  if (filters.operationId !== undefined) query = query.where('operation_id', '=', filters.operationId);
  if (filters.requestId !== undefined) query = query.where('request_id', '=', filters.requestId);
  if (filters.createdFrom !== undefined) query = query.where('created_at', '>=', filters.createdFrom);
  if (filters.createdTo !== undefined) query = query.where('created_at', '<', filters.createdTo);
  return query
    .orderBy('created_at', 'desc')
    .orderBy('seq', 'desc')
    .limit(page.limit + 1)
    .execute();
}

/** An OData page of the tenant's logs (the query's columns are this table's). */
export async function findRequestLogPage(db: Db, tenant: Tenant, query: ListQuery): Promise<ListPage<RequestLogRow>> {
  return listPage(query, db.selectFrom('request_logs').selectAll().where(ofTenant(tenant)));
}

/** Deletes logs written before `before`, at most `limit` of them; answers how many. */
export async function deleteRequestLogsBefore(db: Db, before: Date, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('request_logs')
    .where('id', 'in', (q) => q.selectFrom('request_logs').select('id').where('created_at', '<', before).limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
