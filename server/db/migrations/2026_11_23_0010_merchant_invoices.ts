import { type Kysely, sql } from 'kysely';

// Invoices a merchant creates (`POST /v1/invoices`) and checkout sessions that pay them (creation
// rule 6 of the Checkout document): the invoice's customer, notes, tax rate, due date, voiding and
// metadata; and on a session, whether it pays an existing invoice (as opposed to raising its own)
// and its client secret, so that a repeat create while the session is open returns that session.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE invoices ADD COLUMN customer_id integer`.execute(db);
  await sql`ALTER TABLE invoices ADD COLUMN notes text`.execute(db);
  await sql`ALTER TABLE invoices ADD COLUMN tax_rate numeric(7, 4)`.execute(db);
  await sql`ALTER TABLE invoices ADD COLUMN due_date timestamptz`.execute(db);
  await sql`ALTER TABLE invoices ADD COLUMN sent_at timestamptz`.execute(db);
  await sql`ALTER TABLE invoices ADD COLUMN voided_at timestamptz`.execute(db);
  await sql`ALTER TABLE invoices ADD COLUMN payment_option_group_id integer`.execute(db);
  await sql`ALTER TABLE invoices ADD COLUMN metadata jsonb NOT NULL DEFAULT '{}'`.execute(db);
  await sql`CREATE SEQUENCE invoice_line_ids`.execute(db);
  await sql`ALTER TABLE checkout_sessions ADD COLUMN pays_invoice boolean NOT NULL DEFAULT false`.execute(db);
  await sql`ALTER TABLE checkout_sessions ADD COLUMN client_secret text`.execute(db);
  // One open session per invoice being paid: the last line against two creates racing.
  await sql`CREATE UNIQUE INDEX checkout_sessions_open_on_invoice ON checkout_sessions (invoice_id) WHERE pays_invoice AND status IN ('created', 'payment_pending', 'processing')`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX IF EXISTS checkout_sessions_open_on_invoice`.execute(db);
  for (const column of ['client_secret', 'pays_invoice']) await sql`ALTER TABLE checkout_sessions DROP COLUMN IF EXISTS ${sql.id(column)}`.execute(db);
  await sql`DROP SEQUENCE IF EXISTS invoice_line_ids`.execute(db);
  for (const column of ['metadata', 'payment_option_group_id', 'voided_at', 'sent_at', 'due_date', 'tax_rate', 'notes', 'customer_id']) {
    await sql`ALTER TABLE invoices DROP COLUMN IF EXISTS ${sql.id(column)}`.execute(db);
  }
}
