import { type Kysely, sql } from 'kysely';

// Cards on file: a tokenized card kept for a customer (saved cards at checkout, subscription
// renewals). Only brand, last 4, expiry and the fingerprint, as for every payment method.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE payment_methods ADD COLUMN saved_at timestamptz`.execute(db);
  await sql`ALTER TABLE payment_methods ADD COLUMN is_default boolean NOT NULL DEFAULT false`.execute(db);
  await sql`CREATE INDEX payment_methods_on_file ON payment_methods (merchant_id, livemode, customer_id) WHERE saved_at IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX IF EXISTS payment_methods_on_file`.execute(db);
  await sql`ALTER TABLE payment_methods DROP COLUMN IF EXISTS is_default`.execute(db);
  await sql`ALTER TABLE payment_methods DROP COLUMN IF EXISTS saved_at`.execute(db);
}
