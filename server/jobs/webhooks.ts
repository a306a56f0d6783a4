import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { Db, TillDatabase } from '../db/database.js';
import { EVENT_WRITTEN_CHANNEL } from '../db/notifications.js';
import { onEventWritten } from '../domain/events/event.service.js';
import { type AttemptResult, claimDeliveries, type DeliverySettings, recordAttempts, sendClaimed } from '../domain/webhooks/delivery.js';
import { dueDeliveries, hasUndispatched } from '../domain/webhooks/due-deliveries.js';
import { dispatchBatch } from '../domain/webhooks/fan-out.js';
import type { Clock } from '../shared/clock.js';
import { type DueScope, GLOBAL_SCOPE } from '../shared/due-scope.js';
import { measuredJob } from '../metrics/jobs.js';
import { observeDeliveries } from '../metrics/webhooks.js';
import { AttemptPipeline } from './attempt-pipeline.js';

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
 * Webhook delivery. The events table is the outbox. When this process writes an event, the fan-out
 * runs DISPATCH_DELAY_MS later (by then the writing transaction has usually committed, and the
 * events written meanwhile go into the same batch), and again when a test-mode event's commit is
 * announced (in every process); otherwise it looks at the outbox every
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
export async function startWebhookJobs(
  boss: PgBoss,
  database: TillDatabase,
  clock: Clock,
  settings: DeliverySettings,
  logger: Logger,
  options: WebhookJobOptions = {},
): Promise<WebhookJobs> {
  const db = database.db;
  const pipeline = new AttemptPipeline({
    claim: (ids) => claimDeliveries(db, clock, settings, ids),
    send: (claimed) => sendClaimed(claimed, settings),
    record: (results) => recordAndQueueRetries(boss, db, logger, results),
    logger,
    onSettled: () => fanOut.resume(),
  });
  const fanOut = new FanOut(db, clock, logger, pipeline, settings.render);

  await boss.createQueue(WEBHOOK_DELIVERY_QUEUE);
  await boss.work<{ deliveryId: string }>(
    WEBHOOK_DELIVERY_QUEUE,
    { batchSize: 16, pollingIntervalSeconds: 0.5 },
    measuredJob(WEBHOOK_DELIVERY_QUEUE, async (jobs: PgBoss.Job<{ deliveryId: string }>[]) => {
      await Promise.all(jobs.map((job) => pipeline.add(job.data.deliveryId)));
    }),
  );
  const stopListening = onEventWritten(() => fanOut.wake());
  // A test-mode event is also announced as it commits (migration 0024), in every process: the
  // fan-out then looks again even when the writing transaction took longer than the delay.
  const unlisten = await database
    .listen(EVENT_WRITTEN_CHANNEL, {
      notification: () => fanOut.wake(),
      restored: () => fanOut.wake(),
      error: (err) => logger.warn({ err }, 'webhooks: event notices connection error (the outbox poll goes on)'),
    })
    .catch((err: unknown) => {
      logger.warn({ err }, 'webhooks: event notices unavailable; the outbox poll goes on');
      return undefined;
    });
  const poll = pollOutbox(db, fanOut, logger, options.pollIntervalMs ?? POLL_INTERVAL_MS);
  fanOut.wake(); // events written while no process was running

  return {
    async sweep(scope = GLOBAL_SCOPE) {
      if (fanOut.stopped) return 0;
      const attempted = await Promise.all((await dueDeliveries(db, clock, scope)).map((id) => pipeline.add(id)));
      return attempted.filter(Boolean).length;
    },
    async stop() {
      if (fanOut.stopped) return;
      fanOut.stop();
      stopListening();
      await unlisten?.();
      clearInterval(poll);
      await boss.offWork(WEBHOOK_DELIVERY_QUEUE);
      await pipeline.drain(STOP_GRACE_MS);
    },
  };
}

