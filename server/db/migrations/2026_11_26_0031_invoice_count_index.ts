import { type Kysely, sql } from 'kysely';

// Counting a tenant's invoices (`$count=true` on the Commerce list, with or without a `status`
// filter). The list's other indexes end with `id DESC`, so each entry is distinct and a count
// reads an entry per invoice (37–70 MB for 1,000,000 invoices of one merchant). This index has no
// key column after `status`: B-tree deduplication keeps one entry per key with a list of rows, so
// it holds 1,000,000 invoices in about 7 MB and an index-only scan counts them in about half the
// time of any other plan (31 ms against 68 ms for a sequential scan, one core, on the bench's data).

export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE INDEX invoices_tenant_count ON invoices (merchant_id, livemode, status)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX IF EXISTS invoices_tenant_count`.execute(db);
}
