// The events table as the webhooks' outbox: events not yet fanned out are claimed and marked, and a
// claimed delivery reads its event in the same statement through `outboxEvents`. The events
// module owns the table; the webhooks module calls these.
import { sql } from 'kysely';
import type { Db } from '../../db/database.js';
import type { EventRow } from './event.tables.js';

/**
 * Claims up to `limit` events not yet fanned out, oldest first; with `testModeOf`, only that
 * merchant's test-mode events. Claims are taken one transaction at a time (a transaction-level
 * advisory lock): with two at once, a later event could be fanned out, and its deliveries numbered,
 * before an earlier one still held by the other, and the delivery log would list them out of order.
 * `SKIP LOCKED` stays for a row some other statement holds.
 */
export async function claimUndispatchedEvents(db: Db, limit: number, testModeOf?: number): Promise<EventRow[]> {
  await sql`SELECT pg_advisory_xact_lock(hashtext('events:fan-out'))`.execute(db);
  const ofMerchant = testModeOf === undefined ? sql`` : sql`AND merchant_id = ${testModeOf} AND NOT livemode`;
  const { rows } =
    await sql<EventRow>`SELECT * FROM events WHERE dispatched_at IS NULL ${ofMerchant} ORDER BY seq LIMIT ${limit} FOR UPDATE SKIP LOCKED`.execute(db);
  return rows;
}

export async function markDispatched(db: Db, eventIds: string[], at: Date): Promise<void> {
  await db.updateTable('events').set({ dispatched_at: at }).where('id', 'in', eventIds).execute();
}

/** Whether the outbox holds an event not fanned out yet: one cheap look (a partial index), for polling. */
export async function hasUndispatchedEvents(db: Db): Promise<boolean> {
  return (await db.selectFrom('events').select('id').where('dispatched_at', 'is', null).limit(1).executeTakeFirst()) !== undefined;
}

/** The event a delivery carries. */
export async function findEventRow(db: Db, id: string): Promise<EventRow> {
  return db.selectFrom('events').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** The events some deliveries carry, in one statement (a page of the delivery log, the bodies a claim renders). */
export async function findEventRows(db: Db, ids: string[]): Promise<EventRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('events').selectAll().where('id', 'in', ids).execute();
}

/**
 * For a join in another statement (a delivery's claim): what a delivery reads of its event, and the
 * trace it continues. Not its data: a body already rendered is sent again as it is (findEventRows
 * reads the data of those that are not).
 */
export function outboxEvents(db: Db) {
  return db.selectFrom('events').select(['id', 'merchant_id', 'livemode', 'type', 'api_version', 'created_at', 'traceparent']);
}
