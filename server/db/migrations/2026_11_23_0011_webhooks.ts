import { type Kysely, sql } from 'kysely';

// Webhooks (issue #5): the events table becomes the outbox (`dispatched_at` is set once an event
// has been fanned out into deliveries), webhook configurations (shared by a merchant's test and
// live keys: each holds a sandbox and a live URL), one delivery per event and target URL, and
// every attempt of a delivery (the delivery log).

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE events ADD COLUMN dispatched_at timestamptz`.execute(db);
  // Events written before webhooks existed had nowhere configured to go: they are not replayed.
  await sql`UPDATE events SET dispatched_at = created_at`.execute(db);
  await sql`CREATE INDEX events_undispatched ON events (seq) WHERE dispatched_at IS NULL`.execute(db);

  await sql`CREATE TABLE webhook_configurations (
    id serial PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    sandbox_url text,
    sandbox_secret text NOT NULL,
    live_url text,
    live_secret text NOT NULL,
    subscribed_events jsonb NOT NULL,
    enabled boolean NOT NULL DEFAULT true,
    description text,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX webhook_configurations_merchant ON webhook_configurations (merchant_id, id DESC)`.execute(db);

  await sql`CREATE TABLE webhook_deliveries (
    id text PRIMARY KEY,
    seq bigserial NOT NULL,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    configuration_id integer REFERENCES webhook_configurations (id) ON DELETE CASCADE,
    session_id text,
    event_id text NOT NULL REFERENCES events (id) ON DELETE CASCADE,
    event_type text NOT NULL,
    url text NOT NULL,
    status text NOT NULL,
    attempt_count integer NOT NULL DEFAULT 0,
    automatic_attempts integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz,
    locked_until timestamptz,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    CHECK ((configuration_id IS NULL) <> (session_id IS NULL))
  )`.execute(db);
  await sql`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status IN ('pending', 'failed')`.execute(db);
  await sql`CREATE INDEX webhook_deliveries_configuration ON webhook_deliveries (configuration_id, livemode, seq DESC)`.execute(db);

  await sql`CREATE TABLE webhook_delivery_attempts (
    id bigserial PRIMARY KEY,
    delivery_id text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempted_at timestamptz NOT NULL,
    url text NOT NULL,
    http_status integer,
    duration_ms integer NOT NULL,
    response_snippet text,
    error text
  )`.execute(db);
  await sql`CREATE INDEX webhook_delivery_attempts_delivery ON webhook_delivery_attempts (delivery_id, id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE IF EXISTS webhook_delivery_attempts`.execute(db);
  await sql`DROP TABLE IF EXISTS webhook_deliveries`.execute(db);
  await sql`DROP TABLE IF EXISTS webhook_configurations`.execute(db);
  await sql`DROP INDEX IF EXISTS events_undispatched`.execute(db);
  await sql`ALTER TABLE events DROP COLUMN IF EXISTS dispatched_at`.execute(db);
}
