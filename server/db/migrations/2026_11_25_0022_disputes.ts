import { type Kysely, sql } from 'kysely';

// Disputes (chargebacks) on card payments, one per payment at most, and the ledger's dispute fee:
// a closed-and-lost dispute posts `dispute` (the disputed amount back to the cardholder) and
// `dispute_fee` entries.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE disputes (
    id text PRIMARY KEY,
    seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    payment_id integer NOT NULL REFERENCES payments (id),
    invoice_id integer REFERENCES invoices (id),
    amount numeric(20, 4) NOT NULL CHECK (amount > 0),
    currency char(3) NOT NULL,
    fee numeric(20, 4) NOT NULL DEFAULT 0,
    status text NOT NULL CHECK (status IN ('open', 'under_review', 'won', 'lost', 'accepted')),
    previous_status text CHECK (previous_status IN ('open', 'under_review', 'won', 'lost', 'accepted')),
    reason text NOT NULL,
    evidence_due_at timestamptz,
    invoice_reopened boolean,
    closed_at timestamptz,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`.execute(db);
  // A payment is disputed once: the last line against two opens at the same moment.
  // A payment under an open dispute cannot be refunded; what a lost dispute charged back cannot be refunded again.
  await sql`ALTER TABLE payments ADD COLUMN dispute_status text, ADD COLUMN charged_back_amount numeric(20, 4) NOT NULL DEFAULT 0`.execute(db);
  await sql`CREATE UNIQUE INDEX disputes_one_per_payment ON disputes (payment_id)`.execute(db);
  await sql`CREATE INDEX disputes_merchant ON disputes (merchant_id, livemode, seq DESC)`.execute(db);
  await sql`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_type_check`.execute(db);
  await sql`ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_type_check CHECK (type IN ('authorization', 'capture', 'release', 'payment', 'fee', 'refund', 'settlement', 'transfer', 'payout', 'dispute', 'dispute_fee'))`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DELETE FROM ledger_entries WHERE type = 'dispute_fee'`.execute(db);
  await sql`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_type_check`.execute(db);
  await sql`ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_type_check CHECK (type IN ('authorization', 'capture', 'release', 'payment', 'fee', 'refund', 'settlement', 'transfer', 'payout', 'dispute'))`.execute(
    db,
  );
  await sql`DROP TABLE IF EXISTS disputes`.execute(db);
  await sql`ALTER TABLE payments DROP COLUMN dispute_status, DROP COLUMN charged_back_amount`.execute(db);
}
