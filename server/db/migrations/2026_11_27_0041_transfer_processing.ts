import { type Kysely, sql } from 'kysely';

// Transfers move through `Processing` to `Completed` or `Failed` on the clock (issue 35 §12): when
// a transfer falls due (`completes_at`), when it completed or failed, why it failed, and the
// institution it goes through (1 Till, 2 the bank network, 3 the CBDC network: the transfers
// dashboard's `institutionId`). The transfers made before were completed at once: they keep that.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE transfers
    ADD COLUMN institution_id integer,
    ADD COLUMN completes_at timestamptz,
    ADD COLUMN completed_at timestamptz,
    ADD COLUMN failed_at timestamptz,
    ADD COLUMN failure_reason text`.execute(db);
  await sql`UPDATE transfers SET
    institution_id = CASE transfer_action WHEN 'ExecuteTransfer' THEN 1 WHEN 'CBDCTransfer' THEN 3 ELSE 2 END,
    completes_at = created_at,
    completed_at = CASE WHEN status = 'Completed' THEN created_at END`.execute(db);
  await sql`ALTER TABLE transfers
    ALTER COLUMN institution_id SET NOT NULL,
    ALTER COLUMN completes_at SET NOT NULL,
    ADD CONSTRAINT transfers_institution_check CHECK (institution_id IN (1, 2, 3))`.execute(db);
  await sql`CREATE INDEX transfers_processing_due ON transfers (completes_at) WHERE status = 'Processing'`.execute(db);
  await sql`CREATE INDEX transfers_tenant_institution ON transfers (merchant_id, livemode, institution_id, currency, created_at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX IF EXISTS transfers_tenant_institution`.execute(db);
  await sql`DROP INDEX IF EXISTS transfers_processing_due`.execute(db);
  await sql`ALTER TABLE transfers
    DROP CONSTRAINT IF EXISTS transfers_institution_check,
    DROP COLUMN IF EXISTS failure_reason,
    DROP COLUMN IF EXISTS failed_at,
    DROP COLUMN IF EXISTS completed_at,
    DROP COLUMN IF EXISTS completes_at,
    DROP COLUMN IF EXISTS institution_id`.execute(db);
}
