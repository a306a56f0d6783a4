import { type Kysely, sql } from 'kysely';

// The hosted customer portal (issue #14). A portal session opens one customer's portal in one
// mode for an hour: its URL carries a secret token of which only the SHA-256 hash is kept
// (`token_hash`), like API keys. `form_token` is carried by the portal's forms, so a change must
// come from a page the portal showed (no blind cross-site POST).
//
// A card added in the portal that asks for 3-D Secure waits in `card_setups` for the customer's
// answer on the sandbox issuer's page: answered once, `succeeded` (the card is kept on file),
// `failed`, or `expired` with its portal session.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE portal_sessions (
    id text PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    customer_id integer NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
    token_hash text NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
    form_token text NOT NULL,
    return_url text,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX portal_sessions_customer ON portal_sessions (merchant_id, livemode, customer_id)`.execute(db);
  await sql`CREATE TABLE card_setups (
    id text PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    portal_session_id text NOT NULL REFERENCES portal_sessions (id) ON DELETE CASCADE,
    customer_id integer NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
    payment_method_id text NOT NULL REFERENCES payment_methods (id) ON DELETE CASCADE,
    form_token text NOT NULL,
    status text NOT NULL CHECK (status IN ('open', 'succeeded', 'failed', 'expired')),
    expires_at timestamptz NOT NULL,
    answered_at timestamptz,
    created_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX card_setups_portal_session ON card_setups (merchant_id, livemode, portal_session_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE IF EXISTS card_setups`.execute(db);
  await sql`DROP TABLE IF EXISTS portal_sessions`.execute(db);
}
