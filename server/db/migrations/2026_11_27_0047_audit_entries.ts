import { type Kysely, sql } from 'kysely';

// The audit log (issue 34): one row per change to a merchant's roles, restricted keys, webhook
// configurations, locations or merchants, written in the transaction of the change. The actor is
// a key's display prefix (never the key) or a dashboard session; `changes` holds the changed
// fields before and after, secrets redacted. Listed newest first per tenant, by id.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE audit_entries (
    id serial PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    action text NOT NULL,
    actor_type text NOT NULL CHECK (actor_type IN ('api_key', 'dashboard')),
    actor_key_prefix text,
    actor_session text,
    target_type text NOT NULL,
    target_id text NOT NULL,
    changes jsonb NOT NULL,
    request_id text,
    created_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX audit_entries_tenant ON audit_entries (merchant_id, livemode, id DESC)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE audit_entries`.execute(db);
}
