import { type Kysely, sql } from 'kysely';

// The notification hub hears every change of an invoice's status, through any code path: a
// trigger NOTIFYs `till_invoice_updated` with the invoice's id, owner, public identifier and new
// status. NOTIFY is transactional (sent at commit, never for a rolled-back change) and reaches
// every process that LISTENs, so a change made in one Till process reaches clients connected to
// another. The channel's name is `INVOICE_UPDATED_CHANNEL` in server/db/notifications.ts.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE FUNCTION till_invoice_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('till_invoice_updated', json_build_object(
        'id', NEW.id, 'merchant_id', NEW.merchant_id, 'livemode', NEW.livemode,
        'identifier', NEW.identifier, 'status', NEW.status)::text);
      RETURN NULL;
    END
  $$`.execute(db);
  await sql`CREATE TRIGGER invoices_status_notify AFTER UPDATE OF status ON invoices
    FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION till_invoice_notify()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS invoices_status_notify ON invoices`.execute(db);
  await sql`DROP FUNCTION IF EXISTS till_invoice_notify()`.execute(db);
}
