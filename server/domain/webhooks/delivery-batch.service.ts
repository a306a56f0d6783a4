import { type Kysely, sql } from 'kysely';
import { baseClock, type Clock, clockAhead } from '../../shared/clock.js';
import type { Database } from '../../db/schema.js';
import { eventEnvelope } from '../events/event.service.js';
import type { EventRow } from '../../db/tables/events.js';
import { claimable, type DeliverySettings, lockSeconds, sandboxOffsetOfDelivery, stateAfterAttempt } from './delivery.service.js';
import { type AttemptOutcome, sendWebhook } from './sender.js';
import type { WebhookDeliveryRow } from '../../db/tables/webhooks.js';

// Automatic attempts in batches, for the delivery job: the same rules as `attemptDelivery`
// (claim, current target, send, record), with one statement to claim many deliveries and one to
// record many attempts instead of seven round trips per attempt. Re-sends, test events and
// `deliverDueWebhooks` keep using `attemptDelivery`.

/** A delivery claimed for an automatic attempt, with its event and where it goes now. */
export interface ClaimedDelivery {
  delivery: WebhookDeliveryRow;
  event: EventRow;
  /** The configuration's current URL and secret for the delivery's mode, or the session's; undefined when there is none. */
  target: { url: string; secret: string } | undefined;
  /** When the attempt is made (after the claim), by its merchant's clock in its mode: the time in the delivery log. */
  attemptedAt: Date;
  /** The same instant in wall time (the base clock): the transport timestamps of the request. */
  sentAt: Date;
}

