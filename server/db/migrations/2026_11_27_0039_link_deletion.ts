import { type Kysely, sql } from 'kysely';

// Deleting a payment link deletes it permanently (issue 35 §8), paid or not. Its invoices keep
// what they need of it: the record of an invoice made through a link keeps the link's name and
// code, and its `link_id` becomes null when the link goes (no longer a cascade that dropped the
// record). Pending webhook deliveries to the link's notification URL go with the link: a delivery
// has exactly one target (webhook_deliveries_one_target), and the link's secret that signs them is gone.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE payment_link_invoices ADD COLUMN link_name text, ADD COLUMN link_code text`.execute(db);
  await sql`UPDATE payment_link_invoices li SET link_name = l.name, link_code = l.code FROM payment_links l WHERE l.id = li.link_id`.execute(db);
  await sql`ALTER TABLE payment_link_invoices ALTER COLUMN link_name SET NOT NULL, ALTER COLUMN link_code SET NOT NULL`.execute(db);
  await sql`ALTER TABLE payment_link_invoices ALTER COLUMN link_id DROP NOT NULL`.execute(db);
  await sql`ALTER TABLE payment_link_invoices DROP CONSTRAINT payment_link_invoices_link_id_fkey`.execute(db);
  await sql`ALTER TABLE payment_link_invoices ADD CONSTRAINT payment_link_invoices_link_id_fkey FOREIGN KEY (link_id) REFERENCES payment_links (id) ON DELETE SET NULL`.execute(
    db,
  );
  await sql`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_payment_link_id_fkey`.execute(db);
  await sql`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_payment_link_id_fkey FOREIGN KEY (payment_link_id) REFERENCES payment_links (id) ON DELETE CASCADE`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_payment_link_id_fkey`.execute(db);
  await sql`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_payment_link_id_fkey FOREIGN KEY (payment_link_id) REFERENCES payment_links (id) ON DELETE SET NULL`.execute(
    db,
  );
  await sql`DELETE FROM payment_link_invoices WHERE link_id IS NULL`.execute(db);
  await sql`ALTER TABLE payment_link_invoices DROP CONSTRAINT payment_link_invoices_link_id_fkey`.execute(db);
  await sql`ALTER TABLE payment_link_invoices ADD CONSTRAINT payment_link_invoices_link_id_fkey FOREIGN KEY (link_id) REFERENCES payment_links (id) ON DELETE CASCADE`.execute(
    db,
  );
  await sql`ALTER TABLE payment_link_invoices ALTER COLUMN link_id SET NOT NULL`.execute(db);
  await sql`ALTER TABLE payment_link_invoices DROP COLUMN link_name, DROP COLUMN link_code`.execute(db);
}
