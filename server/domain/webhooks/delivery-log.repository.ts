// The delivery log's reads: a configuration's deliveries and each one's attempts, as the API
// shows them (delivery-log.ts). Attempting and recording them is delivery.repository.ts's.
import type { Db } from '../../db/database.js';
import { ofTenant } from '../../db/scope.js';
import type { Tenant } from '../../shared/tenant.js';
import type { WebhookDeliveryAttemptRow, WebhookDeliveryRow, WebhookDeliveryStatus } from './webhook.tables.js';

/** A configuration's delivery in the tenant's mode, or undefined. */
export async function findDelivery(db: Db, tenant: Tenant, configurationId: number, id: string): Promise<WebhookDeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('id', '=', id)
    .where('configuration_id', '=', configurationId)
    .where(ofTenant(tenant))
    .executeTakeFirst();
}

/** A delivery's status now (after a claim failed). */
export async function deliveryStatus(db: Db, id: string): Promise<WebhookDeliveryStatus | undefined> {
  return (await db.selectFrom('webhook_deliveries').select('status').where('id', '=', id).executeTakeFirst())?.status;
}

export interface DeliveryFilter {
  limit: number;
  /** The `seq` of the delivery to page after. */
  beforeSeq?: string | undefined;
  status?: WebhookDeliveryStatus | undefined;
  eventType?: string | undefined;
}

/** A configuration's deliveries in the tenant's mode, newest first, one more than the limit. */
export async function findDeliveries(db: Db, tenant: Tenant, configurationId: number, filter: DeliveryFilter): Promise<WebhookDeliveryRow[]> {
  let query = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('configuration_id', '=', configurationId)
    .where(ofTenant(tenant))
    .orderBy('seq', 'desc')
    .limit(filter.limit + 1);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.eventType !== undefined) query = query.where('event_type', '=', filter.eventType);
  if (filter.beforeSeq !== undefined) query = query.where('seq', '<', filter.beforeSeq);
  return query.execute();
}

/** The latest 100 attempts of a delivery, oldest first. */
export async function findAttempts(db: Db, deliveryId: string): Promise<WebhookDeliveryAttemptRow[]> {
  return (
    await db.selectFrom('webhook_delivery_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('id', 'desc').limit(100).execute()
  ).reverse();
}

/**
 * The latest 100 attempts of each of some deliveries, oldest first, in one statement (a page of the
 * delivery log). A delivery has a handful of attempts (7 at most, plus re-sends), so the few past
 * 100 are dropped here rather than ranked in SQL.
 */
export async function findAttemptsOf(db: Db, deliveryIds: string[]): Promise<WebhookDeliveryAttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  const rows = await db.selectFrom('webhook_delivery_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('id', 'desc').execute();
  const kept = new Map<string, number>();
  const latest = rows.filter((row) => {
    const count = (kept.get(row.delivery_id) ?? 0) + 1;
    kept.set(row.delivery_id, count);
    return count <= 100;
  });
  return latest.reverse();
}

/** The tenant's deliveries of some events, oldest first. */
export async function findDeliveriesOfEvents(db: Db, tenant: Tenant, eventIds: string[]): Promise<WebhookDeliveryRow[]> {
  if (eventIds.length === 0) return [];
  return db.selectFrom('webhook_deliveries').selectAll().where('event_id', 'in', eventIds).where(ofTenant(tenant)).orderBy('seq', 'asc').execute();
}
