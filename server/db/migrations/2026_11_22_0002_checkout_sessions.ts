import { type Kysely, sql } from 'kysely';

// Checkout sessions get their full shape, and every state change gets an event row, written in
// the same transaction as the change (delivery reads them later).

const sessionColumns: [string, string][] = [
  ['amount', 'numeric(20, 4) NOT NULL DEFAULT 0'],
  ['currency', "char(3) NOT NULL DEFAULT 'USD'"],
  ['mode', "text NOT NULL DEFAULT 'hosted' CHECK (mode IN ('hosted', 'embedded'))"],
  ['payment_type', "text NOT NULL DEFAULT 'one_time' CHECK (payment_type IN ('one_time', 'subscription'))"],
  ['payment_status', "text NOT NULL DEFAULT 'unpaid'"],
  ['capture_method', "text NOT NULL DEFAULT 'automatic' CHECK (capture_method IN ('automatic', 'manual'))"],
  ['url', 'text'],
  ['success_url', 'text'],
  ['cancel_url', 'text'],
  ['customer_email', 'text'],
  ['customer_first_name', 'text'],
  ['customer_last_name', 'text'],
  ['customer_phone', 'text'],
  ['notify_customer', 'boolean NOT NULL DEFAULT false'],
  ['send_receipt', 'boolean NOT NULL DEFAULT true'],
  ['notification_url', 'text'],
  ['notification_secret', 'text'],
  ['line_items', "jsonb NOT NULL DEFAULT '[]'"],
  ['metadata', "jsonb NOT NULL DEFAULT '{}'"],
  ['allow_saved_cards', 'boolean NOT NULL DEFAULT false'],
  ['enable_click_to_pay', 'boolean NOT NULL DEFAULT false'],
  ['invoice_id', 'integer'],
  ['invoice_reference', 'text'],
  ['payment_option_group_id', 'integer'],
  ['subscription_plan_id', 'integer'],
  ['client_id', 'integer'],
  ['trial_days', 'integer'],
  ['description', 'text'],
  ['subscription_id', 'integer'],
  ['payment_id', 'integer'],
  ['completed_at', 'timestamptz'],
  ['cancelled_at', 'timestamptz'],
  ['expired_at', 'timestamptz'],
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const [name, type] of sessionColumns) {
    await sql`ALTER TABLE checkout_sessions ADD COLUMN ${sql.id(name)} ${sql.raw(type)}`.execute(db);
  }
  // The expiry job looks for unpaid sessions whose time has passed.
  await sql`CREATE INDEX checkout_sessions_due ON checkout_sessions (expires_at) WHERE status IN ('created', 'payment_pending', 'processing')`.execute(db);
  await sql`CREATE TABLE events (
    id text PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    type text NOT NULL,
    api_version text NOT NULL,
    data jsonb NOT NULL,
    session_id text,
    payment_id integer,
    created_at timestamptz NOT NULL,
    seq bigserial NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX events_merchant ON events (merchant_id, livemode, seq DESC)`.execute(db);
  await sql`CREATE INDEX events_session ON events (session_id, seq) WHERE session_id IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE IF EXISTS events`.execute(db);
  await sql`DROP INDEX IF EXISTS checkout_sessions_due`.execute(db);
  for (const [name] of [...sessionColumns].reverse()) {
    await sql`ALTER TABLE checkout_sessions DROP COLUMN IF EXISTS ${sql.id(name)}`.execute(db);
  }
}
