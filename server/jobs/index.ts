import { setImmediate as nextTurn } from 'node:timers/promises';
import PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { TillDatabase } from '../db/database.js';
import { JOB_QUEUE_SCHEMA, type MakeQueues } from '../db/pglite-template.js';
import { dueScopes } from '../domain/clocks/tenant-clock.js';
import { deleteExpiredRequestLogs } from '../domain/request-logs/request-log.service.js';
import { deleteExpiredIdempotencyKeys } from '../http/idempotency.js';
import { deleteExpiredRateLimits } from '../http/rate-limit.js';
import type { Clock } from '../shared/clock.js';
import { inSpan, SpanKind } from '../shared/tracing.js';
import { deliverySettings } from '../api/kit.js';
import { measuredJob, watchQueues } from '../metrics/jobs.js';
import { dueWork, type ScheduledWork } from './due-work-registry.js';
import { startMessageDelivery } from './messages.js';
import { startWebhookJobs, WEBHOOK_DELIVERY_QUEUE } from './webhooks.js';

/** Upkeep that no clock moves: it runs on the wall clock only. */
const UPKEEP = {
  idempotencyCleanup: { queue: 'idempotency-cleanup', cron: '17 * * * *' },
  rateLimitCleanup: { queue: 'rate-limit-cleanup', cron: '*/10 * * * *' },
  requestLogRetention: { queue: 'request-log-retention', cron: '23 * * * *' },
} as const;

/**
 * How often each scheduled queue's worker looks for its job. Their jobs come from schedules a
 * minute apart at least, so a run may start up to this late. At pg-boss's default of 2 s the
 * fifteen of them sent seven or eight fetches a second, idle or not (on PGlite 3-4 ms each, taken
 * from the one session that requests and the sandbox clock share); an idle server on PGlite used
 * 11% of a core, 8% now.
 */
const SCHEDULED_POLL_SECONDS = 10;

/** The queue of live email's sweep (startMessageDelivery sends each at once; the sweep retries). */
const MESSAGE_DELIVERY_QUEUE = 'message-delivery';

export type QueueId = ScheduledWork['id'] | keyof typeof UPKEEP | 'messageDelivery';

export interface Jobs {
  boss: PgBoss;
  /** Runs a queue's work now (tests). */
  runNow(queue: QueueId): Promise<void>;
  stop(): Promise<void>;
}

/** What the jobs read of the configuration. */
export type JobSettings = Pick<Config, 'allowLoopbackWebhooks' | 'webhookTimeoutMs' | 'smtpUrl' | 'smtpFrom'>;

/**
 * How pg-boss sends its statements: with parameters as one query; without, possibly several at once
 * (PGlite runs those with `exec`). Each waits for the event loop's next turn first. On PGlite a
 * statement completes without ever giving way to I/O, so the job start's fifty-odd statements
 * chained one after another kept every request waiting (a restart's first request arrived half a
 * second after the server listened); the job queue can wait a turn, a request should not.
 */
function jobStatements(database: TillDatabase) {
  return async (text: string, values?: unknown[]) => {
    await nextTurn();
    return values && values.length > 0 ? database.sql.query(text, values) : database.sql.execRows(text);
  };
}

