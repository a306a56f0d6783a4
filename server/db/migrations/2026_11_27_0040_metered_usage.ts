import { type Kysely, sql } from 'kysely';

// Metered (`Usage`) plans: the usage recorded against a subscription item. A period's usage is the
// sum of the records whose `recorded_at` falls in it, billed at the period's end; `invoice_id` is
// the invoice that billed a record (null until then), so no usage is billed twice or left out. `usage_id` is the
// caller's own id for a record (unique per item), so a retried report is recorded once.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE usage_records (
    id serial PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    subscription_id integer NOT NULL REFERENCES subscriptions (id) ON DELETE CASCADE,
    subscription_item_id integer NOT NULL REFERENCES subscription_items (id) ON DELETE CASCADE,
    quantity integer NOT NULL CHECK (quantity >= 1),
    usage_id text,
    recorded_at timestamptz NOT NULL,
    invoice_id integer REFERENCES invoices (id),
    created_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE UNIQUE INDEX usage_records_usage_id ON usage_records (subscription_item_id, usage_id) WHERE usage_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX usage_records_unbilled ON usage_records (subscription_id, recorded_at) WHERE invoice_id IS NULL`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE IF EXISTS usage_records`.execute(db);
}
