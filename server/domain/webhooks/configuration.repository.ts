import type { Insertable, Updateable } from 'kysely';
import type { Db } from '../../db/database.js';
import { ofMerchant } from '../../db/scope.js';
import type { WebhookConfigurationRow, WebhookConfigurationsTable } from './webhook.tables.js';
import type { MerchantRef } from '../../shared/tenant.js';

// Webhook configurations belong to a merchant and are shared by its test and live keys: every
// statement is scoped to the merchant. The fan-out reads the enabled ones of many merchants at once.

export async function insertConfiguration(db: Db, values: Insertable<WebhookConfigurationsTable>): Promise<WebhookConfigurationRow> {
  return db.insertInto('webhook_configurations').values(values).returningAll().executeTakeFirstOrThrow();
}

export async function findConfiguration(
  db: Db,
  owner: MerchantRef,
  id: number,
  options: { lock?: boolean } = {},
): Promise<WebhookConfigurationRow | undefined> {
  const query = db.selectFrom('webhook_configurations').selectAll().where('id', '=', id).where(ofMerchant(owner));
  return (options.lock ? query.forUpdate() : query).executeTakeFirst();
}

/** Newest first, one more than the limit. */
export async function findConfigurations(
  db: Db,
  owner: MerchantRef,
  page: { limit: number; startingAfter?: number | undefined },
): Promise<WebhookConfigurationRow[]> {
  let query = db
    .selectFrom('webhook_configurations')
    .selectAll()
    .where(ofMerchant(owner))
    .orderBy('id', 'desc')
    .limit(page.limit + 1);
  if (page.startingAfter !== undefined) query = query.where('id', '<', page.startingAfter);
  return query.execute();
}

export async function updateConfigurationRow(
  db: Db,
  owner: MerchantRef,
  id: number,
  changes: Updateable<WebhookConfigurationsTable>,
): Promise<WebhookConfigurationRow> {
  return db.updateTable('webhook_configurations').set(changes).where('id', '=', id).where(ofMerchant(owner)).returningAll().executeTakeFirstOrThrow();
}

/** Deletes a configuration (its deliveries and their log go with it); answers whether it existed. */
export async function deleteConfigurationRow(db: Db, owner: MerchantRef, id: number): Promise<boolean> {
  const deleted = await db.deleteFrom('webhook_configurations').where('id', '=', id).where(ofMerchant(owner)).executeTakeFirst();
  return Number(deleted.numDeletedRows) > 0;
}

/** The enabled configurations of some merchants, for the fan-out. */
export async function findEnabledConfigurations(db: Db, merchantIds: number[]): Promise<WebhookConfigurationRow[]> {
  if (merchantIds.length === 0) return [];
  // FOR KEY SHARE: a configuration deleted meanwhile waits for the fan-out's transaction, then
  // takes the deliveries it made along (ON DELETE CASCADE); before, the fan-out's insert failed
  // on the foreign key and the whole batch was rolled back and made again. Changes to a
  // configuration's other columns do not wait.
  return db
    .selectFrom('webhook_configurations')
    .selectAll()
    .where('merchant_id', 'in', merchantIds)
    .where('enabled', '=', true)
    .orderBy('id')
    .forKeyShare()
    .execute();
}
