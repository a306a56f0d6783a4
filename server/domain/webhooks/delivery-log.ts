// What a merchant does with deliveries through the API: send a test event, read the delivery log,
// re-send a delivery that failed.
import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { WebhookDeliveryAttemptRow, WebhookDeliveryRow, WebhookDeliveryStatus } from './webhook.tables.js';
import { baseClock, type Clock } from '../../shared/clock.js';
import { randomToken } from '../../shared/crypto.js';
import { AppError } from '../../shared/errors.js';
import { type Page, toPage } from '../../shared/pagination.js';
import type { Tenant } from '../../shared/tenant.js';
import { type EventRecord, toEventRecord, writeEvent } from '../events/event.service.js';
import { getConfiguration, type WebhookOwner } from './configuration.service.js';
import { findEventRow, findEventRows } from '../events/outbox.repository.js';
import { deliveryStatus, findAttempts, findAttemptsOf, findDeliveries, findDeliveriesOfEvents, findDelivery } from './delivery-log.repository.js';
import { insertDeliveries } from './delivery.repository.js';
import { attemptDelivery, type DeliverySettings } from './delivery.js';
import { newDeliveryId } from './fan-out.js';

/** A delivery as the log shows it: with its attempts (oldest first, the latest 100) and the event it carries. */
export interface DeliveryEntry {
  delivery: WebhookDeliveryRow;
  attempts: WebhookDeliveryAttemptRow[];
  event: EventRecord;
}

async function entryOf(db: Db, delivery: WebhookDeliveryRow): Promise<DeliveryEntry> {
  const [attempts, event] = await Promise.all([findAttempts(db, delivery.id), findEventRow(db, delivery.event_id)]);
  return { delivery, attempts, event: toEventRecord(event) };
}

/** The entries of a page of deliveries: their attempts and events in two statements, not two a delivery. */
async function entriesOf(db: Db, deliveries: WebhookDeliveryRow[]): Promise<DeliveryEntry[]> {
  const [attempts, events] = await Promise.all([
    findAttemptsOf(
      db,
      deliveries.map((d) => d.id),
    ),
    findEventRows(db, [...new Set(deliveries.map((d) => d.event_id))]),
  ]);
  const eventById = new Map(events.map((e) => [e.id, e]));
  return deliveries.map((delivery) => ({
    delivery,
    attempts: attempts.filter((a) => a.delivery_id === delivery.id),
    event: toEventRecord(eventById.get(delivery.event_id)!),
  }));
}

/** A test send, after its first attempt. */
export interface TestSend {
  eventId: string;
  deliveryId: string;
  url: string;
  livemode: boolean;
  status: WebhookDeliveryStatus;
}

/**
 * Sends a `webhook.test` event to one configuration, whatever its filter and `enabled` flag: the
 * sandbox URL under the sandbox secret, or the live ones with `live`. The event is written as
 * already dispatched (it goes to this configuration only); the call answers after the first
 * attempt, and a failed test delivery is retried like any other.
 */
export async function sendTestEvent(
  db: Kysely<Database>,
  clock: Clock,
  settings: DeliverySettings,
  owner: WebhookOwner,
  id: number,
  input: { eventType?: string | undefined; live?: boolean | undefined } = {},
): Promise<TestSend> {
  const configuration = await getConfiguration(db, owner, id);
  const live = input.live ?? false;
  const url = live ? configuration.live_url : configuration.sandbox_url;
  if (!url)
    throw new AppError('invalid_state', {
      param: 'live',
      message: `This configuration has no ${live ? 'liveUrl' : 'sandboxUrl'}; set one first, or send the test to the ${live ? 'sandbox' : 'live'} URL.`,
    });
  // A live test event is on live time; a sandbox one on the merchant's test-mode clock.
  const modeClock = live ? baseClock(clock) : clock;
  const now = modeClock.now();
  const deliveryId = newDeliveryId();
  const tenant: Tenant = { merchantId: owner.merchantId, livemode: live };
  const eventId = await db.transaction().execute(async (trx) => {
    const subject = { kind: 'test' as const, id: `test_${randomToken(20)}`, eventType: input.eventType ?? 'webhook.test', live, created_at: now };
    const evt = await writeEvent(trx, modeClock, { tenant, type: 'webhook.test', subject, dispatched: true });
    await insertDeliveries(trx, [
      {
        id: deliveryId,
        merchant_id: owner.merchantId,
        livemode: live,
        configuration_id: configuration.id,
        session_id: null,
        event_id: evt,
        event_type: 'webhook.test',
        url,
        status: 'pending',
        next_attempt_at: now,
        created_at: now,
        updated_at: now,
      },
    ]);
    return evt;
  });
  const after = await attemptDelivery(db, clock, settings, deliveryId);
  return { eventId, deliveryId, url: after?.url ?? url, livemode: live, status: after?.status ?? 'pending' };
}

