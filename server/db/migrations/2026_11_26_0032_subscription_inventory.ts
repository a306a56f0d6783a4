import { type Kysely, sql } from 'kysely';

// Serial-numbered inventory items of the subscription catalog (Commerce
// `/v1/SubscriptionInventoryItem`). Like products and plans they belong to a merchant and are
// shared by both modes. A serial number is unique among one product's items, compared
// case-insensitively; the unique index makes that hold under concurrent creates too.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE subscription_inventory_items (
    id serial PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    product_id integer NOT NULL REFERENCES products (id),
    serial_number text NOT NULL CHECK (length(serial_number) BETWEEN 1 AND 100),
    status text NOT NULL DEFAULT 'available' CHECK (status IN ('available', 'reserved', 'rented', 'discontinued')),
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE UNIQUE INDEX subscription_inventory_items_serial ON subscription_inventory_items (product_id, lower(serial_number))`.execute(db);
  await sql`CREATE INDEX subscription_inventory_items_merchant ON subscription_inventory_items (merchant_id, id DESC)`.execute(db);
  await sql`CREATE INDEX plans_product ON plans (product_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX IF EXISTS plans_product`.execute(db);
  await sql`DROP TABLE IF EXISTS subscription_inventory_items`.execute(db);
}
