import { type Kysely, sql } from 'kysely';

// Payment links (Commerce): shareable links that make invoices or subscriptions for payers. The
// links own three tables: the links with their analytics counters, the invoices made through each
// link (who paid, when, how much: what `maxUsesPerCustomer` and the counters read), and the email
// verification codes of the hosted page. A webhook delivery may go to a link's `notificationUrl`.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE payment_links (
    id serial PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    code text NOT NULL,
    identifier uuid NOT NULL UNIQUE,
    name text NOT NULL,
    description text,
    call_to_action_text text NOT NULL,
    product_code text,
    product_name text,
    product_description text,
    unit_price numeric(20, 6),
    quantity numeric(20, 6) NOT NULL DEFAULT 1,
    currency text NOT NULL,
    is_variable_amount boolean NOT NULL DEFAULT false,
    min_amount numeric(20, 6),
    max_amount numeric(20, 6),
    suggested_amount numeric(20, 6),
    tax_rate numeric(7, 4) NOT NULL DEFAULT 0,
    status text NOT NULL CHECK (status IN ('draft', 'active', 'inactive', 'expired')),
    valid_from timestamptz NOT NULL,
    valid_to timestamptz,
    usage_mode text NOT NULL CHECK (usage_mode IN ('single_use', 'multi_use')),
    max_uses integer,
    max_uses_per_customer integer,
    link_type text NOT NULL CHECK (link_type IN ('standard', 'donation', 'subscription')),
    link_style text NOT NULL CHECK (link_style IN ('button', 'link', 'qr_code')),
    button_color text NOT NULL,
    button_text_color text NOT NULL,
    media_url text,
    success_url text,
    cancel_url text,
    notification_url text,
    notification_secret text,
    password_hash text,
    is_password_protected boolean GENERATED ALWAYS AS (password_hash IS NOT NULL) STORED,
    is_email_verification_required boolean NOT NULL DEFAULT false,
    subscription_product_id integer REFERENCES products (id),
    is_subscription_based boolean GENERATED ALWAYS AS (link_type = 'subscription') STORED,
    click_count integer NOT NULL DEFAULT 0,
    invoice_count integer NOT NULL DEFAULT 0,
    completed_payment_count integer NOT NULL DEFAULT 0,
    total_amount_collected numeric(20, 6) NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    UNIQUE (merchant_id, code)
  )`.execute(db);
  await sql`CREATE INDEX payment_links_tenant ON payment_links (merchant_id, livemode, id DESC)`.execute(db);
  await sql`CREATE INDEX payment_links_expiry ON payment_links (valid_to) WHERE status IN ('draft', 'active', 'inactive') AND valid_to IS NOT NULL`.execute(db);
  await sql`CREATE TABLE payment_link_invoices (
    invoice_id integer PRIMARY KEY REFERENCES invoices (id) ON DELETE CASCADE,
    link_id integer NOT NULL REFERENCES payment_links (id) ON DELETE CASCADE,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    payer_email text NOT NULL,
    subscription_id integer,
    created_at timestamptz NOT NULL,
    paid_at timestamptz,
    amount_paid numeric(20, 6)
  )`.execute(db);
  await sql`CREATE INDEX payment_link_invoices_payer ON payment_link_invoices (link_id, payer_email) WHERE paid_at IS NOT NULL`.execute(db);
  await sql`CREATE TABLE payment_link_verifications (
    id text PRIMARY KEY,
    link_id integer NOT NULL REFERENCES payment_links (id) ON DELETE CASCADE,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    email text NOT NULL,
    code_hash text NOT NULL,
    status text NOT NULL CHECK (status IN ('sent', 'used', 'superseded')),
    wrong_attempts integer NOT NULL DEFAULT 0,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX payment_link_verifications_email ON payment_link_verifications (link_id, email, created_at DESC)`.execute(db);
  // A subscription started from a subscription link has no checkout session (it waits for its
  // first invoice to be paid).
  await sql`ALTER TABLE subscriptions ALTER COLUMN session_id DROP NOT NULL`.execute(db);
  // A delivery goes to a configuration, a session's URL or a link's URL: exactly one of them.
  await sql`ALTER TABLE webhook_deliveries ADD COLUMN payment_link_id integer REFERENCES payment_links (id) ON DELETE SET NULL`.execute(db);
  await dropTargetCheck(db);
  await sql`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_one_target CHECK (num_nonnulls(configuration_id, session_id, payment_link_id) = 1)`.execute(
    db,
  );
}

/** Drops the table's CHECK on its targets, whatever PostgreSQL named it. */
async function dropTargetCheck(db: Kysely<any>): Promise<void> {
  const { rows } = await sql<{
    name: string;
  }>`SELECT conname AS name FROM pg_constraint WHERE conrelid = 'webhook_deliveries'::regclass AND contype = 'c' AND pg_get_constraintdef(oid) LIKE '%configuration_id IS NULL%'`.execute(
    db,
  );
  for (const { name } of rows) await sql`ALTER TABLE webhook_deliveries DROP CONSTRAINT ${sql.id(name)}`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DELETE FROM webhook_deliveries WHERE payment_link_id IS NOT NULL`.execute(db);
  await sql`ALTER TABLE webhook_deliveries DROP CONSTRAINT IF EXISTS webhook_deliveries_one_target`.execute(db);
  await sql`ALTER TABLE webhook_deliveries DROP COLUMN payment_link_id`.execute(db);
  await sql`ALTER TABLE webhook_deliveries ADD CHECK ((configuration_id IS NULL) <> (session_id IS NULL))`.execute(db);
  await sql`DELETE FROM subscriptions WHERE session_id IS NULL`.execute(db);
  await sql`ALTER TABLE subscriptions ALTER COLUMN session_id SET NOT NULL`.execute(db);
  await sql`DROP TABLE payment_link_verifications`.execute(db);
  await sql`DROP TABLE payment_link_invoices`.execute(db);
  await sql`DROP TABLE payment_links`.execute(db);
}
