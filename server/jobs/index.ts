import PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { Clock } from '../shared/clock.js';
import type { TillDatabase } from '../db/database.js';
import { lapseDueHolds } from '../domain/payments/hold.service.js';
import { settleDuePayments } from '../domain/payments/refund.service.js';
import { completeDueWalletRefunds } from '../domain/payments/wallet.service.js';
import { expireDueSessions } from '../domain/sessions/session.service.js';
import { deleteExpiredIdempotencyKeys } from '../http/idempotency.js';
import type { DeliverySettings } from '../domain/webhooks/delivery.service.js';
import { loadConfig } from '../config.js';
import { type DueScope, dueScopes } from '../domain/sandbox/scope.js';
import { startWebhookJobs } from './webhooks.js';

/** Every queue Till runs, with its schedule. Later capabilities add theirs here. */
export const QUEUES = {
  idempotencyCleanup: { name: 'idempotency-cleanup', cron: '17 * * * *' },
  rateLimitCleanup: { name: 'rate-limit-cleanup', cron: '*/10 * * * *' },
  sessionExpiry: { name: 'session-expiry', cron: '* * * * *' },
  holdLapse: { name: 'hold-lapse', cron: '*/5 * * * *' },
  settlement: { name: 'settlement', cron: '7 * * * *' },
  walletRefunds: { name: 'wallet-refunds', cron: '* * * * *' },
  webhookSweep: { name: 'webhook-sweep', cron: '* * * * *' },
} as const;

export interface Jobs {
  boss: PgBoss;
  /** Runs a queue's work now (tests, and the sandbox clock later). */
  runNow(queue: keyof typeof QUEUES): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts pg-boss on the same database as the app. On PGlite it runs through `db.executeSql`;
 * statements without parameters may be several at once, which PGlite runs with `exec`.
 */
export async function startJobs(database: TillDatabase, clock: Clock, logger: Logger, settings: DeliverySettings = loadConfig()): Promise<Jobs> {
  const boss = new PgBoss({
    db: {
      executeSql: (text: string, values?: unknown[]) => (values && values.length > 0 ? database.sql.query(text, values) : database.sql.execRows(text)),
    },
    schema: 'pgboss',
    // Workers poll every few seconds; maintenance and cron checks are pg-boss defaults.
  } as PgBoss.ConstructorOptions);
  boss.on('error', (err) => logger.error({ err }, 'job queue error'));
  await boss.start();
  const webhooks = await startWebhookJobs(boss, database, clock, settings, logger);

  /**
   * Runs time-driven work for every scope: live mode and untouched test modes by the base clock,
   * then each merchant whose test clock was advanced, by that merchant's clock.
   */
  const forEachScope = async (run: (scope: DueScope) => Promise<number>) => {
    let total = 0;
    for (const scope of await dueScopes(database.db)) total += await run(scope);
    return total;
  };

  const work: Record<keyof typeof QUEUES, () => Promise<void>> = {
    idempotencyCleanup: async () => {
      const n = await deleteExpiredIdempotencyKeys(database.db, clock);
      if (n > 0) logger.info({ deleted: n }, 'expired idempotency keys deleted');
    },
    sessionExpiry: async () => {
      const n = await forEachScope((scope) => expireDueSessions(database.db, clock, scope));
      if (n > 0) logger.info({ expired: n }, 'checkout sessions expired');
    },
    holdLapse: async () => {
      const n = await forEachScope((scope) => lapseDueHolds(database.db, clock, scope));
      if (n > 0) logger.info({ lapsed: n }, 'card holds lapsed');
    },
    settlement: async () => {
      const n = await forEachScope((scope) => settleDuePayments(database.db, clock, scope));
      if (n > 0) logger.info({ settled: n }, 'payments settled');
    },
    walletRefunds: async () => {
      const n = await forEachScope((scope) => completeDueWalletRefunds(database.db, clock, scope));
      if (n > 0) logger.info({ completed: n }, 'wallet refunds completed');
    },
    webhookSweep: async () => {
      const n = await forEachScope((scope) => webhooks.sweep(scope));
      if (n > 0) logger.info({ attempted: n }, 'due webhook deliveries attempted');
    },
    rateLimitCleanup: async () => {
      await database.sql.query('DELETE FROM rate_limits WHERE expire < $1', [Date.now()]);
    },
  };
  for (const [id, queue] of Object.entries(QUEUES) as [keyof typeof QUEUES, (typeof QUEUES)[keyof typeof QUEUES]][]) {
    await boss.createQueue(queue.name);
    await boss.work(queue.name, async () => {
      await work[id]();
    });
    await boss.schedule(queue.name, queue.cron);
  }
  // Deliveries left waiting by a process that stopped or died are due now: attempt them at once
  // rather than at the next minute.
  void work.webhookSweep().catch((err: unknown) => logger.error({ err }, 'webhook sweep at start failed'));
  return {
    boss,
    runNow: (queue) => work[queue](),
    stop: async () => {
      await webhooks.stop();
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
    },
  };
}
