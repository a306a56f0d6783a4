import { type Kysely, sql } from 'kysely';

// What a Commerce payment keeps of how it was asked for: the merchant's payment option it was paid
// with (any card option takes every brand, so the brand no longer tells the option), the brand of
// the card as the processor read it (also when the card failed its check and no card was stored),
// and whether it waits for the payer to choose a way of paying on the hosted invoice page.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE payments ADD COLUMN payment_option_id integer`.execute(db);
  await sql`ALTER TABLE payments ADD COLUMN card_brand text`.execute(db);
  await sql`ALTER TABLE payments ADD COLUMN awaits_hosted_page boolean NOT NULL DEFAULT false`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE payments DROP COLUMN awaits_hosted_page`.execute(db);
  await sql`ALTER TABLE payments DROP COLUMN card_brand`.execute(db);
  await sql`ALTER TABLE payments DROP COLUMN payment_option_id`.execute(db);
}
