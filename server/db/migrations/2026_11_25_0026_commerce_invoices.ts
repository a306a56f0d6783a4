import { type Kysely, sql } from 'kysely';

// The Commerce view of invoices (issue 15): the same `invoices` rows gain what the Commerce
// interface's invoice carries beyond the Checkout one, and the indexes its OData list reads.
// - `shipping_cost`: shipping on the whole invoice (items keep theirs in `line_items`).
// - `valid_from` / `valid_to`: the invoice cannot be paid before, and expires (`expired`) after.
// - `success_url` / `cancel_url`: where the payment page sends the payer.
// - `payer_address`: the rest of the payer's details (`addressLine1` … `country`), as JSON.
// - `total_due`: what is still owed, kept by PostgreSQL, so `$filter=totalDue gt 100` reads a column.
// Indexes: the tenant with `status`, `total`, `created_at` and `due_date` (each ending with the
// key, which the list's ordering always ends with), and the expiry sweep's.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE invoices
    ADD COLUMN shipping_cost numeric(20, 4) NOT NULL DEFAULT 0,
    ADD COLUMN valid_from timestamptz,
    ADD COLUMN valid_to timestamptz,
    ADD COLUMN success_url text,
    ADD COLUMN cancel_url text,
    ADD COLUMN payer_address jsonb,
    ADD COLUMN total_due numeric(20, 4) GENERATED ALWAYS AS (greatest(total - amount_paid, 0)) STORED`.execute(db);
  await sql`CREATE INDEX invoices_tenant_status ON invoices (merchant_id, livemode, status, id DESC)`.execute(db);
  await sql`CREATE INDEX invoices_tenant_total ON invoices (merchant_id, livemode, total, id DESC)`.execute(db);
  await sql`CREATE INDEX invoices_tenant_created ON invoices (merchant_id, livemode, created_at, id DESC)`.execute(db);
  await sql`CREATE INDEX invoices_tenant_due ON invoices (merchant_id, livemode, due_date, id DESC)`.execute(db);
  await sql`CREATE INDEX invoices_valid_to ON invoices (valid_to) WHERE status IN ('draft', 'pending', 'sent', 'partially_paid', 'overdue') AND valid_to IS NOT NULL`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of ['invoices_valid_to', 'invoices_tenant_due', 'invoices_tenant_created', 'invoices_tenant_total', 'invoices_tenant_status']) {
    await sql`DROP INDEX IF EXISTS ${sql.id(index)}`.execute(db);
  }
  await sql`ALTER TABLE invoices DROP COLUMN shipping_cost, DROP COLUMN valid_from, DROP COLUMN valid_to, DROP COLUMN success_url, DROP COLUMN cancel_url, DROP COLUMN payer_address, DROP COLUMN total_due`.execute(
    db,
  );
}
