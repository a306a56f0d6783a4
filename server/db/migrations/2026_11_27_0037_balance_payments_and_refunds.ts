import { type Kysely, sql } from 'kysely';

// Account-balance payments and refunds (issue 35 §5, §6): a payment paid from a wallet account
// records that account and its merchant (another merchant of the same mode may pay an invoice by
// its identifier), so that a refund goes back to the account that paid. The ledger gains the
// posting type `account_refund` (a refund arriving in the paying account's available balance).
//
// The ledger's CHECK constraint is extended from what it holds now rather than restated, so a
// migration of another part that extends it too keeps its values whichever runs first.

const NAME = 'ledger_entries_type_check';

/** The values of a `col = ANY (ARRAY[...])` / `col IN (...)` check constraint. */
async function checkValues(db: Kysely<any>): Promise<string[]> {
  const { rows } = await sql<{ def: string }>`SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conname = ${NAME}`.execute(db);
  return [...(rows[0]?.def ?? '').matchAll(/'([^']+)'/g)].map((m) => m[1]!);
}

async function setTypes(db: Kysely<any>, values: string[]): Promise<void> {
  await sql`ALTER TABLE ledger_entries DROP CONSTRAINT IF EXISTS ${sql.id(NAME)}`.execute(db);
  const list = sql.join(values.map((v) => sql.lit(v)));
  await sql`ALTER TABLE ledger_entries ADD CONSTRAINT ${sql.id(NAME)} CHECK (type IN (${list}))`.execute(db);
}

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE payments ADD COLUMN source_account_id integer REFERENCES wallet_accounts (id)`.execute(db);
  await sql`ALTER TABLE payments ADD COLUMN source_merchant_id integer REFERENCES merchants (id) ON DELETE SET NULL`.execute(db);
  await sql`CREATE INDEX payments_source_merchant ON payments (source_merchant_id, livemode) WHERE source_merchant_id IS NOT NULL`.execute(db);
  await setTypes(db, [...new Set([...(await checkValues(db)), 'account_refund'])]);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DELETE FROM ledger_entries WHERE type = 'account_refund'`.execute(db);
  await setTypes(
    db,
    (await checkValues(db)).filter((t) => t !== 'account_refund'),
  );
  await sql`DROP INDEX IF EXISTS payments_source_merchant`.execute(db);
  await sql`ALTER TABLE payments DROP COLUMN IF EXISTS source_merchant_id`.execute(db);
  await sql`ALTER TABLE payments DROP COLUMN IF EXISTS source_account_id`.execute(db);
}
