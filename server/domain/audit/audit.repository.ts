import type { Db } from '../../db/database.js';
import { ofTenant } from '../../db/scope.js';
import { type ListPage, type ListQuery, listPage } from '../../odata/index.js';
import type { Tenant } from '../../shared/tenant.js';
import type { AuditActorType, AuditEntriesTable, AuditEntry } from './audit.tables.js';
import { type Insertable, sql, type SqlBool } from 'kysely';

// The audit log's statements: every one scoped to a tenant (the merchant and the mode of the key
// or session that made the change).

/** What the list of the Checkout & Billing interface and the dashboard filter on. */
export interface AuditFilters {
  /** One action (`role.created`) or a family (`restricted_key.*`). */
  action?: string | undefined;
  /** A key's display prefix or a dashboard session id. */
  actor?: string | undefined;
  actorType?: AuditActorType | undefined;
  /** At or after. */
  createdFrom?: Date | undefined;
  /** Strictly before. */
  createdBefore?: Date | undefined;
}

export async function insertAuditEntry(db: Db, entry: Insertable<AuditEntriesTable>): Promise<void> {
  await db.insertInto('audit_entries').values(entry).execute();
}

/** Whether the tenant has this entry (a `startingAfter` must be one). */
export async function hasAuditEntry(db: Db, tenant: Tenant, id: number): Promise<boolean> {
  const row = await db.selectFrom('audit_entries').select('id').where(ofTenant(tenant)).where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The tenant's entries matching `filters`, newest first, `limit + 1` of them (older than `startingAfter` when given). */
export async function findAuditEntries(db: Db, tenant: Tenant, filters: AuditFilters, page: { limit: number; startingAfter?: number | undefined }) {
  let query = db.selectFrom('audit_entries').selectAll().where(ofTenant(tenant));
  if (filters.action?.endsWith('.*')) query = query.where(sql<SqlBool>`action LIKE ${`${escapeLike(filters.action.slice(0, -1))}%`}`);
  else if (filters.action !== undefined) query = query.where('action', '=', filters.action as AuditEntry['action']);
  if (filters.actor !== undefined) {
    const actor = filters.actor;
    query = query.where((eb) => eb.or([eb('actor_key_prefix', '=', actor), eb('actor_session', '=', actor)]));
  }
  if (filters.actorType !== undefined) query = query.where('actor_type', '=', filters.actorType);
  if (filters.createdFrom !== undefined) query = query.where('created_at', '>=', filters.createdFrom);
  if (filters.createdBefore !== undefined) query = query.where('created_at', '<', filters.createdBefore);
  if (page.startingAfter !== undefined) query = query.where('id', '<', page.startingAfter);
  return query
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .execute();
}

/** A page of the tenant's entries for an OData query (the Commerce interface). */
export async function listAuditEntryRows(db: Db, tenant: Tenant, query: ListQuery): Promise<ListPage<AuditEntry>> {
  return listPage(query, db.selectFrom('audit_entries').selectAll().where(ofTenant(tenant)));
}