/** Records finished attempts; a failed one with a retry time gets a pg-boss job for then. Answers the recorded ids. */
async function recordAndQueueRetries(boss: PgBoss, db: Db, logger: Logger, results: AttemptResult[]): Promise<Set<string>> {
  const rows = await recordAttempts(db, results, (err, deliveryId) => logger.error({ err, deliveryId }, 'webhook attempt could not be recorded'));
  observeDeliveries(results, rows);
  const retries: PgBoss.JobInsert[] = [];
  for (const after of rows) {
    if (after.status === 'failed' && after.next_attempt_at) {
      retries.push({
        name: WEBHOOK_DELIVERY_QUEUE,
        data: { deliveryId: after.id },
        startAfter: after.next_attempt_at,
        singletonKey: `${after.id}:${after.automatic_attempts}`,
      });
    } else if (after.status === 'dead_lettered') {
      logger.warn({ deliveryId: after.id, eventId: after.event_id }, 'webhook delivery dead-lettered');
    }
  }
  if (retries.length > 0) {
    await boss
      .insert(retries)
      .catch((err: unknown) => logger.error({ err, deliveries: retries.length }, 'webhook retries not queued; the sweep attempts them when due'));
  }
  return new Set(rows.map((r) => r.id));
}

/** Looks at the outbox every `ms` while the fan-out is at rest, for events this process was not told of. */
function pollOutbox(db: Db, fanOut: FanOut, logger: Logger, ms: number): NodeJS.Timeout {
  let polling = false;
  const poll = setInterval(() => {
    if (polling || !fanOut.atRest) return;
    polling = true;
    hasUndispatched(db)
      .then((found) => found && fanOut.wake())
      .catch((err: unknown) => logger.error({ err }, 'webhook outbox poll failed'))
      .finally(() => (polling = false));
  }, ms);
  poll.unref();
  return poll;
}

/**
 * The fan-out: batches started by a timer, at most DISPATCH_LANES at once (SKIP LOCKED gives
 * each its own events). Events written while every lane is busy are remembered in `again`;
 * after a batch that found events the outbox is looked at again, until it is empty; while the
 * batches come back full (a backlog), the next lane starts without waiting for this one. It
 * pauses while MAX_WAITING deliveries wait for their attempt, and resumes as they settle.
 */
class FanOut {
  stopped = false;
  private running = 0;
  private again = false;
  private backlog = false;
  private scheduled: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly pipeline: AttemptPipeline,
    /** Renders the bodies of the events fanned out, for the deliveries' claims. */
    private readonly render: DeliverySettings['render'],
  ) {}

  /** No batch runs or is about to. */
  get atRest(): boolean {
    return this.running === 0 && !this.scheduled && !this.stopped;
  }

  wake(): void {
    if (this.stopped || this.scheduled) return;
    if (this.running >= DISPATCH_LANES) this.again = true;
    else this.scheduled = setTimeout(() => void this.dispatch(), DISPATCH_DELAY_MS);
  }

  /** After an attempt settles: a fan-out paused for a full pipeline goes on once half of it has drained. */
  resume(): void {
    if (this.again && this.running === 0 && this.pipeline.waiting < MAX_WAITING / 2) {
      this.again = false;
      this.wake();
    }
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.scheduled);
  }

  private async dispatch(): Promise<void> {
    this.scheduled = undefined;
    if (this.stopped) return;
    if (this.pipeline.waiting >= MAX_WAITING) {
      this.again = true; // resumed as attempts settle
      return;
    }
    this.running += 1;
    this.again = false;
    if (this.backlog) this.wake();
    const claimed = await this.dispatchOne();
    this.running -= 1;
    if (claimed > 0 || this.again) {
      this.again = false;
      this.wake();
    }
  }

  /** One batch of the outbox into deliveries, each handed to the pipeline; answers how many events it claimed. */
  private async dispatchOne(): Promise<number> {
    try {
      const batch = await dispatchBatch(this.db, this.clock, DISPATCH_BATCH, { render: this.render });
      this.backlog = batch.claimed === DISPATCH_BATCH;
      for (const id of batch.deliveryIds) void this.pipeline.add(id); // after stop, left to the sweep
      return batch.claimed;
    } catch (err) {
      this.logger.error({ err }, 'webhook dispatch failed');
      return 0;
    }
  }
}
