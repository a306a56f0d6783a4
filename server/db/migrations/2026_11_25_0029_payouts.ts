import { type Kysely, sql } from 'kysely';

// Payouts: the merchant's settled (available) money paid out to its bank in batches on the clock.
// A batch (one per tenant, currency and UTC day for the schedule) holds entries, each one payout
// (`po_…`, the id of `payout.*` events). The ledger gains the accounts `in_transit` (sent, not
// arrived) and `paid_out` (arrived at the merchant's bank), and the posting type `payout_return`
// (a failed payout's money back to the available balance); its entries may name their payout.
//
// The ledger's CHECK constraints are extended from what they hold now rather than restated, so a
// migration of another part that extends them too keeps its values whichever runs first.

const PAYOUT_TYPES = ['payout', 'payout_return'];
const PAYOUT_ACCOUNTS = ['in_transit', 'paid_out'];

/** The values of a `col = ANY (ARRAY[...])` / `col IN (...)` check constraint. */
async function checkValues(db: Kysely<any>, name: string): Promise<string[]> {
  const { rows } = await sql<{ def: string }>`SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = ${name}`.execute(db);
  return [...(rows[0]?.def ?? '').matchAll(/'([^']+)'/g)].map((m) => m[1]!);
}

async function setCheck(db: Kysely<any>, name: string, column: string, values: string[]): Promise<void> {
  await sql`ALTER TABLE ledger_entries DROP CONSTRAINT IF EXISTS ${sql.id(name)}`.execute(db);
  const list = sql.join(values.map((v) => sql.lit(v)));
  await sql`ALTER TABLE ledger_entries ADD CONSTRAINT ${sql.id(name)} CHECK (${sql.id(column)} IN (${list}))`.execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE payout_batches (
    id bigserial PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    currency text NOT NULL,
    batch_type text NOT NULL CHECK (batch_type IN ('single', 'bulk', 'scheduled')),
    status text NOT NULL CHECK (status IN ('pending', 'processing', 'completed', 'partially_completed', 'failed', 'cancelled')),
    payout_date date,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    completed_at timestamptz
  )`.execute(db);
  // At most one scheduled batch per tenant, currency and day, whichever process makes it.
  await sql`CREATE UNIQUE INDEX payout_batches_schedule ON payout_batches (merchant_id, livemode, currency, payout_date) WHERE batch_type = 'scheduled'`.execute(
    db,
  );
  await sql`CREATE INDEX payout_batches_dashboard ON payout_batches (merchant_id, livemode, currency, created_at)`.execute(db);
  await sql`CREATE TABLE payout_entries (
    id text PRIMARY KEY,
    batch_id bigint NOT NULL REFERENCES payout_batches (id) ON DELETE CASCADE,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    currency text NOT NULL,
    amount numeric(20, 4) NOT NULL CHECK (amount > 0),
    fee numeric(20, 4) NOT NULL DEFAULT 0 CHECK (fee >= 0),
    transfer_type text NOT NULL,
    destination_type text NOT NULL CHECK (destination_type IN ('bank_account', 'wallet')),
    destination_last4 text,
    status text NOT NULL CHECK (status IN ('pending', 'processing', 'completed', 'failed')),
    fail_on_arrival boolean NOT NULL DEFAULT false,
    failure_reason text,
    arrival_at timestamptz NOT NULL,
    completed_at timestamptz,
    failed_at timestamptz,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX payout_entries_batch ON payout_entries (batch_id)`.execute(db);
  await sql`CREATE INDEX payout_entries_arrival ON payout_entries (arrival_at) WHERE status = 'processing'`.execute(db);
  // The test helper's "fail the next payout": one armed failure per merchant (test mode only).
  await sql`CREATE TABLE payout_test_failures (
    merchant_id integer PRIMARY KEY REFERENCES merchants (id) ON DELETE CASCADE,
    failure_reason text NOT NULL,
    created_at timestamptz NOT NULL
  )`.execute(db);
  await sql`ALTER TABLE ledger_entries ADD COLUMN payout_id text`.execute(db);
  await sql`CREATE INDEX ledger_entries_payout ON ledger_entries (payout_id) WHERE payout_id IS NOT NULL`.execute(db);
  const types = await checkValues(db, 'ledger_entries_type_check');
  await setCheck(db, 'ledger_entries_type_check', 'type', [...new Set([...types, ...PAYOUT_TYPES])]);
  const accounts = await checkValues(db, 'ledger_entries_account_check');
  await setCheck(db, 'ledger_entries_account_check', 'account', [...new Set([...accounts, ...PAYOUT_ACCOUNTS])]);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DELETE FROM ledger_entries WHERE payout_id IS NOT NULL OR type = 'payout_return' OR account IN ('in_transit', 'paid_out')`.execute(db);
  const types = await checkValues(db, 'ledger_entries_type_check');
  await setCheck(
    db,
    'ledger_entries_type_check',
    'type',
    types.filter((t) => t !== 'payout_return'),
  );
  const accounts = await checkValues(db, 'ledger_entries_account_check');
  await setCheck(
    db,
    'ledger_entries_account_check',
    'account',
    accounts.filter((a) => !PAYOUT_ACCOUNTS.includes(a)),
  );
  await sql`DROP INDEX IF EXISTS ledger_entries_payout`.execute(db);
  await sql`ALTER TABLE ledger_entries DROP COLUMN IF EXISTS payout_id`.execute(db);
  await sql`DROP TABLE IF EXISTS payout_test_failures`.execute(db);
  await sql`DROP TABLE IF EXISTS payout_entries`.execute(db);
  await sql`DROP TABLE IF EXISTS payout_batches`.execute(db);
}
