import { sql, type SqlBool } from 'kysely';
import type { Db } from '../../db/database.js';
import { activeTraceparent } from '../../shared/tracing.js';
import { ofTenant } from '../../db/scope.js';
import { precompiledInsert } from '../../db/precompiled.js';
import { WITH_NEXT } from '../../db/transaction-client.js';
import type { EventRow } from './event.tables.js';
import type { Tenant } from '../../shared/tenant.js';
import type { EventRecord, EventSubject, StoredPayload } from './subjects.js';

export interface EventInsert {
  id: string;
  merchantId: number;
  livemode: boolean;
  type: string;
  apiVersion: string;
  subject: EventSubject;
  sessionId: string | null;
  paymentId: number | null;
  createdAt: Date;
  /** Written as already fanned out (a test send goes to one configuration only). */
  dispatched: boolean;
}

/**
 * Inserts events, in one statement. Inside a transaction the insert goes with the transaction's
 * next statement or its commit (WITH_NEXT): nothing reads its answer, and its failure (an id
 * taken, a merchant missing) is a bug.
 */
export async function insertEvents(db: Db, events: readonly EventInsert[]): Promise<void> {
  const traceparent = activeTraceparent();
  const rows = events.map((event) => ({
    id: event.id,
    merchant_id: event.merchantId,
    livemode: event.livemode,
    type: event.type,
    api_version: event.apiVersion,
    data: JSON.stringify(event.subject),
    session_id: event.sessionId,
    payment_id: event.paymentId,
    created_at: event.createdAt,
    ...(event.dispatched ? { dispatched_at: event.createdAt } : {}),
    ...(traceparent ? { traceparent } : {}),
  }));
  await insertEventRows(db, rows);
}

const insertEventRows = precompiledInsert(
  (db) => db.insertInto('events'),
  (insert) => insert.modifyEnd(sql.raw(WITH_NEXT)),
);

// Records go into the jsonb column as JSON, so their times come back as ISO text: `revive` turns
// them back into Dates. A time is a column named like one (`…_at`, `…_date`, `…_start`, `…_end`)
// holding text in exactly the form Date#toJSON writes. What merchants and payers wrote (metadata,
// line items) is never looked into: it comes back exactly as it went in.
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const TIME_COLUMN = /(_at|_date|_start|_end)$/;
const USER_DATA = new Set(['metadata', 'line_items']);

function revive(value: unknown, key?: string): unknown {
  if (typeof value === 'string') return key !== undefined && TIME_COLUMN.test(key) && ISO_TIME.test(value) ? new Date(value) : value;
  if (Array.isArray(value)) return value.map((item) => revive(item));
  if (value && typeof value === 'object') {
    // A loop rather than Object.entries and fromEntries: every webhook attempt revives its event.
    const revived: Record<string, unknown> = {};
    for (const k of Object.keys(value)) {
      const v = (value as Record<string, unknown>)[k];
      const kept = USER_DATA.has(k) ? v : revive(v, k);
      // A key `__proto__` (JSON.parse keeps it as a key) is a key here too, not the object's prototype.
      if (k === '__proto__') Object.defineProperty(revived, k, { value: kept, enumerable: true, writable: true, configurable: true });
      else revived[k] = kept;
    }
    return revived;
  }
  return value;
}

/** A stored event's subject as records again; a payload stored before events held records is passed on as it is. */
export function decodeSubject(data: Record<string, unknown>): EventSubject | StoredPayload {
  if (typeof data.kind !== 'string') return { kind: 'payload', payload: data };
  return revive(data) as EventSubject;
}

/** An outbox row as an event record. */
export const toEventRecord = (row: Pick<EventRow, 'id' | 'merchant_id' | 'livemode' | 'type' | 'api_version' | 'created_at' | 'data'>): EventRecord => ({
  id: row.id,
  merchant_id: row.merchant_id,
  livemode: row.livemode,
  type: row.type,
  api_version: row.api_version,
  created_at: row.created_at,
  subject: decodeSubject(row.data),
});

// Reading events back: always one tenant's, in the order they were written (`seq`).

const RECORD_COLUMNS = ['id', 'merchant_id', 'livemode', 'type', 'api_version', 'created_at', 'data', 'seq'] as const;

/** Which types a read keeps: one type, or every type that starts with a family's prefix (`payment.`). */
export type EventTypeFilter = { exact: string } | { prefix: string };

export interface EventFilter {
  limit: number;
  /** The id of the last event the caller holds. */
  startingAfter?: string | undefined;
  type?: EventTypeFilter | undefined;
}

/** An event with its place in the order of writing. */
export type EventRecordRow = Pick<EventRow, (typeof RECORD_COLUMNS)[number]>;

export async function findEvent(db: Db, tenant: Tenant, id: string): Promise<EventRecordRow | undefined> {
  return db.selectFrom('events').select(RECORD_COLUMNS).where('id', '=', id).where(ofTenant(tenant)).executeTakeFirst();
}

/** The tenant's events, newest first, one more than the limit; undefined when `startingAfter` is not one of its events. */
export async function findEvents(db: Db, tenant: Tenant, filter: EventFilter): Promise<EventRecordRow[] | undefined> {
  let query = db.selectFrom('events').select(RECORD_COLUMNS).where(ofTenant(tenant));
  if (filter.startingAfter !== undefined) {
    const after = await findEvent(db, tenant, filter.startingAfter);
    if (!after) return undefined;
    query = query.where('seq', '<', after.seq);
  }
  const type = filter.type;
  if (type && 'exact' in type) query = query.where('type', '=', type.exact);
  if (type && 'prefix' in type) query = query.where(sql<SqlBool>`starts_with(type, ${type.prefix})`);
  return query
    .orderBy('seq', 'desc')
    .limit(filter.limit + 1)
    .execute();
}

/** The `seq` of the tenant's newest event ('0' when it has none). */
export async function newestEventSeq(db: Db, tenant: Tenant): Promise<string> {
  const row = await db.selectFrom('events').select('seq').where(ofTenant(tenant)).orderBy('seq', 'desc').limit(1).executeTakeFirst();
  return row?.seq ?? '0';
}

/** The tenant's events written after `seq`, oldest first, at most `limit`. */
export async function eventsAfter(db: Db, tenant: Tenant, seq: string, limit: number): Promise<EventRecordRow[]> {
  return db.selectFrom('events').select(RECORD_COLUMNS).where(ofTenant(tenant)).where('seq', '>', seq).orderBy('seq', 'asc').limit(limit).execute();
}

/** A payment's events, oldest first (at most `limit`). */
export async function findPaymentEvents(db: Db, tenant: Tenant, paymentId: number, limit: number): Promise<EventRecordRow[]> {
  return db
    .selectFrom('events')
    .select(RECORD_COLUMNS)
    .where('payment_id', '=', paymentId)
    .where(ofTenant(tenant))
    .orderBy('seq', 'asc')
    .limit(limit)
    .execute();
}

/** A checkout session's events, oldest first (at most `limit`). */
export async function findSessionEvents(db: Db, tenant: Tenant, sessionId: string, limit: number): Promise<EventRecordRow[]> {
  return db
    .selectFrom('events')
    .select(RECORD_COLUMNS)
    .where('session_id', '=', sessionId)
    .where(ofTenant(tenant))
    .orderBy('seq', 'asc')
    .limit(limit)
    .execute();
}
