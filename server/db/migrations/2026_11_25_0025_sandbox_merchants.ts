import { type Kysely, sql } from 'kysely';

// Sandbox merchants (issue #19): throwaway merchants made through `POST /v1/test-helpers/merchants`
// for tests that must not change the caller's own test data (the conformance suite's clock
// scenarios). One belongs to the merchant that made it (`parent_merchant_id`), has test keys only,
// and stops authenticating at `sandbox_expires_at` (real time: the database's `now()`, never a
// sandbox clock). Ordinary merchants have neither.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE merchants ADD COLUMN parent_merchant_id integer REFERENCES merchants (id) ON DELETE CASCADE`.execute(db);
  await sql`ALTER TABLE merchants ADD COLUMN sandbox_expires_at timestamptz`.execute(db);
  await sql`ALTER TABLE merchants ADD CONSTRAINT merchants_sandbox_complete CHECK ((parent_merchant_id IS NULL) = (sandbox_expires_at IS NULL))`.execute(db);
  await sql`CREATE INDEX merchants_sandboxes ON merchants (parent_merchant_id, sandbox_expires_at) WHERE parent_merchant_id IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX IF EXISTS merchants_sandboxes`.execute(db);
  await sql`ALTER TABLE merchants DROP CONSTRAINT IF EXISTS merchants_sandbox_complete`.execute(db);
  await sql`ALTER TABLE merchants DROP COLUMN IF EXISTS sandbox_expires_at`.execute(db);
  await sql`ALTER TABLE merchants DROP COLUMN IF EXISTS parent_merchant_id`.execute(db);
}
