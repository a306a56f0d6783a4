import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Json, Timestamp } from '../../db/columns.js';

/** An event, written in the same transaction as the change it reports. */
export interface EventsTable {
  /** `evt_…`; retries of its delivery carry the same id. */
  id: string;
  merchant_id: number;
  livemode: boolean;
  type: string;
  api_version: string;
  /** The `data.object` of the envelope. */
  data: Json<Record<string, unknown>>;
  /** The checkout session it concerns, for per-session notification URLs. */
  session_id: string | null;
  payment_id: number | null;
  created_at: Timestamp;
  /** When the webhook fan-out turned it into deliveries (the events table is the outbox). */
  dispatched_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** The W3C traceparent of the span that wrote it (tracing on): its deliveries are traced in that trace. */
  traceparent: ColumnType<string | null, string | null | undefined, string | null>;
  /** Order of writing. */
  seq: Generated<string>;
}
export type EventRow = Selectable<EventsTable>;

// The tables above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    events: EventsTable;
  }
}
