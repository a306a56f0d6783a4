import { type Kysely, sql } from 'kysely';

// Subscriptions of customers on plans, started through a checkout session (`paymentType`
// `subscription`): the subscription, its items (one plan each), the card kept on file for its
// renewals, and the invoices it raises (one per billing period; their due date is the invoices'
// own `due_date`, added with merchant invoices).

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE subscriptions (
    id serial PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    customer_id integer NOT NULL REFERENCES customers (id),
    plan_id integer NOT NULL REFERENCES plans (id),
    session_id text NOT NULL REFERENCES checkout_sessions (id),
    status text NOT NULL CHECK (status IN ('active', 'trialing', 'past_due', 'unpaid', 'paused', 'canceled', 'pending')),
    amount numeric(20, 4) NOT NULL,
    currency char(3) NOT NULL,
    interval text NOT NULL CHECK (interval IN ('day', 'week', 'month', 'year')),
    interval_count integer NOT NULL CHECK (interval_count >= 1),
    start_date timestamptz NOT NULL,
    current_period_start timestamptz NOT NULL,
    current_period_end timestamptz NOT NULL,
    trial_end timestamptz,
    cancel_at_period_end boolean NOT NULL DEFAULT false,
    cancel_at timestamptz,
    canceled_at timestamptz,
    paused_at timestamptz,
    payment_method_id text REFERENCES payment_methods (id),
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`.execute(db);
  // One subscription per checkout session: the last line against a session starting two.
  await sql`CREATE UNIQUE INDEX subscriptions_one_per_session ON subscriptions (session_id)`.execute(db);
  await sql`CREATE INDEX subscriptions_merchant ON subscriptions (merchant_id, livemode, id DESC)`.execute(db);
  await sql`CREATE INDEX subscriptions_customer ON subscriptions (merchant_id, livemode, customer_id, id DESC)`.execute(db);
  await sql`CREATE TABLE subscription_items (
    id serial PRIMARY KEY,
    subscription_id integer NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    plan_id integer NOT NULL REFERENCES plans (id),
    quantity integer NOT NULL DEFAULT 1 CHECK (quantity >= 1),
    amount numeric(20, 4) NOT NULL,
    currency char(3) NOT NULL,
    created_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX subscription_items_subscription ON subscription_items (subscription_id, id)`.execute(db);
  await sql`CREATE INDEX subscription_items_plan ON subscription_items (merchant_id, livemode, plan_id)`.execute(db);
  await sql`ALTER TABLE invoices ADD COLUMN subscription_id integer REFERENCES subscriptions (id)`.execute(db);
  await sql`ALTER TABLE invoices ADD COLUMN period_start timestamptz`.execute(db);
  await sql`ALTER TABLE invoices ADD COLUMN period_end timestamptz`.execute(db);
  await sql`CREATE INDEX invoices_subscription ON invoices (subscription_id, id DESC) WHERE subscription_id IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX IF EXISTS invoices_subscription`.execute(db);
  for (const column of ['period_end', 'period_start', 'subscription_id']) {
    await sql`ALTER TABLE invoices DROP COLUMN IF EXISTS ${sql.id(column)}`.execute(db);
  }
  await sql`DROP TABLE IF EXISTS subscription_items`.execute(db);
  await sql`DROP TABLE IF EXISTS subscriptions`.execute(db);
}
