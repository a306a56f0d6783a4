import type { Json, Timestamp } from '../db/columns.js';

/** A stored response for an Idempotency-Key. */
export interface IdempotencyKeysTable {
  merchant_id: number;
  livemode: boolean;
  key: string;
  request_hash: string;
  /** `in_flight` while the first request runs, `committed` once its transaction committed, `done` with its stored answer. */
  state: 'in_flight' | 'committed' | 'done';
  response_status: number | null;
  response_headers: Json<Record<string, string>> | null;
  response_body: string | null;
  locked_at: Timestamp;
  created_at: Timestamp;
}

/** The rate-limit buckets of rate-limiter-flexible's PostgreSQL store. */
export interface RateLimitsTable {
  key: string;
  points: number;
  expire: string | null;
}

// The tables above, in the one `Database` Kysely is typed with (server/db/schema.ts).
declare module '../db/schema.js' {
  interface Database {
    idempotency_keys: IdempotencyKeysTable;
    rate_limits: RateLimitsTable;
  }
}
