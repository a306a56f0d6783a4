import { type Kysely, sql } from 'kysely';

// 3-D Secure challenges of the sandbox processor: one per card payment that waits for the payer
// to authenticate (the payment's status is `requires_action`). The challenge id is the
// credential of the page that answers it, so it is long and random; the form token ties a
// completion to the page that was shown. A challenge is answered once.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE three_ds_challenges (
    id text PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    session_id text NOT NULL REFERENCES checkout_sessions (id) ON DELETE CASCADE,
    payment_id integer NOT NULL REFERENCES payments (id),
    form_token text NOT NULL,
    return_url text,
    status text NOT NULL CHECK (status IN ('open', 'succeeded', 'failed', 'replaced', 'expired')),
    expires_at timestamptz NOT NULL,
    answered_at timestamptz,
    created_at timestamptz NOT NULL
  )`.execute(db);
  // At most one open challenge per session (a second confirm replaces it).
  await sql`CREATE UNIQUE INDEX three_ds_challenges_one_open ON three_ds_challenges (session_id) WHERE status = 'open'`.execute(db);
  await sql`CREATE INDEX three_ds_challenges_merchant ON three_ds_challenges (merchant_id, livemode, session_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE IF EXISTS three_ds_challenges`.execute(db);
}
