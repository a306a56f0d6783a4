import { type Kysely, sql } from 'kysely';

// The audit log names a third actor: the operator, with the merchant command on the server
// (`npm run merchant -- roles delete …`, `keys revoke …`), which has neither a key nor a session.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE audit_entries DROP CONSTRAINT audit_entries_actor_type_check`.execute(db);
  await sql`ALTER TABLE audit_entries ADD CONSTRAINT audit_entries_actor_type_check CHECK (actor_type IN ('api_key', 'dashboard', 'operator'))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DELETE FROM audit_entries WHERE actor_type = 'operator'`.execute(db);
  await sql`ALTER TABLE audit_entries DROP CONSTRAINT audit_entries_actor_type_check`.execute(db);
  await sql`ALTER TABLE audit_entries ADD CONSTRAINT audit_entries_actor_type_check CHECK (actor_type IN ('api_key', 'dashboard'))`.execute(db);
}
