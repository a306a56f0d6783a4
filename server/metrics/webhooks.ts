import type { AttemptResult } from '../domain/webhooks/delivery.js';
import type { WebhookDeliveryRow } from '../domain/webhooks/webhook.tables.js';
import { webhookDeliveries, webhookLag } from './registry.js';

/**
 * Counts recorded automatic attempts by what their delivery became (succeeded, failed: another
 * attempt is scheduled or none is left to make, dead_lettered), and for each success the lag from
 * its event being written to the end of the attempt, both by the merchant's clock in its mode.
 */
export function observeDeliveries(results: AttemptResult[], recorded: Pick<WebhookDeliveryRow, 'id' | 'status'>[]): void {
  const attempts = new Map(results.map((r) => [r.claimed.delivery.id, r]));
  for (const row of recorded) {
    webhookDeliveries.inc({ outcome: row.status });
    const attempt = row.status === 'succeeded' ? attempts.get(row.id) : undefined;
    if (!attempt) continue;
    const { attemptedAt, event } = attempt.claimed;
    const lag = attemptedAt.getTime() + attempt.outcome.durationMs - new Date(event.created_at).getTime();
    webhookLag.observe(Math.max(0, lag) / 1000);
  }
}
