import type { Db } from '../../db/database.js';
import { AppError } from '../../shared/errors.js';
import { type Page, toPage } from '../../shared/pagination.js';
import type { Tenant } from '../../shared/tenant.js';
import { EVENT_TYPES } from '../../shared/vocabulary.generated.js';
import {
  type EventRecordRow,
  type EventTypeFilter,
  eventsAfter,
  findEvent,
  findEvents,
  findPaymentEvents,
  findSessionEvents,
  newestEventSeq,
} from './event.repository.js';
import { toEventRecord } from './event.repository.js';
import type { EventRecord } from './subjects.js';

// Reading a tenant's events back: one, a page of them, and those written after a point (streams).

/** An event record and its place in the order of writing (what a stream resumes from). */
export interface SequencedEvent {
  event: EventRecord;
  seq: string;
}

const sequenced = (row: EventRecordRow): SequencedEvent => ({ event: toEventRecord(row), seq: row.seq });

/**
 * A list's `type`: an event type, or `family.*` for every type of a family (`payment.*`,
 * `checkout.session.*`). Anything else is a 400 naming it.
 */
export function eventTypeFilter(type: string): EventTypeFilter {
  if (type.endsWith('.*')) {
    const prefix = type.slice(0, -1);
    if (EVENT_TYPES.some((t) => t.startsWith(prefix))) return { prefix };
    throw new AppError('parameter_invalid', { param: 'type', message: `${type} names no family of events; use an event type or a family such as payment.*.` });
  }
  if ((EVENT_TYPES as readonly string[]).includes(type)) return { exact: type };
  throw new AppError('parameter_invalid', {
    param: 'type',
    message: `${type} is not an event type; use an event type such as payment.succeeded or a family such as payment.*.`,
  });
}

/** The tenant's event; 404 for anyone else's. */
export async function getEvent(db: Db, tenant: Tenant, id: string): Promise<EventRecord> {
  const row = await findEvent(db, tenant, id);
  if (!row) throw new AppError('resource_not_found', { param: 'id', message: `No such event: ${id}.` });
  return toEventRecord(row);
}

/** The tenant's events, newest first; 404 for a `startingAfter` that is not one of them. */
export async function listEvents(
  db: Db,
  tenant: Tenant,
  filter: { limit: number; startingAfter?: string | undefined; type?: string | undefined },
): Promise<Page<EventRecord>> {
  const type = filter.type === undefined ? undefined : eventTypeFilter(filter.type);
  const rows = await findEvents(db, tenant, { limit: filter.limit, startingAfter: filter.startingAfter, type });
  if (!rows) throw new AppError('resource_not_found', { param: 'startingAfter', message: `No such event: ${filter.startingAfter}.` });
  return toPage(rows.map(toEventRecord), filter.limit);
}

/**
 * Where a stream starts: after the event `lastEventId` (404 when it is not the tenant's), or after
 * the tenant's newest event when there is none.
 */
export async function streamStart(db: Db, tenant: Tenant, lastEventId: string | undefined): Promise<string> {
  if (lastEventId === undefined) return newestEventSeq(db, tenant);
  const row = await findEvent(db, tenant, lastEventId);
  if (!row)
    throw new AppError('resource_not_found', {
      param: 'Last-Event-ID',
      message: `No such event: ${lastEventId}. Reconnect without Last-Event-ID to receive new events.`,
    });
  return row.seq;
}

/** The tenant's events written after `seq`, oldest first, at most `limit`. */
export async function eventsWrittenAfter(db: Db, tenant: Tenant, seq: string, limit: number): Promise<SequencedEvent[]> {
  return (await eventsAfter(db, tenant, seq, limit)).map(sequenced);
}

/** A payment's events, oldest first (the first 200): its timeline. */
export async function eventsOfPayment(db: Db, tenant: Tenant, paymentId: number): Promise<EventRecord[]> {
  return (await findPaymentEvents(db, tenant, paymentId, 200)).map(toEventRecord);
}

/** A checkout session's events, oldest first (the first 200). */
export async function eventsOfSession(db: Db, tenant: Tenant, sessionId: string): Promise<EventRecord[]> {
  return (await findSessionEvents(db, tenant, sessionId, 200)).map(toEventRecord);
}
