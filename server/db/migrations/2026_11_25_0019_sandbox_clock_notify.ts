import { type Kysely, sql } from 'kysely';

// A changed test-clock offset is announced on `till_sandbox_clock` (payload: the merchant id) when
// its transaction commits, so every process forgets the offset it remembered (issue 17: requests
// no longer read the offset from the database each time).

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE FUNCTION till_sandbox_clock_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('till_sandbox_clock', COALESCE(NEW.merchant_id, OLD.merchant_id)::text);
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER sandbox_clock_changed AFTER UPDATE OF offset_seconds ON sandbox_clocks FOR EACH ROW
    WHEN (OLD.offset_seconds IS DISTINCT FROM NEW.offset_seconds) EXECUTE FUNCTION till_sandbox_clock_changed()`.execute(db);
  await sql`CREATE TRIGGER sandbox_clock_removed AFTER DELETE ON sandbox_clocks FOR EACH ROW EXECUTE FUNCTION till_sandbox_clock_changed()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TRIGGER sandbox_clock_removed ON sandbox_clocks`.execute(db);
  await sql`DROP TRIGGER sandbox_clock_changed ON sandbox_clocks`.execute(db);
  await sql`DROP FUNCTION till_sandbox_clock_changed()`.execute(db);
}
