// The retry schedule: what an attempt makes of a delivery.
import type { AttemptKind } from './delivery.repository.js';
import type { WebhookDeliveryRow } from './webhook.tables.js';

/** After the first attempt fails: retries after 1 min, 5 min, 30 min, 2 h, 8 h and 24 h, then dead-lettered. */
export const RETRY_DELAYS_SECONDS = [60, 5 * 60, 30 * 60, 2 * 3600, 8 * 3600, 24 * 3600] as const;

const at = (date: Date, seconds: number) => new Date(date.getTime() + seconds * 1000);

/** What an attempt makes of a delivery: its status, when the next automatic attempt is due, how many automatic attempts it has had. */
export function stateAfterAttempt(
  delivery: Pick<WebhookDeliveryRow, 'status' | 'next_attempt_at' | 'automatic_attempts'>,
  kind: AttemptKind,
  attemptedAt: Date,
  ok: boolean,
) {
  let status = delivery.status;
  let nextAttemptAt = delivery.next_attempt_at;
  let automatic = delivery.automatic_attempts;
  if (kind === 'automatic') {
    automatic += 1;
    if (ok) {
      status = 'succeeded';
      nextAttemptAt = null;
    } else if (automatic <= RETRY_DELAYS_SECONDS.length) {
      status = 'failed';
      nextAttemptAt = at(attemptedAt, RETRY_DELAYS_SECONDS[automatic - 1]!);
    } else {
      status = 'dead_lettered';
      nextAttemptAt = null;
    }
  } else if (ok) {
    status = 'succeeded';
    nextAttemptAt = null;
  }
  return { status, nextAttemptAt, automatic };
}
