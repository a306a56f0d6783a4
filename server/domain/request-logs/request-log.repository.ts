import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { ofTenant } from '../../db/scope.js';
import { type ListPage, listPage, type ListQuery } from '../../odata/index.js';
import type { Tenant } from '../../shared/tenant.js';
import { jsonParam } from '../../db/json-param.js';
import { precompiled } from '../../db/precompiled.js';
import type { JsonValue, NewRequestLogRow, RequestLogRow, StoredRequestLogRow } from './request-log.tables.js';

// Request logs, always of one tenant; the batch insert and the retention sweep span tenants.

/** The inserted columns, each with its PostgreSQL type in the batch insert. */
const COLUMNS = [
  ['id', 'text'],
  ['merchant_id', 'int4'],
  ['livemode', 'bool'],
  ['method', 'text'],
  ['path', 'text'],
  ['operation_id', 'text'],
  ['status', 'int4'],
  ['duration_ms', 'float8'],
  ['request_id', 'text'],
  ['idempotency_key', 'text'],
  ['key_prefix', 'text'],
  ['client_address', 'text'],
  ['request_body', 'text'],
  ['response_body', 'text'],
  ['created_at', 'timestamptz'],
] as const satisfies ReadonlyArray<readonly [keyof NewRequestLogRow, string]>;

/**
 * A batch as one statement whatever its size: the rows as one JSON parameter, read back into
 * columns by `json_to_recordset`. The same SQL for every batch, so it is prepared once per
 * connection (precompiled.ts). Sent as arrays, one a column, node-postgres escaped every element
 * of every array in JavaScript (two regular-expression replaces an element, the bodies' quotes
 * included): 11 KB of garbage and a tenth of the request path's allocations on GET one plan; a
 * JSON text is one `JSON.stringify` (json-param.ts).
 */
const insertQuery = precompiled((db, value) =>
  db
    .insertInto('request_logs')
    .columns(COLUMNS.map(([name]) => name))
    .expression(sql`SELECT * FROM json_to_recordset(${value(0)}::json) AS r(${sql.raw(COLUMNS.map(([name, type]) => `${name} ${type}`).join(', '))})`),
);

/** One INSERT of a batch. */
export async function insertRequestLogs(db: Db, rows: NewRequestLogRow[]): Promise<void> {
  if (rows.length > 0) await insertQuery(db, [jsonParam(rows)]);
}

/** A stored body's JSON text, parsed (a body that is not JSON is shown as its text). */
function parseBody(text: string | null): JsonValue | null {
  if (text === null) return null;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/** A stored row as read: its bodies parsed. */
const parsed = (row: StoredRequestLogRow): RequestLogRow => ({
  ...row,
  request_body: parseBody(row.request_body),
  response_body: parseBody(row.response_body),
});

export async function findRequestLog(db: Db, tenant: Tenant, id: string): Promise<RequestLogRow | undefined> {
  const row = await db.selectFrom('request_logs').selectAll().where('id', '=', id).where(ofTenant(tenant)).executeTakeFirst();
  return row && parsed(row);
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
  const rows = await query
    .orderBy('created_at', 'desc')
    .orderBy('seq', 'desc')
    .limit(page.limit + 1)
    .execute();
  return rows.map(parsed);
}

/** An OData page of the tenant's logs (the query's columns are this table's). */
export async function findRequestLogPage(db: Db, tenant: Tenant, query: ListQuery): Promise<ListPage<RequestLogRow>> {
  const page = await listPage(query, db.selectFrom('request_logs').selectAll().where(ofTenant(tenant)));
  return { ...page, data: page.data.map(parsed) };
}

/** Deletes logs written before `before`, at most `limit` of them; answers how many. */
export async function deleteRequestLogsBefore(db: Db, before: Date, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('request_logs')
    .where('id', 'in', (q) => q.selectFrom('request_logs').select('id').where('created_at', '<', before).limit(limit))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
