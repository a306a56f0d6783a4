// The due sweep: which deliveries' automatic attempts are due in a scope (every merchant's, or one
// sandbox merchant's by its clock), and the loop that fans out the outbox and attempts them in
// batches (delivery.ts makes each attempt).
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { baseClock, type Clock } from '../../shared/clock.js';
import { catchUpTime, type DueScope, GLOBAL_SCOPE, scopedClock } from '../../shared/due-scope.js';
import { hasUndispatchedEvents } from '../events/outbox.repository.js';
import { findDueDeliveryIds, nextDueDelivery } from './delivery.repository.js';
import {
  type AttemptResult,
  type ClaimedDelivery,
  claimDeliveries,
  type DeliverySettings,
  type HoldAfter,
  lockSeconds,
  type RecordedAttempt,
  recordAll,
  sendAll,
} from './delivery.js';
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
  options: { concurrency?: number; scope?: DueScope; batch?: number } = {},
): Promise<number> {
  // A sandbox scope fans out only its merchant's events: the others are the delivery job's, which
  // attempts what it fans out at once (what another caller fans out waits for the sweep).
  await dispatchPendingEvents(db, clock, 500, {
    testModeOf: options.scope?.kind === 'sandbox' ? options.scope.merchantId : undefined,
    render: settings.render,
  });
  const scope = options.scope;
  const catchingUp = scope?.kind === 'sandbox' && scope.since !== undefined;
  const limit = options.batch ?? (catchingUp ? CATCH_UP_BATCH : DUE_BATCH);
  const concurrency = options.concurrency ?? (catchingUp ? 48 : 16);
  return attemptInTurn({
    claim: async () => claimDeliveries(db, clock, settings, await dueDeliveries(db, clock, scope, limit), 'automatic', scope),
    send: (claimed) => sendAll(claimed, settings, concurrency),
    record: async (results) => {
      const recorded = await recordAll(db, results, catchingUp ? holdWhileDue(clock, settings, scope) : undefined);
      return { recorded: recorded.length, next: catchingUp ? nextAttempts(results, recorded, clock, scope) : [] };
    },
  });
}

/**
 * While the sandbox clock catches up: a delivery whose attempt failed stays held for its next
 * attempt when that has fallen due by the clock already, so the next batch sends it without
 * claiming it again (one claim a delivery a stop, not one an attempt).
 */
function holdWhileDue(clock: Clock, settings: Pick<DeliverySettings, 'webhookTimeoutMs'>, scope: DueScope): HoldAfter {
  const dueBy = scopedClock(clock, scope).now();
  const until = new Date(baseClock(clock).now().getTime() + lockSeconds(settings) * 1000);
  return (claimed, after) =>
    claimed.kind === 'automatic' && after.status === 'failed' && after.nextAttemptAt !== null && after.nextAttemptAt <= dueBy ? until : null;
}

/**
 * A delivery recorded with its hold kept (RecordedAttempt's locked_until), claimed for its next
 * automatic attempt without another claim: the same event, body and target (its URL and secret
 * as the stop's claim read them), the attempt made at the time it fell due and sent now.
 */
function nextAttemptOf(claimed: ClaimedDelivery, after: RecordedAttempt, clock: Clock, scope: DueScope): ClaimedDelivery {
  const { delivery } = claimed;
  const { status, next_attempt_at, automatic_attempts, locked_until } = after;
  return {
    ...claimed,
    kind: 'automatic',
    delivery: {
      ...delivery,
      status,
      next_attempt_at,
      automatic_attempts,
      locked_until,
      attempt_count: delivery.attempt_count + 1,
      url: claimed.target?.url ?? delivery.url,
      updated_at: claimed.attemptedAt,
    },
    attemptedAt: catchUpTime(clock, scope, next_attempt_at!),
    sentAt: baseClock(clock).now(),
  };
}

/** The deliveries recorded with their hold kept, claimed for their next attempt. */
function nextAttempts(results: AttemptResult[], recorded: RecordedAttempt[], clock: Clock, scope: DueScope): ClaimedDelivery[] {
  const claimed = new Map(results.map((r) => [r.claimed.delivery.id, r.claimed]));
  return recorded.filter((r) => r.locked_until !== null).map((r) => nextAttemptOf(claimed.get(r.id)!, r, clock, scope));
}

/** Deliveries attempted in one batch by deliverDueWebhooks. */
const DUE_BATCH = 200;
/** The same when the scope catches up: retries come in rounds of every failing delivery at once. */
const CATCH_UP_BATCH = 500;

/** The steps of a batch of attempts. */
interface BatchSteps {
  /** Claims what is due now (nothing held by another batch). */
  claim: () => Promise<ClaimedDelivery[]>;
  send: (claimed: ClaimedDelivery[]) => Promise<AttemptResult[]>;
  /** Records the attempts: how many were recorded, and the deliveries kept for their next attempt. */
  record: (results: AttemptResult[]) => Promise<{ recorded: number; next: ClaimedDelivery[] }>;
}

/** A promise whose failure is seen only where it is awaited (not as an unhandled rejection meanwhile). */
function awaitedLater<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/**
 * Batch after batch, the database and the receivers at work at once: while a batch is sent, the
 * next is claimed and the one before is recorded. A claim never takes what another batch holds, so
 * a delivery's attempts stay in order; the retries a batch schedules are in a later batch: those
 * its record kept go with the next claim, the others can be claimed once it is recorded, so a claim
 * that finds nothing while a batch is being recorded is made again after. Ends when a claim finds
 * nothing and no batch is left to record or to send again; answers how many attempts were
 * recorded. A step that fails fails it (what another batch held is claimed again once its hold lapses).
 */
async function attemptInTurn(steps: BatchSteps): Promise<number> {
  let attempted = 0;
  let recording: ReturnType<BatchSteps['record']> | undefined;
  let kept: ClaimedDelivery[] = [];
  let claiming = steps.claim();
  for (;;) {
    const batch = [...kept, ...(await claiming)];
    kept = [];
    if (batch.length === 0) {
      if (recording === undefined) return attempted;
      ({ attempted, kept } = await afterRecord(recording, attempted));
      recording = undefined;
      claiming = steps.claim();
      continue;
    }
    claiming = awaitedLater(steps.claim());
    const results = await steps.send(batch);
    if (recording !== undefined) ({ attempted, kept } = await afterRecord(recording, attempted));
    recording = awaitedLater(steps.record(results));
  }
}

/** A batch's record awaited: the attempts made so far with its own, and what it kept for the next batch. */
async function afterRecord(recording: ReturnType<BatchSteps['record']>, before: number) {
  const { recorded, next } = await recording;
  return { attempted: before + recorded, kept: next };
}
