import { type Kysely, sql } from 'kysely';

// The sandbox clock (issue #5, rule 7): how far each merchant has advanced its test-mode clock.
// A merchant's test-mode time is the base clock plus `offset_seconds`; live mode never moves.
// `advancing_until` holds the one advance that may run at a time (it lapses if the process dies).

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE sandbox_clocks (
    merchant_id integer PRIMARY KEY REFERENCES merchants (id) ON DELETE CASCADE,
    offset_seconds bigint NOT NULL DEFAULT 0 CHECK (offset_seconds >= 0),
    advancing_until timestamptz,
    updated_at timestamptz NOT NULL
  )`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE sandbox_clocks`.execute(db);
}
