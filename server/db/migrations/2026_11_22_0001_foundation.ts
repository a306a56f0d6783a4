import { type Kysely, sql } from 'kysely';

// Migrations never import app code and use Kysely<any>: they must run the same way forever.

const up_statements = [
  sql`CREATE TABLE merchants (
    id serial PRIMARY KEY,
    name text NOT NULL,
    slug text NOT NULL UNIQUE,
    email text,
    logo_url text,
    rate_plan text NOT NULL DEFAULT 'standard' CHECK (rate_plan IN ('standard', 'enterprise')),
    message_checkout_customers boolean NOT NULL DEFAULT false,
    send_checkout_receipts boolean NOT NULL DEFAULT true,
    payment_options jsonb NOT NULL DEFAULT '[]',
    created_at timestamptz NOT NULL
  )`,
  sql`CREATE TABLE api_keys (
    id serial PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    kind text NOT NULL CHECK (kind IN ('secret', 'publishable')),
    livemode boolean NOT NULL,
    key_hash text NOT NULL UNIQUE,
    key_prefix text NOT NULL,
    created_at timestamptz NOT NULL,
    revoked_at timestamptz
  )`,
  sql`CREATE INDEX api_keys_merchant ON api_keys (merchant_id)`,
  sql`CREATE TABLE idempotency_keys (
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    key text NOT NULL,
    request_hash text NOT NULL,
    state text NOT NULL CHECK (state IN ('in_flight', 'done')),
    response_status integer,
    response_headers jsonb,
    response_body text,
    locked_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (merchant_id, livemode, key)
  )`,
  sql`CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at)`,
  // rate-limiter-flexible's PostgreSQL store layout (it is told the table exists).
  sql`CREATE TABLE rate_limits (
    key varchar(255) PRIMARY KEY,
    points integer NOT NULL DEFAULT 0,
    expire bigint
  )`,
  sql`CREATE TABLE products (
    id serial PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    name text NOT NULL,
    description text,
    type text NOT NULL DEFAULT 'service' CHECK (type IN ('service', 'digital', 'physical')),
    media jsonb NOT NULL DEFAULT '[]',
    created_at timestamptz NOT NULL
  )`,
  sql`CREATE INDEX products_merchant ON products (merchant_id, id DESC)`,
  sql`CREATE TABLE plans (
    id serial PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    product_id integer NOT NULL REFERENCES products (id),
    name text NOT NULL,
    description text,
    details text,
    amount numeric(20, 4) NOT NULL CHECK (amount >= 0),
    currency char(3) NOT NULL,
    interval text NOT NULL CHECK (interval IN ('day', 'week', 'month', 'year')),
    interval_count integer NOT NULL CHECK (interval_count >= 1),
    billing_type text NOT NULL DEFAULT 'recurring' CHECK (billing_type IN ('recurring', 'one_time', 'usage')),
    active boolean NOT NULL DEFAULT true,
    status text NOT NULL DEFAULT 'available' CHECK (status IN ('available', 'discontinued')),
    valid_from timestamptz,
    valid_to timestamptz,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`,
  sql`CREATE INDEX plans_merchant ON plans (merchant_id, id DESC)`,
  sql`CREATE TABLE customers (
    id serial PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    email text,
    name text,
    phone text,
    external_id text,
    metadata jsonb NOT NULL DEFAULT '{}',
    has_payment_method boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL
  )`,
  sql`CREATE INDEX customers_merchant ON customers (merchant_id, id DESC)`,
  sql`CREATE UNIQUE INDEX customers_external_id ON customers (merchant_id, external_id) WHERE external_id IS NOT NULL`,
  // One customer per email among those created without an externalId (the repeat-safe rule).
  sql`CREATE UNIQUE INDEX customers_email_without_external_id ON customers (merchant_id, lower(email)) WHERE external_id IS NULL AND email IS NOT NULL`,
  sql`CREATE INDEX customers_email ON customers (merchant_id, lower(email))`,
  sql`CREATE TABLE checkout_sessions (
    id text PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    client_secret_hash text NOT NULL,
    status text NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
  )`,
  sql`CREATE INDEX checkout_sessions_merchant ON checkout_sessions (merchant_id, livemode, created_at DESC)`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of up_statements) await statement.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['checkout_sessions', 'customers', 'plans', 'products', 'rate_limits', 'idempotency_keys', 'api_keys', 'merchants']) {
    await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(db);
  }
}