/** The delivery log of a configuration, newest first, in the tenant's mode. */
export async function listDeliveries(
  db: Kysely<Database>,
  tenant: Tenant,
  id: number,
  page: { limit: number; startingAfter?: string | undefined; status?: WebhookDeliveryStatus | undefined; eventType?: string | undefined },
): Promise<Page<DeliveryEntry>> {
  await getConfiguration(db, tenant, id);
  let beforeSeq: string | undefined;
  if (page.startingAfter !== undefined) {
    const after = await findDelivery(db, tenant, id, page.startingAfter);
    if (!after) throw new AppError('resource_not_found', { param: 'startingAfter', message: `No such delivery of this configuration: ${page.startingAfter}.` });
    beforeSeq = after.seq;
  }
  const rows = toPage(await findDeliveries(db, tenant, id, { limit: page.limit, beforeSeq, status: page.status, eventType: page.eventType }), page.limit);
  return { data: await entriesOf(db, rows.data), hasMore: rows.hasMore };
}

/**
 * Re-sends a failed or dead-lettered delivery now: the same event to the configuration's current
 * URL under its current secret. On a 2xx it is `succeeded`; otherwise its status is unchanged.
 */
export async function resendDelivery(
  db: Kysely<Database>,
  clock: Clock,
  settings: DeliverySettings,
  tenant: Tenant,
  id: number,
  deliveryId: string,
): Promise<DeliveryEntry> {
  await getConfiguration(db, tenant, id);
  const delivery = await findDelivery(db, tenant, id, deliveryId);
  if (!delivery) throw new AppError('resource_not_found', { param: 'deliveryId', message: `No such delivery of this configuration: ${deliveryId}.` });
  const after = await attemptDelivery(db, clock, settings, deliveryId, 'resend');
  if (!after) {
    const status = await deliveryStatus(db, deliveryId);
    const why = status === 'succeeded' ? 'it already succeeded' : status === 'pending' ? 'its first attempt has not been made yet' : 'an attempt is under way';
    throw new AppError('invalid_state', {
      param: 'deliveryId',
      message: `This delivery cannot be re-sent now: ${why}. Only a failed or dead-lettered delivery can be re-sent.`,
    });
  }
  return entryOf(db, after);
}

/** The tenant's webhook deliveries of these events (a payment's timeline), oldest first. */
export const deliveriesOfEvents = (db: Db, tenant: Tenant, eventIds: string[]): Promise<WebhookDeliveryRow[]> => findDeliveriesOfEvents(db, tenant, eventIds);

/** One delivery of a configuration with its attempts and event (the dashboard's delivery page). */
export async function getDeliveryEntry(db: Db, tenant: Tenant, id: number, deliveryId: string): Promise<DeliveryEntry> {
  await getConfiguration(db, tenant, id);
  const delivery = await findDelivery(db, tenant, id, deliveryId);
  if (!delivery) throw new AppError('resource_not_found', { param: 'deliveryId', message: `No such delivery of this configuration: ${deliveryId}.` });
  return entryOf(db, delivery);
}
