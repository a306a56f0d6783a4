import { type Kysely, sql } from 'kysely';

// The dashboard's payment searches and a payment's neighbours (issue 33: each page ≤ 200 ms of
// server time with 10,000 payments of one merchant). Searching by the card holder's email read
// every payment of the tenant and its card; now the cards of that email are found by index and
// their payments by `payment_method_id`. A payment's checkout session and an invoice's payments
// are found by index too (the unique index on `session_id` covers only payments that did not fail).

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE INDEX payment_methods_billing_email ON payment_methods (merchant_id, livemode, lower(billing_email)) WHERE billing_email IS NOT NULL`.execute(
    db,
  );
  await sql`CREATE INDEX payments_payment_method ON payments (payment_method_id) WHERE payment_method_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX payments_session ON payments (session_id) WHERE session_id IS NOT NULL`.execute(db);
  await sql`CREATE INDEX payments_invoice ON payments (invoice_id) WHERE invoice_id IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of ['payments_invoice', 'payments_session', 'payments_payment_method', 'payment_methods_billing_email'])
    await sql`DROP INDEX IF EXISTS ${sql.id(index)}`.execute(db);
}
