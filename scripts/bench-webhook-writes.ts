// The webhook bench's writes: full card payments through the API, or events inserted into the outbox at
// a fixed rate; what they came to; and the events the database holds.
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { isInterrupted, message, positiveInt, sleep } from './bench-lib.js';
import { type TillProcess } from './bench-till.js';
import { payInLoops } from './bench-payments.js';

/** Events written per second by the outbox case. */
export const WEBHOOK_RATE = positiveInt('BENCH_WEBHOOK_RATE', 600);
/** Connections (and inserts in flight) of the outbox case's writer. */
export const OUTBOX_WRITERS = 16;
/** Events one insert of the outbox case carries at most (when it is behind its rate). */
const OUTBOX_BATCH = 50;

/** What the writes of a case came to, so far. */
export interface WriteTally {
  /** Events written (known to the writer: two per confirmed session, one per outbox insert). */
  written: number;
  failed: number;
  samples: string[];
}

function recordFailure(tally: WriteTally, error: unknown): void {
  tally.failed += 1;
  const text = message(error).slice(0, 300);
  if (tally.samples.length < 3 && !tally.samples.includes(text)) tally.samples.push(text);
}

/**
 * The API case's writes: CONNECTIONS loops of full card payments (bench-payments.ts) until
 * `deadline`. Each confirm writes `payment.succeeded` and `checkout.session.completed`.
 */
export async function writeThroughApi(till: TillProcess, deadline: number, tally: WriteTally): Promise<void> {
  await payInLoops(
    till,
    deadline,
    () => {
      tally.written += 2;
    },
    (error) => recordFailure(tally, error),
  );
}

/** Makes an id in the shape of Till's (`evt_` and 24 letters and digits). */
function eventId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return `evt_${Array.from(randomBytes(24), (b) => alphabet[b % alphabet.length]).join('')}`;
}

/**
 * The outbox case's writes: WEBHOOK_RATE events a second inserted into the `events` table (the
 * outbox) with the columns Till's `writeEvent` writes, `created` set just before the insert, until
 * `deadline`. It stands for many API processes writing at once: the API of one process on this
 * machine cannot write that many. At most OUTBOX_WRITERS inserts are in flight, one per pooled
 * connection, so that none waits for a connection after its `created` is set; an insert carries
 * every event that is due (up to OUTBOX_BATCH), so a high rate (to find the delivery's ceiling
 * against the webhook floor) is not capped by one insert per round trip.
 */
export async function writeToOutbox(
  pool: pg.Pool,
  template: { merchantId: number; type: string; apiVersion: string; data: unknown },
  deadline: number,
  tally: WriteTally,
): Promise<void> {
  const started = Date.now();
  const data = JSON.stringify(template.data);
  const inFlight = new Set<Promise<void>>();
  let issued = 0;
  while (Date.now() < deadline && !isInterrupted()) {
    const due = Math.floor(((Date.now() - started) / 1000) * WEBHOOK_RATE);
    while (issued < due && inFlight.size < OUTBOX_WRITERS) {
      const count = Math.min(due - issued, OUTBOX_BATCH);
      issued += count;
      const ids = Array.from({ length: count }, eventId);
      const insert = pool
        .query(
          'INSERT INTO events (id, merchant_id, livemode, type, api_version, data, session_id, payment_id, created_at) SELECT id, $2, false, $3, $4, $5, NULL, NULL, $6 FROM unnest($1::text[]) AS id',
          [ids, template.merchantId, template.type, template.apiVersion, data, new Date()],
        )
        .then(
          () => {
            tally.written += count;
          },
          (error: unknown) => recordFailure(tally, error),
        )
        .finally(() => inFlight.delete(insert));
      inFlight.add(insert);
    }
    await (inFlight.size >= OUTBOX_WRITERS ? Promise.race(inFlight) : sleep(2));
  }
  await Promise.all(inFlight);
}

/** Events of the merchant in the database (`webhook.test` aside): id → `created` in epoch ms. */
export async function storedEvents(pool: pg.Pool, merchantId: number): Promise<Map<string, number>> {
  const { rows } = await pool.query<{ id: string; created_at: Date }>(`SELECT id, created_at FROM events WHERE merchant_id = $1 AND type <> 'webhook.test'`, [
    merchantId,
  ]);
  return new Map(rows.map((r) => [r.id, r.created_at.getTime()]));
}
