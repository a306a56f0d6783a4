// Due work: a link whose `validTo` passes while it is Draft, Active or Inactive becomes `Expired`.
// (A link whose uses are spent expires as its last payment completes: link-payments.ts.)
import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import { type DueScope, GLOBAL_SCOPE, scopedClock } from '../../shared/due-scope.js';
import { tenantOf } from '../../shared/tenant.js';
import { findDueExpiringLinks, markLinkExpired, nextLinkExpiry } from './link.repository.js';

/** Expires every open link of the scope whose `validTo` has come; answers how many. */
export async function expireDueLinks(db: Kysely<Database>, clock: Clock, scope: DueScope = GLOBAL_SCOPE, batch = 200): Promise<number> {
  const now = scopedClock(clock, scope).now();
  let expired = 0;
  for (const link of await findDueExpiringLinks(db, scope, now, batch)) {
    if (await markLinkExpired(db, tenantOf(link), link.id, now)) expired++;
  }
  return expired;
}

/** When the scope's next open link expires, after `after`. */
export const nextExpiringLink = (db: Db, scope: DueScope, after: Date): Promise<Date | null> => nextLinkExpiry(db, scope, after);
