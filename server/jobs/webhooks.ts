import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { TillDatabase } from '../db/database.js';
import { onEventWritten } from '../domain/events/event.service.js';
import { type AttemptResult, type ClaimedDelivery, claimDeliveries, type DeliverySettings, dueDeliveries, hasUndispatched, recordAttempts, sendClaimed } from '../domain/webhooks/delivery.js';
import { dispatchBatch } from '../domain/webhooks/fan-out.js';
import type { Clock } from '../shared/clock.js';
import { type DueScope, GLOBAL_SCOPE } from '../shared/due-scope.js';

/** Retries: one pg-boss job per retry, sent with `startAfter` at its due time. */
export const WEBHOOK_DELIVERY_QUEUE = 'webhook-delivery';
/**
 * After this process writes an event, the fan-out runs this much later: after the commit, in
 * practice, and with the events written meanwhile in the same batch (under load, 25 ms rather than
 * 10 ms took a quarter off the job's CPU per event in the bench, for 15 ms more latency).
 */
const DISPATCH_DELAY_MS = 25;
/** Otherwise the outbox is looked at this often (one indexed single-row query when it is empty). */
const POLL_INTERVAL_MS = 250;
/** Events claimed per fan-out transaction. */
const DISPATCH_BATCH = 200;
/** Fan-out transactions at once: a second one takes the events written while the first runs. */
const DISPATCH_LANES = 2;
/** Requests in flight at once in this process (first attempts, retries and the sweep's together). */
const MAX_SENDING = 64;
/** Deliveries claimed per statement, at most. */
const CLAIM_BATCH = 100;
/** Attempts recorded per statement, at most. */
const RECORD_BATCH = 200;
/** The fan-out pauses while this many deliveries wait for an attempt: the rest stay in the outbox. */
const MAX_WAITING = 2000;
/** On stop, how long the attempts under way may take to finish and be recorded; the sweep takes over the rest. */
const STOP_GRACE_MS = 5000;

export interface WebhookJobOptions {
  /** How often the outbox is polled (default POLL_INTERVAL_MS); tests set it long to see the wake-up alone at work. */
  pollIntervalMs?: number;
}

export interface WebhookJobs {
  /** Attempts the scope's deliveries that are due now by its clock (the minutely sweep); resolves with how many it attempted. */
  sweep(scope?: DueScope): Promise<number>;
  /** Stops taking work and waits (a few seconds at most) for the attempts under way. */
  stop(): Promise<void>;
}

/**
 * Automatic attempts, as a pipeline in three stages that each work in batches where they can:
 * claim the waiting deliveries (one statement for up to CLAIM_BATCH), send each one as soon as it
 * is claimed (at most MAX_SENDING at once), and record the attempts that have finished (one
 * statement for up to RECORD_BATCH). Claims and records run one at a time, so whatever arrives
 * meanwhile goes into the next batch: under load batches grow, at rest each delivery goes alone.
 * `add` resolves with whether the delivery was attempted (false when it could not be claimed,
 * when its attempt could not be recorded, or when it was dropped at stop).
 */
