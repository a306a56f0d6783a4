import type { Generated, Insertable, Selectable } from 'kysely';
import type { Timestamp } from '../../db/columns.js';

/** A JSON value as a body holds it. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** One API request of a merchant and its answer, bodies already redacted (see redact.ts). */
export interface RequestLogsTable {
  /** `rl_…` */
  id: string;
  /** Insertion order: the tie-break of newest-first pages. */
  seq: Generated<string>;
  merchant_id: number;
  livemode: boolean;
  method: string;
  /** Without the query string. */
  path: string;
  operation_id: string;
  status: number;
  duration_ms: number;
  request_id: string;
  idempotency_key: string | null;
  /** `sk_test_AbCd`: never the whole key. */
  key_prefix: string | null;
  client_address: string | null;
  /** JSON text (text, not jsonb: nothing filters on a body, and jsonb costs PostgreSQL a parse per insert). */
  request_body: string | null;
  response_body: string | null;
  created_at: Timestamp;
}
export type StoredRequestLogRow = Selectable<RequestLogsTable>;
/** A request log as read: its bodies parsed. */
export type RequestLogRow = Omit<StoredRequestLogRow, 'request_body' | 'response_body'> & {
  request_body: JsonValue | null;
  response_body: JsonValue | null;
};
export type NewRequestLogRow = Insertable<RequestLogsTable>;

// The table above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../../db/schema.js' {
  interface Database {
    request_logs: RequestLogsTable;
  }
}
