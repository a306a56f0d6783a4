import { type Kysely, sql } from 'kysely';

// Paying invoices through the Commerce interface (issue #15 §3). Each payment runs through a
// checkout session of the invoice that the Commerce interface opens itself (`origin` commerce):
// several may be open on one invoice at once (part payments, a bank transfer on its way while a
// card pays), so the one-open-session-per-invoice rule of the Checkout interface holds for its own
// sessions only. A payment may also be a bank transfer waiting for the payer.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE checkout_sessions ADD COLUMN origin text NOT NULL DEFAULT 'checkout' CHECK (origin IN ('checkout', 'commerce'))`.execute(db);
  await sql`DROP INDEX IF EXISTS checkout_sessions_open_on_invoice`.execute(db);
  await sql`CREATE UNIQUE INDEX checkout_sessions_open_on_invoice ON checkout_sessions (invoice_id) WHERE pays_invoice AND status IN ('created', 'payment_pending', 'processing') AND origin = 'checkout'`.execute(
    db,
  );
  await sql`ALTER TABLE payments DROP CONSTRAINT IF EXISTS payments_method_type_check`.execute(db);
  await sql`ALTER TABLE payments ADD CONSTRAINT payments_method_type_check CHECK (method_type IN ('card', 'wallet', 'bank_transfer'))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE payments DROP CONSTRAINT IF EXISTS payments_method_type_check`.execute(db);
  await sql`ALTER TABLE payments ADD CONSTRAINT payments_method_type_check CHECK (method_type IN ('card', 'wallet'))`.execute(db);
  await sql`DROP INDEX IF EXISTS checkout_sessions_open_on_invoice`.execute(db);
  await sql`CREATE UNIQUE INDEX checkout_sessions_open_on_invoice ON checkout_sessions (invoice_id) WHERE pays_invoice AND status IN ('created', 'payment_pending', 'processing')`.execute(
    db,
  );
  await sql`ALTER TABLE checkout_sessions DROP COLUMN IF EXISTS origin`.execute(db);
}
