import { type Kysely, sql } from 'kysely';

// Cards tokenized on a session, the payments made with them, the invoices a one-time session
// raises, and the ledger every money movement is written to. No card number or CVC anywhere.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE payment_methods (
    id text PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    session_id text REFERENCES checkout_sessions (id) ON DELETE CASCADE,
    customer_id integer,
    brand text NOT NULL,
    last4 char(4) NOT NULL,
    expiry_month integer NOT NULL,
    expiry_year integer NOT NULL,
    fingerprint text NOT NULL,
    sandbox_outcome text NOT NULL,
    billing_name text,
    billing_email text,
    created_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE TABLE invoices (
    id serial PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    identifier uuid NOT NULL UNIQUE,
    reference text NOT NULL UNIQUE,
    invoice_number text NOT NULL,
    status text NOT NULL,
    currency char(3) NOT NULL,
    subtotal numeric(20, 4) NOT NULL,
    tax_amount numeric(20, 4) NOT NULL DEFAULT 0,
    discount numeric(20, 4) NOT NULL DEFAULT 0,
    total numeric(20, 4) NOT NULL,
    amount_paid numeric(20, 4) NOT NULL DEFAULT 0,
    amount_refunded numeric(20, 4) NOT NULL DEFAULT 0,
    payer_email text,
    payer_first_name text,
    payer_last_name text,
    payer_phone text,
    description text,
    line_items jsonb NOT NULL DEFAULT '[]',
    session_id text,
    paid_at timestamptz,
    created_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX invoices_merchant ON invoices (merchant_id, livemode, id DESC)`.execute(db);
  await sql`CREATE TABLE payments (
    id serial PRIMARY KEY,
    reference_number text NOT NULL UNIQUE,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    session_id text REFERENCES checkout_sessions (id),
    invoice_id integer REFERENCES invoices (id),
    payment_method_id text REFERENCES payment_methods (id),
    status text NOT NULL,
    capture_method text NOT NULL DEFAULT 'automatic',
    amount numeric(20, 4) NOT NULL,
    currency char(3) NOT NULL,
    fee numeric(20, 4) NOT NULL DEFAULT 0,
    authorized_amount numeric(20, 4),
    captured_amount numeric(20, 4),
    refunded_amount numeric(20, 4) NOT NULL DEFAULT 0,
    authorization_expires_at timestamptz,
    captured_at timestamptz,
    failure_code text,
    failure_message text,
    settled_at timestamptz,
    metadata jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`.execute(db);
  // One successful or authorized payment per session: the last line against racing confirms.
  await sql`CREATE UNIQUE INDEX payments_one_per_session ON payments (session_id) WHERE status NOT IN ('failed')`.execute(db);
  await sql`CREATE INDEX payments_merchant ON payments (merchant_id, livemode, id DESC)`.execute(db);
  await sql`CREATE TABLE ledger_entries (
    id bigserial PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    payment_id integer REFERENCES payments (id),
    type text NOT NULL CHECK (type IN ('payment', 'fee', 'refund', 'settlement', 'transfer', 'payout')),
    amount numeric(20, 4) NOT NULL,
    currency char(3) NOT NULL,
    created_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX ledger_entries_merchant ON ledger_entries (merchant_id, livemode, currency)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['ledger_entries', 'payments', 'invoices', 'payment_methods']) {
    await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(db);
  }
}
