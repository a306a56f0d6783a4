import { type Kysely, sql } from 'kysely';

// Event streams (`GET /v1/events/stream`) hear every test-mode event as it commits, in every
// process: a trigger NOTIFYs `till_event_written` with the event's owner (never its content; the
// stream reads the event itself, scoped to its tenant). NOTIFY is sent at commit, never for a
// rolled-back change. Live-mode events are not announced: only test mode is streamed. The
// channel's name is `EVENT_WRITTEN_CHANNEL` in server/db/notifications.ts.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE FUNCTION till_event_notify() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('till_event_written', json_build_object('merchant_id', NEW.merchant_id, 'livemode', NEW.livemode)::text);
      RETURN NULL;
    END
  $$`.execute(db);
  await sql`CREATE TRIGGER events_written_notify AFTER INSERT ON events
    FOR EACH ROW WHEN (NOT NEW.livemode) EXECUTE FUNCTION till_event_notify()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS events_written_notify ON events`.execute(db);
  await sql`DROP FUNCTION IF EXISTS till_event_notify()`.execute(db);
}
