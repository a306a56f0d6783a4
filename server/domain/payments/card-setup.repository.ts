import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { ofTenant } from '../../db/scope.js';
import type { CardSetupRow, CardSetupsTable } from './card-setup.tables.js';
import type { Tenant } from '../../shared/tenant.js';

// Cards added on file that wait for 3-D Secure. Every read is scoped to a tenant and to the portal
// session that started it: the issuer page of a card setup is reached through that session.

export async function insertCardSetup(db: Db, values: Insertable<CardSetupsTable>): Promise<CardSetupRow> {
  return db.insertInto('card_setups').values(values).returningAll().executeTakeFirstOrThrow();
}

/** A card setup of one portal session, or undefined; locked with `lock`. */
export async function findCardSetupOf(
  db: Db,
  tenant: Tenant,
  portalSessionId: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<CardSetupRow | undefined> {
  const query = db.selectFrom('card_setups').selectAll().where(ofTenant(tenant)).where('portal_session_id', '=', portalSessionId).where('id', '=', id);
  return (options.lock ? query.forUpdate() : query).executeTakeFirst();
}

export async function updateCardSetup(db: Db, tenant: Tenant, id: string, changes: Updateable<CardSetupsTable>): Promise<CardSetupRow> {
  return db.updateTable('card_setups').set(changes).where(ofTenant(tenant)).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
}