function attemptPipeline(options: {
  claim: (ids: string[]) => Promise<ClaimedDelivery[]>;
  send: (claimed: ClaimedDelivery) => Promise<AttemptResult['outcome']>;
  record: (results: AttemptResult[]) => Promise<Set<string>>;
  logger: Logger;
  /** Called whenever a delivery leaves the pipeline. */
  onSettled: () => void;
}) {
  const { claim, send, record, logger, onSettled } = options;
  const waiting: string[] = [];
  const pending = new Map<string, { promise: Promise<boolean>; resolve: (attempted: boolean) => void }>();
  const finished: AttemptResult[] = [];
  let sending = 0;
  let claiming = false;
  let recording = false;
  let closed = false;
  let idle: (() => void) | undefined;

  const settle = (id: string, attempted: boolean) => {
    pending.get(id)?.resolve(attempted);
    pending.delete(id);
    if (pending.size === 0) idle?.();
    onSettled();
  };

  const claimNext = () => {
    if (claiming || waiting.length === 0 || sending >= MAX_SENDING) return;
    claiming = true;
    const ids = waiting.splice(0, Math.min(CLAIM_BATCH, MAX_SENDING - sending));
    void claim(ids)
      .catch((err: unknown) => {
        logger.error({ err }, 'webhook deliveries could not be claimed');
        return [];
      })
      .then((claimed) => {
        const got = new Set(claimed.map((c) => c.delivery.id));
        for (const id of ids) if (!got.has(id)) settle(id, false);
        for (const c of claimed) sendOne(c);
        claiming = false;
        claimNext();
      });
  };

  const sendOne = (claimed: ClaimedDelivery) => {
    sending += 1;
    void send(claimed)
      .catch((err: unknown): AttemptResult['outcome'] => {
        logger.error({ err, deliveryId: claimed.delivery.id }, 'webhook send failed to run');
        return { ok: false, httpStatus: null, durationMs: 0, responseSnippet: null, error: 'connection_error' };
      })
      .then((outcome) => {
        sending -= 1;
        finished.push({ claimed, outcome });
        recordNext();
        claimNext();
      });
  };

  const recordNext = () => {
    if (recording || finished.length === 0) return;
    recording = true;
    const batch = finished.splice(0, RECORD_BATCH);
    void record(batch)
      .catch((err: unknown) => {
        logger.error({ err }, 'webhook attempts could not be recorded');
        return new Set<string>();
      })
      .then((recorded) => {
        for (const { claimed } of batch) settle(claimed.delivery.id, recorded.has(claimed.delivery.id));
        recording = false;
        recordNext();
      });
  };

  return {
    add(id: string): Promise<boolean> {
      if (closed) return Promise.resolve(false);
      const known = pending.get(id);
      if (known) return known.promise;
      let resolve!: (attempted: boolean) => void;
      const promise = new Promise<boolean>((r) => (resolve = r));
      pending.set(id, { promise, resolve });
      waiting.push(id);
      claimNext();
      return promise;
    },
    /** Deliveries waiting for their claim. */
    get waiting() {
      return waiting.length;
    },
    /** Takes nothing more, drops what waits (it is not claimed), then waits at most `ms` for the attempts under way. */
    async drain(ms: number): Promise<void> {
      closed = true;
      for (const id of waiting.splice(0)) settle(id, false);
      if (pending.size === 0) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([new Promise<void>((r) => (idle = r)), new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
      clearTimeout(timer);
    },
  };
}

/**
 * Webhook delivery. The events table is the outbox. When this process writes an event, the fan-out
 * runs DISPATCH_DELAY_MS later (by then the writing transaction has committed, and the events
 * written meanwhile go into the same batch); otherwise it looks at the outbox every
 * POLL_INTERVAL_MS, for events written by other processes, by a transaction that took longer, or
 * while it was stopped. The fan-out turns events into deliveries in batches (one transaction
 * each, at most DISPATCH_LANES at once), and each new delivery is attempted right away in this
 * process. A failed attempt queues a pg-boss job with `startAfter` its retry time (from the
 * Clock); the worker of that queue feeds the same pipeline.
 *
 * The deliveries table is the truth, not this process's memory: a delivery waiting here when the
 * process dies, or one claimed by an attempt that never got recorded, is attempted by the minutely
 * sweep (of any process) once it is due and its claim has passed, so a killed process loses
 * nothing. Several processes share the work: the fan-out claims events with SKIP LOCKED, and an
 * attempt claims its delivery first.
 */
export async function startWebhookJobs(boss: PgBoss, database: TillDatabase, clock: Clock, settings: DeliverySettings, logger: Logger, options: WebhookJobOptions = {}): Promise<WebhookJobs> {
  const db = database.db;
  let stopped = false;

  const record = async (results: AttemptResult[]) => {
    const rows = await recordAttempts(db, results, (err, deliveryId) => logger.error({ err, deliveryId }, 'webhook attempt could not be recorded'));
    const retries: PgBoss.JobInsert[] = [];
    for (const after of rows) {
      if (after.status === 'failed' && after.next_attempt_at) {
        retries.push({ name: WEBHOOK_DELIVERY_QUEUE, data: { deliveryId: after.id }, startAfter: after.next_attempt_at, singletonKey: `${after.id}:${after.automatic_attempts}` });
      } else if (after.status === 'dead_lettered') {
        logger.warn({ deliveryId: after.id, eventId: after.event_id }, 'webhook delivery dead-lettered');
      }
    }
    if (retries.length > 0) {
      await boss.insert(retries).catch((err: unknown) => logger.error({ err, deliveries: retries.length }, 'webhook retries not queued; the sweep attempts them when due'));
    }
    return new Set(rows.map((r) => r.id));
  };

  // The fan-out: batches started by a timer, at most DISPATCH_LANES at once (SKIP LOCKED gives
  // each its own events). Events written while every lane is busy are remembered in `again`;
  // after a batch that found events the outbox is looked at again, until it is empty; while the
  // batches come back full (a backlog), the next lane starts without waiting for this one.
  let running = 0;
  let again = false;
  let backlog = false;
  let scheduled: NodeJS.Timeout | undefined;
  const wake = () => {
    if (stopped || scheduled) return;
    if (running >= DISPATCH_LANES) again = true;
    else scheduled = setTimeout(() => void dispatch(), DISPATCH_DELAY_MS);
  };
  const dispatch = async () => {
    scheduled = undefined;
    if (stopped) return;
    if (pipeline.waiting >= MAX_WAITING) {
      again = true; // resumed as attempts settle
      return;
    }
    running += 1;
    again = false;
    if (backlog) wake();
    let claimed = 0;
    try {
      const batch = await dispatchBatch(db, clock, DISPATCH_BATCH);
      claimed = batch.claimed;
      backlog = claimed === DISPATCH_BATCH;
      for (const id of batch.deliveryIds) void pipeline.add(id); // after stop, left to the sweep
    } catch (err) {
      logger.error({ err }, 'webhook dispatch failed');
    } finally {
      running -= 1;
    }
    if (claimed > 0 || again) {
      again = false;
      wake();
    }
  };
  const pipeline = attemptPipeline({
    claim: (ids) => claimDeliveries(db, clock, settings, ids),
    send: (claimed) => sendClaimed(claimed, settings),
    record,
    logger,
    onSettled: () => {
      if (again && running === 0 && pipeline.waiting < MAX_WAITING / 2) {
        again = false;
        wake();
      }
    },
  });

  await boss.createQueue(WEBHOOK_DELIVERY_QUEUE);
  await boss.work<{ deliveryId: string }>(WEBHOOK_DELIVERY_QUEUE, { batchSize: 16, pollingIntervalSeconds: 0.5 }, async (jobs) => {
    await Promise.all(jobs.map((job) => pipeline.add(job.data.deliveryId)));
  });

  const stopListening = onEventWritten(wake);
  let polling = false;
  const poll = setInterval(() => {
    if (polling || running > 0 || scheduled || stopped) return;
    polling = true;
    hasUndispatched(db)
      .then((found) => found && wake())
      .catch((err: unknown) => logger.error({ err }, 'webhook outbox poll failed'))
      .finally(() => (polling = false));
  }, options.pollIntervalMs ?? POLL_INTERVAL_MS);
  poll.unref();
  wake(); // events written while no process was running

  return {
    async sweep(scope = GLOBAL_SCOPE) {
      if (stopped) return 0;
      const attempted = await Promise.all((await dueDeliveries(db, clock, scope)).map((id) => pipeline.add(id)));
      return attempted.filter(Boolean).length;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      stopListening();
      clearInterval(poll);
      clearTimeout(scheduled);
      await boss.offWork(WEBHOOK_DELIVERY_QUEUE);
      await pipeline.drain(STOP_GRACE_MS);
    },
  };
}
