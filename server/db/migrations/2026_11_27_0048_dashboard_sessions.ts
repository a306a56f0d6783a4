import { type Kysely, sql } from 'kysely';

// The merchant dashboard's sessions (issue 33). A browser signs in with a secret or restricted key;
// the server keeps only the SHA-256 of the session's random token (the cookie's value) and the id
// of the key it signed in with, one per mode (the mode toggle). A revoked key ends the session's
// use of that mode at once: every request joins the key row again.
// Two indexes for the dashboard's reads: a payment's events, and an event's webhook deliveries.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE dashboard_sessions (
    token_hash text PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    test_key_id integer REFERENCES api_keys (id) ON DELETE CASCADE,
    live_key_id integer REFERENCES api_keys (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    CHECK (test_key_id IS NOT NULL OR live_key_id IS NOT NULL)
  )`.execute(db);
  await sql`CREATE INDEX dashboard_sessions_expiry ON dashboard_sessions (expires_at)`.execute(db);
  await sql`CREATE INDEX events_payment ON events (payment_id, seq) WHERE payment_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX IF EXISTS webhook_deliveries_event`.execute(db);
  await sql`DROP INDEX IF EXISTS events_payment`.execute(db);
  await sql`DROP TABLE IF EXISTS dashboard_sessions`.execute(db);
}
