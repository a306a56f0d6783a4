import { type Kysely, sql } from 'kysely';

// Wallet QR payments: a payment is by card or by wallet; a wallet payment waits (`pending`) while
// its QR code is live, and ends paid, `withdrawn` (by the payer or a cancel) or `expired` (with its
// session). A wallet refund is accepted at once and finishes later (`pending_reversal`).

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE payments ADD COLUMN method_type text NOT NULL DEFAULT 'card' CHECK (method_type IN ('card', 'wallet'))`.execute(db);
  await sql`ALTER TABLE payments ADD COLUMN wallet_name text`.execute(db);
  await sql`ALTER TABLE payments ADD COLUMN qr_token text UNIQUE`.execute(db);
  await sql`ALTER TABLE payments ADD COLUMN qr_data text`.execute(db);
  await sql`ALTER TABLE payments ADD COLUMN qr_expires_at timestamptz`.execute(db);
  await sql`ALTER TABLE payments ADD COLUMN withdrawn_at timestamptz`.execute(db);
  await sql`ALTER TABLE payments ADD COLUMN refund_completes_at timestamptz`.execute(db);
  await sql`CREATE INDEX payments_reversal_due ON payments (refund_completes_at) WHERE status = 'pending_reversal'`.execute(db);
  // One live payment per session still; a withdrawn QR code no longer counts, so the session can
  // be confirmed again with another option.
  await sql`DROP INDEX payments_one_per_session`.execute(db);
  await sql`CREATE UNIQUE INDEX payments_one_per_session ON payments (session_id) WHERE status NOT IN ('failed', 'withdrawn')`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DELETE FROM payments WHERE status = 'withdrawn'`.execute(db);
  await sql`DROP INDEX IF EXISTS payments_one_per_session`.execute(db);
  await sql`CREATE UNIQUE INDEX payments_one_per_session ON payments (session_id) WHERE status NOT IN ('failed')`.execute(db);
  await sql`DROP INDEX IF EXISTS payments_reversal_due`.execute(db);
  for (const column of ['refund_completes_at', 'withdrawn_at', 'qr_expires_at', 'qr_data', 'qr_token', 'wallet_name', 'method_type']) {
    await sql`ALTER TABLE payments DROP COLUMN IF EXISTS ${sql.id(column)}`.execute(db);
  }
}