/** Whether the outbox holds an event not fanned out yet: one cheap look (a partial index), for polling. */
export async function hasUndispatchedEvents(db: Kysely<Database>): Promise<boolean> {
  const row = await db.selectFrom('events').select('id').where('dispatched_at', 'is', null).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** A claimed delivery and what its attempt came to. */
export interface AttemptResult {
  claimed: ClaimedDelivery;
  outcome: AttemptOutcome;
}

const at = (date: Date, seconds: number) => new Date(date.getTime() + seconds * 1000);

/**
 * Claims, in one statement, those of `ids` that are due for an automatic attempt now, exactly as
 * `attemptDelivery` would (pending or failed, due, not held by a worker, and the configuration
 * enabled unless it is a test send or a session's delivery), and reads their events and current
 * targets with them. Ids it could not claim are left out.
 */
export async function claimDueDeliveries(db: Kysely<Database>, clock: Clock, settings: DeliverySettings, ids: string[]): Promise<ClaimedDelivery[]> {
  if (ids.length === 0) return [];
  const base = baseClock(clock);
  const now = base.now();
  const rows = await db
    .with('claimed', (qb) =>
      qb
        .updateTable('webhook_deliveries')
        .set({ locked_until: at(now, lockSeconds(settings)) })
        .where('id', 'in', ids)
        .where(claimable('automatic', now))
        .returningAll()
        .returning(sandboxOffsetOfDelivery.as('sandbox_offset')),
    )
    .selectFrom('claimed as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .leftJoin('webhook_configurations as c', 'c.id', 'd.configuration_id')
    .leftJoin('checkout_sessions as s', (join) => join.onRef('s.id', '=', 'd.session_id').onRef('s.merchant_id', '=', 'd.merchant_id'))
    .selectAll('d')
    .select([
      'e.id as e_id',
      'e.merchant_id as e_merchant_id',
      'e.livemode as e_livemode',
      'e.type as e_type',
      'e.api_version as e_api_version',
      'e.data as e_data',
      'e.session_id as e_session_id',
      'e.payment_id as e_payment_id',
      'e.created_at as e_created_at',
      'e.dispatched_at as e_dispatched_at',
      'e.seq as e_seq',
      'c.id as c_id',
      'c.sandbox_url as c_sandbox_url',
      'c.sandbox_secret as c_sandbox_secret',
      'c.live_url as c_live_url',
      'c.live_secret as c_live_secret',
      's.notification_url as s_notification_url',
      's.notification_secret as s_notification_secret',
    ])
    .execute();
  return rows.map((r) => {
    const { sandbox_offset, e_id, e_merchant_id, e_livemode, e_type, e_api_version, e_data, e_session_id, e_payment_id, e_created_at, e_dispatched_at, e_seq, c_id, c_sandbox_url, c_sandbox_secret, c_live_url, c_live_secret, s_notification_url, s_notification_secret, ...delivery } = r;
    const event: EventRow = { id: e_id, merchant_id: e_merchant_id, livemode: e_livemode, type: e_type, api_version: e_api_version, data: e_data, session_id: e_session_id, payment_id: e_payment_id, created_at: e_created_at, dispatched_at: e_dispatched_at, seq: e_seq };
    let target: ClaimedDelivery['target'];
    if (delivery.configuration_id !== null) {
      const url = delivery.livemode ? c_live_url : c_sandbox_url;
      if (c_id !== null && url) target = { url, secret: (delivery.livemode ? c_live_secret : c_sandbox_secret)! };
    } else if (s_notification_url && s_notification_secret) {
      target = { url: s_notification_url, secret: s_notification_secret };
    }
    return { delivery, event, target, attemptedAt: clockAhead(base, sandbox_offset).now(), sentAt: base.now() };
  });
}

/** Sends one claimed delivery (or records `no_url` when it has nowhere to go); never throws. */
export async function sendClaimed(claimed: ClaimedDelivery, settings: DeliverySettings): Promise<AttemptOutcome> {
  const { delivery, event, target, sentAt } = claimed;
  if (!target) return { ok: false, httpStatus: null, durationMs: 0, responseSnippet: null, error: 'no_url' };
  return sendWebhook({
    url: target.url,
    secret: target.secret,
    eventId: event.id,
    eventType: event.type,
    body: JSON.stringify(eventEnvelope(event)),
    timestamp: Math.floor(sentAt.getTime() / 1000),
    timeoutMs: settings.webhookTimeoutMs,
    allowLoopback: settings.allowLoopbackWebhooks && !delivery.livemode,
  });
}

/** Records the attempts in one statement: each delivery's new state, then its attempt-log row. */
async function recordTogether(db: Kysely<Database>, results: AttemptResult[]): Promise<WebhookDeliveryRow[]> {
  const values = results.map(({ claimed, outcome }) => {
    const { status, nextAttemptAt, automatic } = stateAfterAttempt(claimed.delivery, 'automatic', claimed.attemptedAt, outcome.ok);
    const url = claimed.target?.url ?? claimed.delivery.url;
    return sql`(${claimed.delivery.id}::text, ${status}::text, ${nextAttemptAt}::timestamptz, ${automatic}::integer, ${url}::text, ${claimed.attemptedAt}::timestamptz, ${outcome.httpStatus}::integer, ${outcome.durationMs}::integer, ${outcome.responseSnippet}::text, ${outcome.error}::text)`;
  });
  // The update comes first and locks each delivery it finds, so an attempt is logged only for a
  // delivery that still exists (its configuration may have been deleted meanwhile).
  const { rows } = await sql<WebhookDeliveryRow>`
    WITH v (id, status, next_attempt_at, automatic_attempts, url, attempted_at, http_status, duration_ms, response_snippet, error) AS (VALUES ${sql.join(values)}),
    updated AS (
      UPDATE webhook_deliveries d
      SET status = v.status, next_attempt_at = v.next_attempt_at, automatic_attempts = v.automatic_attempts, attempt_count = d.attempt_count + 1, url = v.url, locked_until = NULL, updated_at = v.attempted_at
      FROM v WHERE d.id = v.id
      RETURNING d.*
    ),
    logged AS (
      INSERT INTO webhook_delivery_attempts (delivery_id, attempted_at, url, http_status, duration_ms, response_snippet, error)
      SELECT v.id, v.attempted_at, v.url, v.http_status, v.duration_ms, v.response_snippet, v.error FROM v JOIN updated u ON u.id = v.id
    )
    SELECT * FROM updated`.execute(db);
  return rows;
}

/**
 * Records automatic attempts: the attempt log and each delivery's new state (the retry schedule
 * of `attemptDelivery`), with the claim released, in one statement. Should that statement fail,
 * each attempt is recorded on its own, so that one bad row cannot hold back the others; an attempt
 * that still cannot be recorded keeps its claim until it passes, and is then attempted again.
 * Returns the deliveries as they are after their attempts (deleted ones are left out).
 */
export async function recordAttempts(db: Kysely<Database>, results: AttemptResult[], onError: (err: unknown, deliveryId: string) => void): Promise<WebhookDeliveryRow[]> {
  if (results.length === 0) return [];
  try {
    return await recordTogether(db, results);
  } catch (err) {
    if (results.length === 1) {
      onError(err, results[0]!.claimed.delivery.id);
      return [];
    }
  }
  const rows: WebhookDeliveryRow[] = [];
  for (const result of results) {
    try {
      rows.push(...(await recordTogether(db, [result])));
    } catch (err) {
      onError(err, result.claimed.delivery.id);
    }
  }
  return rows;
}
