import type { Db } from '../../db/database.js';
import type { Clock } from '../../shared/clock.js';
import { randomToken } from '../../shared/crypto.js';
import type { Tenant } from '../../shared/tenant.js';
import type { EventType } from '../../shared/vocabulary.generated.js';
import { insertEvents } from './event.repository.js';
import type { EventSubject } from './subjects.js';

export type { CardSummary, EventRecord, EventSubject, StoredPayload } from './subjects.js';
export { decodeSubject, toEventRecord } from './event.repository.js';

/** The `apiVersion` every event carries (a date, `YYYY-MM-DD`). */
export const API_VERSION = '2026-11-01';

export interface NewEvent {
  tenant: Tenant;
  type: EventType;
  subject: EventSubject;
  /** The checkout session it concerns (for per-session notification URLs). */
  sessionId?: string | null;
  paymentId?: number | null;
  /** Already fanned out: it goes to one configuration only (test sends). */
  dispatched?: boolean;
}

const writtenListeners = new Set<() => void>();

/**
 * Reacts to an event inside the transaction that writes it, so that a higher layer keeps its
 * records true with the change (a paid invoice counts on the payment link it was made through)
 * without the lower layer importing it. A reactor that throws rolls the change back.
 */
export type EventReactor = (db: Db, clock: Clock, event: NewEvent) => Promise<void>;
const reactors = new Set<EventReactor>();

/** Registers `reactor` for every event this process writes (once: registering it again changes nothing). */
export function reactToEvents(reactor: EventReactor): void {
  reactors.add(reactor);
}

/**
 * Calls `listener` each time this process writes an event, before the writing transaction
 * commits: the webhook fan-out looks at the outbox a moment later instead of at its next poll.
 * Returns a function that stops it.
 */
export function onEventWritten(listener: () => void): () => void {
  writtenListeners.add(listener);
  return () => writtenListeners.delete(listener);
}

/**
 * Writes an event. Call it with the transaction of the change it reports, so that no event is
 * lost and none exists for a change that rolled back. Returns its id (`evt_…`).
 */
export async function writeEvent(db: Db, clock: Clock, event: NewEvent): Promise<string> {
  return (await writeEvents(db, clock, [event]))[0]!;
}

/**
 * Writes events as writeEvent does, in one statement (a job that changes many records at once):
 * in the order given, each reacted to in that order. Returns their ids.
 */
export async function writeEvents(db: Db, clock: Clock, events: readonly NewEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const createdAt = clock.now();
  const rows = events.map((event) => ({
    id: `evt_${randomToken(24)}`,
    merchantId: event.tenant.merchantId,
    livemode: event.tenant.livemode,
    type: event.type,
    apiVersion: API_VERSION,
    subject: event.subject,
    sessionId: event.sessionId ?? null,
    paymentId: event.paymentId ?? null,
    createdAt,
    dispatched: event.dispatched ?? false,
  }));
  await insertEvents(db, rows);
  for (const event of events) for (const reactor of reactors) await reactor(db, clock, event);
  for (const listener of writtenListeners) listener();
  return rows.map((row) => row.id);
}
