import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../../shared/clock.js';
import type { Database } from '../../db/schema.js';
import { randomToken } from '../../shared/crypto.js';

/** The `apiVersion` every event carries (a date, `YYYY-MM-DD`). */
export const API_VERSION = '2026-11-01';

export interface NewEvent {
  merchantId: number;
  livemode: boolean;
  type: string;
  /** The envelope's `data.object`, with its `object` discriminator. */
  object: Record<string, unknown>;
  sessionId?: string | null;
  paymentId?: number | null;
}

const writtenListeners = new Set<() => void>();

/**
 * Calls `listener` each time this process writes an event, before the writing transaction
 * commits: the webhook fan-out looks at the outbox a moment later instead of at its next poll.
 * Returns a function that stops it.
 */
export function onEventWritten(listener: () => void): () => void {
  writtenListeners.add(listener);
  return () => writtenListeners.delete(listener);
}

/**
 * Writes an event. Call it with the transaction of the change it reports, so that no event is
 * lost and none exists for a change that rolled back.
 */
export async function writeEvent(trx: Transaction<Database> | Kysely<Database>, clock: Clock, event: NewEvent): Promise<string> {
  const id = `evt_${randomToken(24)}`;
  await trx
    .insertInto('events')
    .values({
      id,
      merchant_id: event.merchantId,
      livemode: event.livemode,
      type: event.type,
      api_version: API_VERSION,
      data: JSON.stringify(event.object),
      session_id: event.sessionId ?? null,
      payment_id: event.paymentId ?? null,
      created_at: clock.now(),
    })
    .execute();
  for (const listener of writtenListeners) listener();
  return id;
}

/** The envelope of a stored event, as it is delivered. */
export function eventEnvelope(row: { id: string; type: string; api_version: string; created_at: Date; livemode: boolean; merchant_id: number; data: Record<string, unknown> }) {
  const at = row.created_at.toISOString();
  return { id: row.id, object: 'event' as const, type: row.type, apiVersion: row.api_version, created: at, createdAt: at, livemode: row.livemode, merchantId: row.merchant_id, data: { object: row.data } };
}
