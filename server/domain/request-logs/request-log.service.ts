// The request log's reads and its retention. The edge writes through the batch writer
// (request-log.writer.ts); the API handlers and the dashboard read through here.
import type { Db } from '../../db/database.js';
import type { ListPage, ListQuery } from '../../odata/index.js';
import { AppError } from '../../shared/errors.js';
import { type Page, toPage } from '../../shared/pagination.js';
import type { Tenant } from '../../shared/tenant.js';
import { deleteRequestLogsBefore, findRequestLog, findRequestLogPage, findRequestLogs, type RequestLogFilters } from './request-log.repository.js';
import type { RequestLogRow } from './request-log.tables.js';

export type { RequestLogFilters } from './request-log.repository.js';
export type { RequestLogRow } from './request-log.tables.js';

/** How long a log is kept. */
export const REQUEST_LOG_RETENTION_DAYS = 30;
/** Rows one sweep statement deletes, so a large backlog never holds one long lock. */
const SWEEP_BATCH = 5000;

/** A page of the tenant's logs, newest first; 404 for a `startingAfter` that is not one of them. */
export async function listRequestLogs(
  db: Db,
  tenant: Tenant,
  filters: RequestLogFilters,
  page: { limit: number; startingAfter?: string | undefined },
): Promise<Page<RequestLogRow>> {
  const rows = await findRequestLogs(db, tenant, filters, page);
  if (!rows) throw new AppError('resource_not_found', { param: 'startingAfter', message: `No such request log: ${page.startingAfter}.` });
  return toPage(rows, page.limit);
}

/** The tenant's log; 404 for anyone else's. */
export async function getRequestLog(db: Db, tenant: Tenant, id: string): Promise<RequestLogRow> {
  const log = await findRequestLog(db, tenant, id);
  if (!log) throw new AppError('resource_not_found', { param: 'id', message: `No such request log: ${id}.` });
  return log;
}

/** An OData page of the tenant's logs (the Commerce interface's list). */
export async function queryRequestLogs(db: Db, tenant: Tenant, query: ListQuery): Promise<ListPage<RequestLogRow>> {
  return findRequestLogPage(db, tenant, query);
}

/**
 * Deletes every log older than the retention period at `now` (wall-clock time: no sandbox clock
 * moves it). Answers how many went. Run by the `request-log-retention` job.
 */
export async function deleteExpiredRequestLogs(db: Db, now: Date): Promise<number> {
  const before = new Date(now.getTime() - REQUEST_LOG_RETENTION_DAYS * 24 * 3600 * 1000);
  let deleted = 0;
  for (;;) {
    const n = await deleteRequestLogsBefore(db, before, SWEEP_BATCH);
    deleted += n;
    if (n < SWEEP_BATCH) return deleted;
  }
}
