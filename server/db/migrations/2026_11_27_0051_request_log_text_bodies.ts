import { type Kysely, sql } from 'kysely';

// The request log keeps its bodies as JSON text, not jsonb (issue 34's cost goal). No filter reads
// into a body, and jsonb made PostgreSQL parse and convert every body on insert: measured, a
// 200-row batch of checkout-session logs cost PostgreSQL 75–87 µs of CPU per row as jsonb and
// 27–30 µs as text. Bodies are parsed when a log is read (request-log.repository.ts).

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE request_logs
    ALTER COLUMN request_body TYPE text USING request_body::text,
    ALTER COLUMN response_body TYPE text USING response_body::text`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE request_logs
    ALTER COLUMN request_body TYPE jsonb USING request_body::jsonb,
    ALTER COLUMN response_body TYPE jsonb USING response_body::jsonb`.execute(db);
}
