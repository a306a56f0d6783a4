import { type Kysely, sql } from 'kysely';

// Paying from a wallet account's balance (issue #15 §3, `sourceAccountId`): a payment of its own
// kind (`account_balance`), and the payment option that offers it. Merchants made before this
// migration gain the option (`AccountBalance`, the next free id) as new merchants have it.

const OPTION = (id: string) =>
  sql`jsonb_build_object('id', ${sql.raw(id)}, 'code', 'account_balance', 'name', 'Account balance', 'method', 'AccountBalance', 'canHold', false, 'holdDays', null, 'enabled', true)`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE payments DROP CONSTRAINT IF EXISTS payments_method_type_check`.execute(db);
  await sql`ALTER TABLE payments ADD CONSTRAINT payments_method_type_check CHECK (method_type IN ('card', 'wallet', 'bank_transfer', 'account_balance'))`.execute(
    db,
  );
  const nextId = `(SELECT coalesce(max((o->>'id')::int), 0) + 1 FROM jsonb_array_elements(payment_options) o)`;
  await sql`UPDATE merchants SET payment_options = payment_options || jsonb_build_array(${OPTION(nextId)})
    WHERE NOT EXISTS (SELECT 1 FROM jsonb_array_elements(payment_options) o WHERE o->>'method' = 'AccountBalance')`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`UPDATE merchants SET payment_options = (SELECT coalesce(jsonb_agg(o), '[]'::jsonb) FROM jsonb_array_elements(payment_options) o WHERE o->>'method' <> 'AccountBalance')`.execute(
    db,
  );
  await sql`DELETE FROM payments WHERE method_type = 'account_balance'`.execute(db);
  await sql`ALTER TABLE payments DROP CONSTRAINT IF EXISTS payments_method_type_check`.execute(db);
  await sql`ALTER TABLE payments ADD CONSTRAINT payments_method_type_check CHECK (method_type IN ('card', 'wallet', 'bank_transfer'))`.execute(db);
}
