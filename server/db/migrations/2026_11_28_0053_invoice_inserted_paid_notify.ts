import { type Kysely, sql } from 'kysely';

// A checkout session's own invoice is now inserted already paid (one statement instead of an
// insert and an update), so the hub would no longer hear it become paid: an invoice inserted paid
// NOTIFYs `till_invoice_updated` as its update from pending to paid did (migration 0015).

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TRIGGER invoices_inserted_paid_notify AFTER INSERT ON invoices
    FOR EACH ROW WHEN (NEW.status = 'paid') EXECUTE FUNCTION till_invoice_notify()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS invoices_inserted_paid_notify ON invoices`.execute(db);
}
