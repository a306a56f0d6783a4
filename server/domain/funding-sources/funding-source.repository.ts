// Funding sources, each with the card it holds (a `payment_methods` row: brand, last 4, expiry).
import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { ofTenant } from '../../db/scope.js';
import type { FundingSourceRow, FundingSourcesTable } from './funding-source.tables.js';
import type { Tenant } from '../../shared/tenant.js';
import { methodCards } from '../payments/payment-method.repository.js';

/** A funding source with what is kept of its card. */
export type FundingSourceWithCard = FundingSourceRow & { last4: string; expiry_month: number; expiry_year: number; brand: string };

export async function insertFundingSource(db: Db, values: Insertable<FundingSourcesTable>): Promise<FundingSourceRow> {
  return db.insertInto('funding_sources').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function updateFundingSource(db: Db, tenant: Tenant, id: number, changes: Updateable<FundingSourcesTable>): Promise<FundingSourceRow> {
  return db.updateTable('funding_sources').set(changes).where(ofTenant(tenant)).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}

/** One funding source of the tenant, locked for the rest of the transaction (a verification counts its attempts). */
export async function lockFundingSource(db: Db, tenant: Tenant, id: number): Promise<FundingSourceRow | undefined> {
  return db.selectFrom('funding_sources').selectAll().where(ofTenant(tenant)).where('id', '=', id).forUpdate().executeTakeFirst();
}

function withCard(db: Db, tenant: Tenant) {
  return db
    .selectFrom('funding_sources as f')
    .innerJoin(methodCards(db, tenant).as('pm'), 'pm.id', 'f.payment_method_id')
    .selectAll('f')
    .select(['pm.last4', 'pm.expiry_month', 'pm.expiry_year', 'pm.brand'])
    .where(ofTenant(tenant, 'f'));
}

/** The tenant's funding sources, newest first (at most `limit`). */
export async function findFundingSources(db: Db, tenant: Tenant, limit: number): Promise<FundingSourceWithCard[]> {
  return withCard(db, tenant).orderBy('f.id', 'desc').limit(limit).execute();
}

/** One funding source of the tenant with its card, or undefined. */
export async function findFundingSource(db: Db, tenant: Tenant, id: number): Promise<FundingSourceWithCard | undefined> {
  return withCard(db, tenant).where('f.id', '=', id).executeTakeFirst();
}
