import { type Kysely, sql } from 'kysely';

// An event keeps the W3C traceparent of the span that wrote it (the request, the job), when tracing
// is on, so that its webhook deliveries are traced as part of that request's trace. Null when
// tracing is off and for events written before this migration.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE events ADD COLUMN traceparent text`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE events DROP COLUMN traceparent`.execute(db);
}
