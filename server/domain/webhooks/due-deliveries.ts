// The due sweep: which deliveries' automatic attempts are due in a scope (every merchant's, or one
// sandbox merchant's by its clock), and the loop that fans out the outbox and attempts them in
// batches (delivery.ts makes each attempt).
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { baseClock, type Clock } from '../../shared/clock.js';
import { type DueScope, GLOBAL_SCOPE, scopedClock } from '../../shared/due-scope.js';
import { hasUndispatchedEvents } from '../events/outbox.repository.js';
import { findDueDeliveryIds, nextDueDelivery } from './delivery.repository.js';
import { attemptBatch, type DeliverySettings } from './delivery.js';
import { dispatchPendingEvents } from './fan-out.js';

/** Whether the outbox holds an event not fanned out yet: one cheap look, for polling. */
export const hasUndispatched = (db: Kysely<Database>): Promise<boolean> => hasUndispatchedEvents(db);

/** Ids of the scope's deliveries whose automatic attempt is due now (by the scope's clock) and not held by a worker. */
export async function dueDeliveries(db: Kysely<Database>, clock: Clock, scope: DueScope = GLOBAL_SCOPE, limit = 200): Promise<string[]> {
  return findDueDeliveryIds(db, scope, scopedClock(clock, scope).now(), baseClock(clock).now(), limit);
}

/** When the scope's next delivery attempt falls due, after `after` (for the sandbox clock). */
export const nextDeliveryAttempt = (db: Kysely<Database>, scope: DueScope, after: Date): Promise<Date | null> => nextDueDelivery(db, scope, after);

/**
 * Fans out the outbox, then attempts every delivery of the scope that is due by its clock (first
 * attempts and retries), in batches. The sandbox clock runs it at each stop, and tests after moving
 * the clock; the delivery job runs the same steps as a pipeline. Returns how many attempts were made.
 * A scope that catches up (the sandbox clock's, with `since`) makes each attempt at the time it fell
 * due, and goes on until nothing is due, so the retries those attempts schedule before the clock's
 * now are made too, each at its time: the exact retry schedule in rounds of many deliveries at once.
 */
export async function deliverDueWebhooks(
  db: Kysely<Database>,
  clock: Clock,
  settings: DeliverySettings,
  options: { concurrency?: number; scope?: DueScope } = {},
): Promise<number> {
  // A sandbox scope fans out only its merchant's events: the others are the delivery job's, which
  // attempts what it fans out at once (what another caller fans out waits for the sweep).
  await dispatchPendingEvents(db, clock, 500, options.scope?.kind === 'sandbox' ? options.scope.merchantId : undefined);
  const scope = options.scope;
  const catchingUp = scope?.kind === 'sandbox' && scope.since !== undefined;
  const limit = catchingUp ? CATCH_UP_BATCH : DUE_BATCH;
  let attempted = 0;
  for (;;) {
    const due = await dueDeliveries(db, clock, scope, limit);
    if (due.length === 0) return attempted;
    const done = await attemptBatch(db, clock, settings, due, { concurrency: options.concurrency ?? (catchingUp ? 48 : 16), scope });
    attempted += done.length;
    // A batch short of the limit was all that was due: the retries it scheduled are a minute away or
    // more (unless the scope catches up: then they may be due already, at their times).
    if (done.length === 0 || (due.length < limit && !catchingUp)) return attempted;
  }
}

/** Deliveries attempted in one batch by deliverDueWebhooks. */
const DUE_BATCH = 200;
/** The same when the scope catches up: retries come in rounds of every failing delivery at once. */
const CATCH_UP_BATCH = 500;
