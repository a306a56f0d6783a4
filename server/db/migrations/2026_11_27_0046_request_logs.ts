import { type Kysely, sql } from 'kysely';

// The request log (issue 34): every API request of a merchant, with its answer, bodies redacted
// before they are written. Rows are written in batches off the request path and deleted after 30
// days. No foreign key to merchants: a log row must never make a batch fail.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE request_logs (
    id text PRIMARY KEY,
    seq bigserial NOT NULL,
    merchant_id integer NOT NULL,
    livemode boolean NOT NULL,
    method text NOT NULL,
    path text NOT NULL,
    operation_id text NOT NULL,
    status integer NOT NULL,
    duration_ms double precision NOT NULL,
    request_id text NOT NULL,
    idempotency_key text,
    key_prefix text,
    client_address text,
    request_body jsonb,
    response_body jsonb,
    created_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX request_logs_list ON request_logs (merchant_id, livemode, created_at DESC, seq DESC)`.execute(db);
  await sql`CREATE INDEX request_logs_request_id ON request_logs (merchant_id, livemode, request_id)`.execute(db);
  await sql`CREATE INDEX request_logs_created ON request_logs (created_at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE request_logs`.execute(db);
}
