import { type Kysely, sql } from 'kysely';

// The billing lifecycle (issue 14): what a subscription needs to move with time.
// - `billing_anchor`: the instant its periods are counted from (its first paid period's start, a
//   trial's end, or a resume), so monthly periods keep their day of the month (31 Jan, 28 Feb,
//   31 Mar), never drifting to the shortest month's day.
// - `next_due_at`: the one instant its next due work falls due (renewal, trial end, a scheduled
//   cancellation, a dunning retry), kept by the repository on every change; null when nothing is.
// - dunning: how many retries were made, the invoice being collected.
// - `credit_balance`: what a downgrade credited, taken off its next invoices.
// Invoices gain the index their due-date sweep (`invoice.past_due`) reads.

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE subscriptions
    ADD COLUMN billing_anchor timestamptz,
    ADD COLUMN next_due_at timestamptz,
    ADD COLUMN dunning_attempts integer NOT NULL DEFAULT 0,
    ADD COLUMN next_retry_at timestamptz,
    ADD COLUMN open_invoice_id integer REFERENCES invoices (id),
    ADD COLUMN credit_balance numeric(20, 4) NOT NULL DEFAULT 0 CHECK (credit_balance >= 0)`.execute(db);
  await sql`UPDATE subscriptions SET billing_anchor = current_period_start,
    next_due_at = CASE WHEN status IN ('active', 'trialing') THEN current_period_end END`.execute(db);
  await sql`ALTER TABLE subscriptions ALTER COLUMN billing_anchor SET NOT NULL`.execute(db);
  await sql`CREATE INDEX subscriptions_due ON subscriptions (next_due_at) WHERE next_due_at IS NOT NULL`.execute(db);
  await sql`CREATE INDEX invoices_due ON invoices (due_date) WHERE status IN ('pending', 'sent', 'partially_paid') AND due_date IS NOT NULL`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX invoices_due`.execute(db);
  await sql`DROP INDEX subscriptions_due`.execute(db);
  await sql`ALTER TABLE subscriptions DROP COLUMN billing_anchor, DROP COLUMN next_due_at, DROP COLUMN dunning_attempts, DROP COLUMN next_retry_at,
    DROP COLUMN open_invoice_id, DROP COLUMN credit_balance`.execute(db);
}
