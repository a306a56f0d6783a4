import { type Kysely, sql } from 'kysely';

// Delivery of the outbox (issue #13). Test mode records a message and never sends it
// (`recorded`). Live mode queues it (`queued`); a background job sends email over SMTP when the
// server has one (`sent`, or `failed` after its retries), and marks what it has no way to send
// `not_sent` (no SMTP server configured; text messages, which have no provider). A queued message
// announces itself on `till_message_queued` when its transaction commits, so delivery starts at
// once rather than at the next sweep.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE messages
    ADD COLUMN status text NOT NULL DEFAULT 'recorded' CHECK (status IN ('recorded', 'queued', 'sent', 'not_sent', 'failed')),
    ADD COLUMN attempts integer NOT NULL DEFAULT 0,
    ADD COLUMN next_attempt_at timestamptz,
    ADD COLUMN sent_at timestamptz,
    ADD COLUMN last_error text`.execute(db);
  // Live messages written before delivery existed were never sent.
  await sql`UPDATE messages SET status = 'not_sent' WHERE livemode`.execute(db);
  await sql`CREATE INDEX messages_due ON messages (next_attempt_at) WHERE status = 'queued'`.execute(db);
  await sql`CREATE FUNCTION till_message_queued() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('till_message_queued', NEW.id);
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER messages_queued AFTER INSERT ON messages FOR EACH ROW WHEN (NEW.status = 'queued') EXECUTE FUNCTION till_message_queued()`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER messages_queued ON messages`.execute(db);
  await sql`DROP FUNCTION till_message_queued()`.execute(db);
  await sql`DROP INDEX messages_due`.execute(db);
  await sql`ALTER TABLE messages DROP COLUMN status, DROP COLUMN attempts, DROP COLUMN next_attempt_at, DROP COLUMN sent_at, DROP COLUMN last_error`.execute(
    db,
  );
}
