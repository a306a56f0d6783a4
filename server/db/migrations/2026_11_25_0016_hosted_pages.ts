import { type Kysely, sql } from 'kysely';

// The hosted pages (issue #13). Till's own payment page calls the public API like any merchant
// page: with a publishable key and the session's client secret. Publishable keys are public by
// design, so the one key per merchant and mode that Till's pages use keeps its text
// (`page_key`); every other key is kept as a hash only, and a secret key never has a text.
// `brand_color` is the merchant's button colour on its pages (a #rrggbb hex colour).

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE api_keys ADD COLUMN page_key text CHECK (page_key IS NULL OR (kind = 'publishable' AND page_key LIKE 'pk\\_%'))`.execute(db);
  await sql`CREATE UNIQUE INDEX api_keys_one_page_key ON api_keys (merchant_id, livemode) WHERE page_key IS NOT NULL AND revoked_at IS NULL`.execute(db);
  await sql`ALTER TABLE merchants ADD COLUMN brand_color text CHECK (brand_color IS NULL OR brand_color ~ '^#[0-9a-fA-F]{6}$')`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX api_keys_one_page_key`.execute(db);
  await sql`ALTER TABLE api_keys DROP COLUMN page_key`.execute(db);
  await sql`ALTER TABLE merchants DROP COLUMN brand_color`.execute(db);
}
