import { type Kysely, sql } from 'kysely';

// Funds of the Commerce interface (issue 15 §4): wallet accounts (one per merchant, mode and
// currency; their money is the ledger's `pending` and `available` balances), transfers out of
// them, and funding sources (cards registered by the merchant, verified by a code). The ledger
// gains the `transfers` account (money that left to, or came from, another account or a bank),
// the entry types `transfer_fee` and `account_payment` (a wallet account paying an invoice), and
// `transfer_id` (the transfer an entry books).

const TYPES_BEFORE = `'authorization', 'capture', 'release', 'payment', 'fee', 'refund', 'settlement', 'transfer', 'payout', 'dispute', 'dispute_fee'`;
const ACCOUNTS_BEFORE = `'pending', 'available', 'authorized', 'payer', 'fees'`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE wallet_accounts (
    id serial PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    currency char(3) NOT NULL,
    account_number text NOT NULL UNIQUE,
    name text NOT NULL,
    description text,
    status text NOT NULL DEFAULT 'Active' CHECK (status IN ('Active', 'Inactive', 'Frozen', 'Closed')),
    created_at timestamptz NOT NULL,
    UNIQUE (merchant_id, livemode, currency)
  )`.execute(db);
  await sql`CREATE TABLE transfers (
    id serial PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    reference_number text NOT NULL UNIQUE,
    transfer_action text NOT NULL,
    source_account_id integer NOT NULL REFERENCES wallet_accounts (id),
    destination_account_number text NOT NULL,
    destination_account_id integer REFERENCES wallet_accounts (id),
    amount numeric(20, 4) NOT NULL CHECK (amount > 0),
    fee numeric(20, 4) NOT NULL CHECK (fee >= 0),
    sender_fee numeric(20, 4) NOT NULL CHECK (sender_fee >= 0),
    receiver_fee numeric(20, 4) NOT NULL CHECK (receiver_fee >= 0),
    fee_payer text NOT NULL CHECK (fee_payer IN ('Sender', 'Receiver', 'Both')),
    currency char(3) NOT NULL,
    status text NOT NULL CHECK (status IN ('Pending', 'Processing', 'Completed', 'Failed', 'Cancelled')),
    description text,
    created_at timestamptz NOT NULL,
    CHECK (sender_fee + receiver_fee = fee)
  )`.execute(db);
  await sql`CREATE INDEX transfers_tenant ON transfers (merchant_id, livemode, id DESC)`.execute(db);
  await sql`CREATE INDEX transfers_tenant_action ON transfers (merchant_id, livemode, transfer_action, id DESC)`.execute(db);
  await sql`CREATE INDEX transfers_tenant_period ON transfers (merchant_id, livemode, currency, created_at)`.execute(db);
  await sql`CREATE TABLE funding_sources (
    id serial PRIMARY KEY,
    merchant_id integer NOT NULL REFERENCES merchants (id) ON DELETE CASCADE,
    livemode boolean NOT NULL,
    payment_method_id text NOT NULL REFERENCES payment_methods (id),
    name text NOT NULL,
    description text,
    payment_option_id integer NOT NULL,
    status text NOT NULL CHECK (status IN ('Active', 'PendingVerification', 'Inactive', 'Expired', 'Blocked')),
    is_verified boolean NOT NULL,
    verification_code_hash text,
    verification_expires_at timestamptz,
    failed_attempts integer NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX funding_sources_tenant ON funding_sources (merchant_id, livemode, id DESC)`.execute(db);
  await sql`ALTER TABLE ledger_entries ADD COLUMN transfer_id integer REFERENCES transfers (id)`.execute(db);
  await sql`CREATE INDEX ledger_entries_tenant_money ON ledger_entries (merchant_id, livemode, currency, id) WHERE account IN ('pending', 'available')`.execute(
    db,
  );
  await sql`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_account_check`.execute(db);
  await sql.raw(`ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_account_check CHECK (account IN (${ACCOUNTS_BEFORE}, 'transfers'))`).execute(db);
  await sql`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_type_check`.execute(db);
  await sql
    .raw(`ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_type_check CHECK (type IN (${TYPES_BEFORE}, 'transfer_fee', 'account_payment'))`)
    .execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DELETE FROM ledger_entries WHERE account = 'transfers' OR type IN ('transfer_fee', 'account_payment') OR transfer_id IS NOT NULL`.execute(db);
  await sql`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_type_check`.execute(db);
  await sql.raw(`ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_type_check CHECK (type IN (${TYPES_BEFORE}))`).execute(db);
  await sql`ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_account_check`.execute(db);
  await sql.raw(`ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_account_check CHECK (account IN (${ACCOUNTS_BEFORE}))`).execute(db);
  await sql`DROP INDEX IF EXISTS ledger_entries_tenant_money`.execute(db);
  await sql`ALTER TABLE ledger_entries DROP COLUMN IF EXISTS transfer_id`.execute(db);
  await sql`DROP TABLE IF EXISTS funding_sources`.execute(db);
  await sql`DROP TABLE IF EXISTS transfers`.execute(db);
  await sql`DROP TABLE IF EXISTS wallet_accounts`.execute(db);
}
