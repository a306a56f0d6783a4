import { type Kysely, sql } from 'kysely';

// Merchant locations (issue 35 §16). Every merchant has a primary location: one made without an
// address (by `npm run merchant`, the test-merchant operation, or before this migration) gets one
// named after it, in its country, whose street and city are unknown (null). An invoice keeps the
// location that issued it, the primary one unless the merchant named another.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE merchant_locations ALTER COLUMN address_line1 DROP NOT NULL`.execute(db);
  await sql`ALTER TABLE merchant_locations ALTER COLUMN city DROP NOT NULL`.execute(db);
  await sql`INSERT INTO merchant_locations (merchant_id, name, country, is_primary, created_at)
    SELECT m.id, left(m.name, 200), m.country, true, m.created_at FROM merchants m
    WHERE NOT EXISTS (SELECT 1 FROM merchant_locations l WHERE l.merchant_id = m.id AND l.is_primary)`.execute(db);
  await sql`ALTER TABLE invoices ADD COLUMN merchant_location_id integer REFERENCES merchant_locations (id) ON DELETE SET NULL`.execute(db);
  await sql`UPDATE invoices i SET merchant_location_id = l.id FROM merchant_locations l
    WHERE l.merchant_id = i.merchant_id AND l.is_primary`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE invoices DROP COLUMN merchant_location_id`.execute(db);
  await sql`DELETE FROM merchant_locations WHERE address_line1 IS NULL OR city IS NULL`.execute(db);
  await sql`ALTER TABLE merchant_locations ALTER COLUMN city SET NOT NULL`.execute(db);
  await sql`ALTER TABLE merchant_locations ALTER COLUMN address_line1 SET NOT NULL`.execute(db);
}
