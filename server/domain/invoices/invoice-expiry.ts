// Due work: an invoice whose `validTo` passes while it is still open (draft, pending, sent,
// partially paid, overdue) becomes `expired`, final, with `invoice.expired`.
import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { type DueScope, GLOBAL_SCOPE, scopedClock } from '../../shared/due-scope.js';
import { tenantOf } from '../../shared/tenant.js';
import { writeEvent } from '../events/event.service.js';
import { findDueExpiringInvoices, markExpiredIfOpen, nextInvoiceExpiry } from './invoice.repository.js';

/** Expires every open invoice of the scope whose `validTo` has come, each once, with `invoice.expired`. */
export async function expireDueInvoices(db: Kysely<Database>, clock: Clock, scope: DueScope = GLOBAL_SCOPE, batch = 200): Promise<number> {
  const scoped = scopedClock(clock, scope);
  let expired = 0;
  for (const row of await findDueExpiringInvoices(db, scope, scoped.now(), batch)) {
    const done = await db.transaction().execute(async (trx) => {
      const changed = await markExpiredIfOpen(trx, tenantOf(row), row.id);
      if (changed) await writeEvent(trx, scoped, { tenant: tenantOf(row), type: 'invoice.expired', subject: { kind: 'invoice', invoice: changed } });
      return changed !== undefined;
    });
    if (done) expired++;
  }
  return expired;
}

/** When the scope's next open invoice expires, after `after`. */
export const nextExpiringInvoice = (db: Db, scope: DueScope, after: Date): Promise<Date | null> => nextInvoiceExpiry(db, scope, after);
