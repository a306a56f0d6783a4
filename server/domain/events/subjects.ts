import type { EventType } from '../../shared/vocabulary.generated.js';

/** What is kept of the card a payment used, for its events. */
export interface CardSummary {
  brand: string;
  last4: string;
}

/**
 * What an event can be about, by kind: the domain records as they were when it happened. Events
 * store these, not any interface's payload; each interface renders them when it delivers them.
 * The module that owns a record adds its kind here by declaration merging, beside its table types
 * (`declare module '…/events/subjects.js'`), so this module, on the lowest layer, names no record
 * of the layers above it.
 */
export interface EventSubjects {
  test: { id: string; eventType: string; live: boolean; created_at: Date };
}

/** One event's subject: a kind of `EventSubjects`, named by `kind`. */
export type EventSubject = { [K in keyof EventSubjects]: { kind: K } & EventSubjects[K] }[keyof EventSubjects];

/** An event written before events stored records (migration 0013): its payload, as it was written. */
export interface StoredPayload {
  kind: 'payload';
  payload: Record<string, unknown>;
}

/** An event as the outbox holds it. */
export interface EventRecord {
  id: string;
  merchant_id: number;
  livemode: boolean;
  type: EventType | (string & {});
  api_version: string;
  created_at: Date;
  subject: EventSubject | StoredPayload;
}
