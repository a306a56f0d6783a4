// The audit log (issue 34): who changed a merchant's roles, restricted keys, webhook
// configurations, locations or merchants, and when. The services that make those changes record
// them on an AuditTrail (db/audit-trail.ts) inside their own transaction; this module makes the
// trail for an actor and reads the log back, for both interfaces and the dashboard.
import type { AuditChange, AuditTrail } from '../../db/audit-trail.js';
import type { Db } from '../../db/database.js';
import type { ListPage, ListQuery } from '../../odata/index.js';
import type { Clock } from '../../shared/clock.js';
import { AppError } from '../../shared/errors.js';
import { type Page, toPage } from '../../shared/pagination.js';
import type { Tenant } from '../../shared/tenant.js';
import { type AuditFilters, findAuditEntries, hasAuditEntry, insertAuditEntry, listAuditEntryRows } from './audit.repository.js';
import type { AuditEntry } from './audit.tables.js';

export type { AuditFilters } from './audit.repository.js';
export type { AuditEntry, AuditActorType } from './audit.tables.js';

/**
 * Who makes a change: an API key, by its display prefix (never the key), a dashboard session, or
 * the operator (the merchant command on the server: neither key nor session).
 */
export type AuditActor = { type: 'api_key'; keyPrefix: string } | { type: 'dashboard'; session: string } | { type: 'operator' };

/** The dashboard's actor: its session (the dashboard records its own actions with it). */
export const dashboardActor = (session: string): AuditActor => ({ type: 'dashboard', session });

/** The operator's actor: the merchant command records its changes to roles and keys with it. */
export const operatorActor: AuditActor = { type: 'operator' };

/** Where and when a change is made: the tenant it is recorded for, the request, the clock. */
export interface AuditContext {
  tenant: Tenant;
  actor: AuditActor;
  requestId: string | null;
  clock: Clock;
}

/** The trail a change made by `context.actor` is recorded on, in the caller's transaction. */
export function auditTrail(context: AuditContext): AuditTrail {
  const { tenant, actor } = context;
  return async (db: Db, change: AuditChange) => {
    await insertAuditEntry(db, {
      merchant_id: tenant.merchantId,
      livemode: tenant.livemode,
      action: change.action,
      actor_type: actor.type,
      actor_key_prefix: actor.type === 'api_key' ? actor.keyPrefix : null,
      actor_session: actor.type === 'dashboard' ? actor.session : null,
      target_type: change.action.slice(0, change.action.lastIndexOf('.')),
      target_id: String(change.targetId),
      changes: JSON.stringify(change.changes),
      request_id: context.requestId,
      created_at: context.clock.now(),
    });
  };
}

/** A page of the tenant's entries matching `filters`, newest first; 404 for a `startingAfter` not of the tenant. */
export async function listAuditEntries(
  db: Db,
  tenant: Tenant,
  filters: AuditFilters,
  page: { limit: number; startingAfter?: number | undefined },
): Promise<Page<AuditEntry>> {
  if (page.startingAfter !== undefined && !(await hasAuditEntry(db, tenant, page.startingAfter)))
    throw new AppError('resource_not_found', { param: 'startingAfter', message: `No audit entry ${page.startingAfter}.` });
  return toPage(await findAuditEntries(db, tenant, filters, page), page.limit);
}

/** A page of the tenant's entries for an OData query (the Commerce interface). */
export const queryAuditEntries = (db: Db, tenant: Tenant, query: ListQuery): Promise<ListPage<AuditEntry>> => listAuditEntryRows(db, tenant, query);
