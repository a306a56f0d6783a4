import { type Kysely, sql } from 'kysely';

// An invoice's public code (issue 35 §7): `getByReference(code=…)` is public and shows the payer,
// so its key is 128 random bits the database generates (`public_code`, URL-safe base64, 22
// characters), no longer the merchant's `reference`, which becomes unique per merchant and mode.
//
// invoice_public_code() makes a code: 120 random bits of one gen_random_uuid() (its 32 hex digits
// without the version digit and the variant digit) and 8 of another. PostgreSQL's UUIDs come from
// its strong random source, so pgcrypto is not needed. It is the column's default, so every insert
// gets a code and no caller chooses one; adding the column with a volatile default gives every
// existing invoice its own code in the same statement.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE FUNCTION invoice_public_code() RETURNS text LANGUAGE sql VOLATILE AS $$
      SELECT rtrim(translate(encode(decode(substr(a, 1, 12) || substr(a, 14, 3) || substr(a, 18, 15) || substr(b, 1, 2), 'hex'), 'base64'), '+/', '-_'), '=')
      FROM (SELECT replace(gen_random_uuid()::text, '-', '') AS a, replace(gen_random_uuid()::text, '-', '') AS b) AS r
    $$`.execute(db);
  await sql`ALTER TABLE invoices ADD COLUMN public_code text NOT NULL DEFAULT invoice_public_code()`.execute(db);
  await sql`ALTER TABLE invoices ADD CONSTRAINT invoices_public_code_key UNIQUE (public_code)`.execute(db);
  await sql`ALTER TABLE invoices DROP CONSTRAINT invoices_reference_key`.execute(db);
  await sql`ALTER TABLE invoices ADD CONSTRAINT invoices_tenant_reference_key UNIQUE (merchant_id, livemode, reference)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE invoices DROP CONSTRAINT invoices_tenant_reference_key`.execute(db);
  await sql`ALTER TABLE invoices ADD CONSTRAINT invoices_reference_key UNIQUE (reference)`.execute(db);
  await sql`ALTER TABLE invoices DROP COLUMN public_code`.execute(db);
  await sql`DROP FUNCTION invoice_public_code()`.execute(db);
}
