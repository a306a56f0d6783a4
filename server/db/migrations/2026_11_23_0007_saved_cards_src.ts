import { type Kysely, sql } from 'kysely';

// Saved cards with OTP, click to pay (SRC), and the message outbox.
// - messages: every email or text message Till sends (test mode records instead of sending).
// - card_verifications: one OTP per row, only a hash of the code; single use, 10 minutes.
// - saved_card_otp_state: wrong codes per saved card, and the 30-minute lock after 5.
// - src_tokens: the click-to-pay token behind a payment method of a session, and its expiry.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE messages (
    seq bigserial PRIMARY KEY,
    id text NOT NULL UNIQUE,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    channel text NOT NULL CHECK (channel IN ('email', 'sms')),
    kind text NOT NULL CHECK (kind IN ('otp', 'receipt', 'invoice', 'checkout_notification', 'portal', 'other')),
    recipient text NOT NULL,
    subject text,
    body text NOT NULL,
    session_id text,
    created_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX messages_by_merchant ON messages (merchant_id, livemode, seq DESC)`.execute(db);

  await sql`CREATE TABLE card_verifications (
    id text PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    session_id text NOT NULL REFERENCES checkout_sessions (id) ON DELETE CASCADE,
    payment_method_id text NOT NULL REFERENCES payment_methods (id) ON DELETE CASCADE,
    code_hash text NOT NULL,
    status text NOT NULL CHECK (status IN ('otp_sent', 'verified', 'used', 'superseded', 'locked')),
    expires_at timestamptz NOT NULL,
    verified_at timestamptz,
    used_at timestamptz,
    created_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX card_verifications_by_session ON card_verifications (session_id, payment_method_id)`.execute(db);

  await sql`CREATE TABLE saved_card_otp_state (
    payment_method_id text PRIMARY KEY REFERENCES payment_methods (id) ON DELETE CASCADE,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    failed_attempts integer NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
    locked_until timestamptz,
    updated_at timestamptz NOT NULL
  )`.execute(db);

  await sql`CREATE TABLE src_tokens (
    payment_method_id text PRIMARY KEY REFERENCES payment_methods (id) ON DELETE CASCADE,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    src_card_id text NOT NULL,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL
  )`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['src_tokens', 'saved_card_otp_state', 'card_verifications', 'messages']) await sql`DROP TABLE IF EXISTS ${sql.id(table)}`.execute(db);
}