/** Starts pg-boss on the same database as the app, through `db.executeSql` (jobStatements). */
export async function startJobs(database: TillDatabase, clock: Clock, logger: Logger, settings: JobSettings): Promise<Jobs> {
  const boss = new PgBoss({ db: { executeSql: jobStatements(database) }, schema: JOB_QUEUE_SCHEMA } as PgBoss.ConstructorOptions);
  boss.on('error', (err) => logger.error({ err }, 'job queue error'));
  await boss.start();
  const webhooks = await startWebhookJobs(boss, database, clock, deliverySettings({ config: settings }), logger);
  const messages = await startMessageDelivery(database, clock, logger, settings);
  const queues = {
    ...queuesOf(database, clock, logger, dueWork({ config: settings }, { sweepWebhooks: (scope) => webhooks.sweep(scope) })),
    // Live email: at once when queued (NOTIFY); this sweep retries failures and what a stopped process left.
    messageDelivery: { queue: MESSAGE_DELIVERY_QUEUE, cron: '* * * * *', run: async () => void (await messages.sweep()) },
  };
  for (const { queue, cron, run } of Object.values(queues)) {
    await boss.createQueue(queue);
    // With tracing on, each run is a trace of its own: its statements and what it writes are in it.
    await boss.work(
      queue,
      { pollingIntervalSeconds: SCHEDULED_POLL_SECONDS },
      measuredJob(queue, () => inSpan(`job ${queue}`, { kind: SpanKind.CONSUMER, attributes: { 'till.job.queue': queue } }, run)),
    );
    await boss.schedule(queue, cron);
  }
  // Deliveries left waiting by a process that stopped or died are due now: attempt them at once
  // rather than at the next minute.
  void queues.webhookSweep.run().catch((err: unknown) => logger.error({ err }, 'webhook sweep at start failed'));
  const unwatch = watchQueues(boss, [...Object.values(queues).map((q) => q.queue), WEBHOOK_DELIVERY_QUEUE]);
  return {
    boss,
    runNow: (queue) => queues[queue].run(),
    stop: async () => {
      unwatch();
      await messages.stop();
      await webhooks.stop();
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
    },
  };
}

/** pg-boss's own queue, which its start makes: the jobs its schedules (`schedule`) send. */
const PG_BOSS_SCHEDULES_QUEUE = '__pgboss__send-it';

/** Every queue a started job queue holds (Till's and pg-boss's own): made at its start when missing, and ahead of it in the build's PGlite template. */
export function jobQueueNames(): string[] {
  const scheduled = dueWork({ config: { allowLoopbackWebhooks: false, webhookTimeoutMs: 30_000 } }).map((work) => work.queue);
  return [...scheduled, ...Object.values(UPKEEP).map((upkeep) => upkeep.queue), MESSAGE_DELIVERY_QUEUE, WEBHOOK_DELIVERY_QUEUE, PG_BOSS_SCHEDULES_QUEUE];
}

/**
 * Makes every queue of jobQueueNames, as the jobs' start does (pg-boss's createQueue: a queue's row
 * and its table), in a database whose job-queue schema is installed: the build's PGlite template,
 * so that a first start finds them made (on PGlite, making them was about a second of it).
 */
export const makeJobQueues: MakeQueues = async (executeSql) => {
  const boss = new PgBoss({ db: { executeSql }, schema: JOB_QUEUE_SCHEMA } as PgBoss.ConstructorOptions);
  for (const queue of jobQueueNames()) await boss.createQueue(queue);
};

/** A pg-boss queue: its name, its schedule, and what a run does. */
interface Queue {
  queue: string;
  cron: string;
  run: () => Promise<void>;
}

/**
 * Every queue. Due work runs for every scope: live mode and untouched test modes by the base
 * clock, then each merchant whose test clock was advanced, by that merchant's clock.
 */
function queuesOf(database: TillDatabase, clock: Clock, logger: Logger, scheduled: ScheduledWork[]): Record<Exclude<QueueId, 'messageDelivery'>, Queue> {
  const db = database.db;
  const due = Object.fromEntries(
    scheduled.map((kind) => [
      kind.id,
      {
        queue: kind.queue,
        cron: kind.cron,
        run: async () => {
          let handled = 0;
          for (const scope of await dueScopes(db)) handled += await kind.run(db, clock, scope);
          if (handled > 0) logger.info({ handled, work: kind.name }, kind.done);
        },
      },
    ]),
  ) as Record<ScheduledWork['id'], Queue>;
  return {
    ...due,
    idempotencyCleanup: {
      ...UPKEEP.idempotencyCleanup,
      run: async () => {
        const n = await deleteExpiredIdempotencyKeys(db, clock);
        if (n > 0) logger.info({ deleted: n }, 'expired idempotency keys deleted');
      },
    },
    rateLimitCleanup: {
      ...UPKEEP.rateLimitCleanup,
      run: () => deleteExpiredRateLimits(database),
    },
    // Request logs are kept 30 days of wall-clock time: a sandbox clock never moves them.
    requestLogRetention: {
      ...UPKEEP.requestLogRetention,
      run: async () => {
        const n = await deleteExpiredRequestLogs(db, clock.now());
        if (n > 0) logger.info({ deleted: n }, 'request logs past their 30 days deleted');
      },
    },
  };
}
