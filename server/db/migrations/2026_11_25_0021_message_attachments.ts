import { type Kysely, sql } from 'kysely';

// Files an email of the outbox carries (issue #14: an invoice sent to its payer carries its PDF).
// Kept beside the message, written in the same transaction, so the email is sent as it was when
// the change that sent it committed; delivery attaches them in `position` order.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE message_attachments (
    message_id text NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    position integer NOT NULL,
    filename text NOT NULL,
    content_type text NOT NULL,
    content bytea NOT NULL,
    PRIMARY KEY (message_id, position)
  )`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE message_attachments`.execute(db);
}
