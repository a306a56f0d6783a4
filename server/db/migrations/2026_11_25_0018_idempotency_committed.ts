import { type Kysely, sql } from 'kysely';

// Idempotency keys learn `committed` (issue 18, commit or nothing): the transaction of the first
// request marks its key as it commits, so a retry can tell "ran and committed, answer not yet
// stored" from "never got that far" and never runs a committed request twice.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_state_check`.execute(db);
  await sql`ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_state_check CHECK (state IN ('in_flight', 'committed', 'done'))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DELETE FROM idempotency_keys WHERE state = 'committed'`.execute(db);
  await sql`ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_state_check`.execute(db);
  await sql`ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_state_check CHECK (state IN ('in_flight', 'done'))`.execute(db);
}
