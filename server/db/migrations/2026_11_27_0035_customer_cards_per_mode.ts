import { type Kysely, sql } from 'kysely';

// A customer is shared by test and live mode, its cards on file are not: `hasPaymentMethod` is
// answered in the caller's mode from payment_methods (payments' cards-on-file, on the index
// payment_methods_on_file). The one flag for both modes let a test card answer true to a live key.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE customers DROP COLUMN has_payment_method`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE customers ADD COLUMN has_payment_method boolean NOT NULL DEFAULT false`.execute(db);
  await sql`UPDATE customers SET has_payment_method = true WHERE id IN (SELECT customer_id FROM payment_methods WHERE saved_at IS NOT NULL)`.execute(db);
}
