import { type Kysely, sql } from 'kysely';

// The ledger becomes double-entry: every posting (one money movement) is a set of entries that
// sum to zero, grouped by `posting_id`. Besides the merchant's `pending` and `available` balances
// there are `authorized` (card holds), `payer` (the outside world money comes from and refunds go
// back to) and `fees`. Existing single-sided rows get their counter entries, so old postings
// balance too.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE ledger_entries ADD COLUMN posting_id uuid`.execute(db);
  // Each old row was a posting of its own, except settlements, whose two rows were written together.
  await sql`UPDATE ledger_entries SET posting_id = gen_random_uuid() WHERE type <> 'settlement'`.execute(db);
  await sql`UPDATE ledger_entries e SET posting_id = pairs.posting_id
    FROM (SELECT payment_id, created_at, gen_random_uuid() AS posting_id FROM ledger_entries WHERE type = 'settlement' GROUP BY payment_id, created_at) pairs
    WHERE e.type = 'settlement' AND e.payment_id = pairs.payment_id AND e.created_at = pairs.created_at`.execute(db);
  await sql`ALTER TABLE ledger_entries ALTER COLUMN posting_id SET NOT NULL`.execute(db);
  await sql`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_account_check`.execute(db);
  await sql`ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_account_check CHECK (account IN ('pending', 'available', 'authorized', 'payer', 'fees'))`.execute(
    db,
  );
  await sql`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_type_check`.execute(db);
  await sql`ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_type_check CHECK (type IN ('authorization', 'capture', 'release', 'payment', 'fee', 'refund', 'settlement', 'transfer', 'payout', 'dispute'))`.execute(
    db,
  );
  await sql`INSERT INTO ledger_entries (posting_id, merchant_id, livemode, payment_id, type, account, amount, currency, created_at)
    SELECT posting_id, merchant_id, livemode, payment_id, type, CASE WHEN type = 'fee' THEN 'fees' ELSE 'payer' END, -amount, currency, created_at
    FROM ledger_entries WHERE type IN ('payment', 'fee', 'refund')`.execute(db);
  await sql`CREATE INDEX ledger_entries_posting ON ledger_entries (posting_id)`.execute(db);
  await sql`CREATE INDEX ledger_entries_payment ON ledger_entries (payment_id, account) WHERE payment_id IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX IF EXISTS ledger_entries_payment`.execute(db);
  await sql`DROP INDEX IF EXISTS ledger_entries_posting`.execute(db);
  await sql`DELETE FROM ledger_entries WHERE account NOT IN ('pending', 'available')`.execute(db);
  await sql`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_type_check`.execute(db);
  await sql`ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_type_check CHECK (type IN ('payment', 'fee', 'refund', 'settlement', 'transfer', 'payout'))`.execute(
    db,
  );
  await sql`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_account_check`.execute(db);
  await sql`ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_account_check CHECK (account IN ('pending', 'available'))`.execute(db);
  await sql`ALTER TABLE ledger_entries DROP COLUMN posting_id`.execute(db);
}
