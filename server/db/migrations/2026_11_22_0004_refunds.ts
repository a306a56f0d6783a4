import { type Kysely, sql } from 'kysely';

// Refunds, and the two balances of a merchant: money is `pending` until its payment settles,
// then `available`. A refund of a settled payment is taken from the available balance.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE ledger_entries ADD COLUMN account text NOT NULL DEFAULT 'pending' CHECK (account IN ('pending', 'available'))`.execute(db);
  await sql`ALTER TABLE payments ADD COLUMN refund_last_outcome text`.execute(db);
  await sql`ALTER TABLE payments ADD COLUMN refund_last_attempt_at timestamptz`.execute(db);
  await sql`ALTER TABLE payments ADD COLUMN refund_attempts integer NOT NULL DEFAULT 0`.execute(db);
  await sql`CREATE TABLE refunds (
    id serial PRIMARY KEY,
    payment_id integer NOT NULL REFERENCES payments (id),
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    amount numeric(20, 4) NOT NULL CHECK (amount > 0),
    currency char(3) NOT NULL,
    status text NOT NULL CHECK (status IN ('succeeded', 'pending')),
    from_balance boolean NOT NULL,
    reason text,
    created_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX refunds_payment ON refunds (payment_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE IF EXISTS refunds`.execute(db);
  for (const column of ['refund_attempts', 'refund_last_attempt_at', 'refund_last_outcome'])
    await sql`ALTER TABLE payments DROP COLUMN IF EXISTS ${sql.id(column)}`.execute(db);
  await sql`ALTER TABLE ledger_entries DROP COLUMN IF EXISTS account`.execute(db);
}
