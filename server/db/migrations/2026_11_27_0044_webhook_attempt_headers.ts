import { type Kysely, sql } from 'kysely';

// The delivery log keeps the headers of each attempt's request (the signature and the informational
// headers), so a merchant can see what Till sent without a receiver of their own. Attempts made before
// this migration have none (null).

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE webhook_delivery_attempts ADD COLUMN request_headers jsonb`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE webhook_delivery_attempts DROP COLUMN request_headers`.execute(db);
}
