import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { TillDatabase } from '../db/database.js';
import { type DueScope, GLOBAL_SCOPE } from '../domain/sandbox/scope.js';
import { attemptDelivery, type DeliverySettings, dispatchPendingEvents, dueDeliveries } from '../domain/webhooks/delivery.service.js';

/** One pg-boss job per delivery attempt; retries are sent with `startAfter` at their due time. */
export const WEBHOOK_DELIVERY_QUEUE = 'webhook-delivery';
/** How often the outbox (the events table) is polled for new events. */
const DISPATCH_INTERVAL_MS = 1000;

export interface WebhookJobs {
  /** Attempts the scope's deliveries that are due now and schedules their retries (the minutely sweep). */
  sweep(scope?: DueScope): Promise<number>;
  stop(): void;
}

/**
 * Webhook delivery on pg-boss. Every second the outbox is fanned out into deliveries and each
 * new delivery becomes a job; a failed attempt sends the next one with `startAfter` (from the
 * Clock). The deliveries table is the truth: a job lost in a crash, or a delivery held by a worker
 * that died, is picked up by the sweep once it is due, so a killed process loses nothing.
 */
export async function startWebhookJobs(boss: PgBoss, database: TillDatabase, clock: Clock, settings: DeliverySettings, logger: Logger): Promise<WebhookJobs> {
  const db = database.db;
  const attempt = async (id: string) => {
    const after = await attemptDelivery(db, clock, settings, id);
    if (after?.status === 'failed' && after.next_attempt_at) {
      await boss.send(WEBHOOK_DELIVERY_QUEUE, { deliveryId: id }, { startAfter: after.next_attempt_at, singletonKey: `${id}:${after.automatic_attempts}` });
    } else if (after?.status === 'dead_lettered') {
      logger.warn({ deliveryId: id, eventId: after.event_id }, 'webhook delivery dead-lettered');
    }
    return after !== undefined;
  };

  await boss.createQueue(WEBHOOK_DELIVERY_QUEUE);
  await boss.work<{ deliveryId: string }>(WEBHOOK_DELIVERY_QUEUE, { batchSize: 16, pollingIntervalSeconds: 0.5 }, async (jobs) => {
    await Promise.all(jobs.map((job) => attempt(job.data.deliveryId)));
  });

  let running = false;
  let stopped = false;
  const dispatch = async () => {
    if (running || stopped) return;
    running = true;
    try {
      const ids = await dispatchPendingEvents(db, clock);
      for (let i = 0; i < ids.length; i += 500) {
        await boss.insert(ids.slice(i, i + 500).map((deliveryId) => ({ name: WEBHOOK_DELIVERY_QUEUE, data: { deliveryId } })));
      }
    } catch (err) {
      logger.error({ err }, 'webhook dispatch failed');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void dispatch(), DISPATCH_INTERVAL_MS);
  timer.unref();

  return {
    async sweep(scope = GLOBAL_SCOPE) {
      let n = 0;
      for (const id of await dueDeliveries(db, clock, scope)) if (await attempt(id)) n += 1;
      return n;
    },
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
