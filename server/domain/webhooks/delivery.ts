// Webhook delivery: the one path every attempt takes, whether the job sends a hundred at once, the
// sandbox clock runs the retries that fall due, or a merchant sends a test event or re-sends one.
// An attempt is claimed (so two workers never send it at once), sent (signature, timeout, SSRF
// check: sender.ts), and recorded with the retry schedule (or dead-letter); a single attempt is a
// batch of one.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { WebhookDeliveryRow } from './webhook.tables.js';
import { baseClock, type Clock, clockAhead } from '../../shared/clock.js';
import { catchUpTime, type DueScope } from '../../shared/due-scope.js';
import { contextOfTraceparent, inSpan, SpanKind, tracingEnabled } from '../../shared/tracing.js';
import type { EventRecord } from '../events/event.service.js';
import { bodiesOf } from './delivery-bodies.js';
import { type AttemptKind, type AttemptRecord, claimDeliveryRows, type ClaimedRow, recordAttemptIds, recordAttemptRows } from './delivery.repository.js';
import { type AttemptOutcome, sendWebhook } from './sender.js';
import { stateAfterAttempt } from './retry-schedule.js';

export type { AttemptKind };

/** What delivery needs from the configuration, and how an event becomes the body it sends. */
export interface DeliverySettings {
  /** `TILL_ALLOW_LOOPBACK_WEBHOOKS`: test-mode deliveries may reach loopback addresses. */
  allowLoopbackWebhooks: boolean;
  /** `TILL_WEBHOOK_TIMEOUT_MS` (30 s by default). */
  webhookTimeoutMs: number;
  /** The request body of an event: the interface's payload for it (the edge renders it). */
  render: (event: EventRecord) => string;
}

/**
 * How long a worker holds a delivery it is attempting: the timeout, plus 15 s to record the
 * attempt. One that dies lets it go after this, and the sweep (at start and every minute) sends it
 * again; a worker slower than that may overlap with the re-send, which receivers de-duplicate.
 */
export const LOCK_MARGIN_SECONDS = 15;
export const lockSeconds = (settings: Pick<DeliverySettings, 'webhookTimeoutMs'>) => Math.ceil(settings.webhookTimeoutMs / 1000) + LOCK_MARGIN_SECONDS;

const at = (date: Date, seconds: number) => new Date(date.getTime() + seconds * 1000);

/** What a claimed delivery reads of its event: all but the subject, which its body renders. */
export type DeliveredEvent = Omit<EventRecord, 'subject'>;

/** A delivery claimed for an attempt, with its event, the body it sends and where it goes now. */
export interface ClaimedDelivery {
  kind: AttemptKind;
  delivery: WebhookDeliveryRow;
  event: DeliveredEvent;
  /** The request body: the event as the settings' `render` made it. */
  body: string;
  /** The configuration's current URL and secret for the delivery's mode, or the session's; undefined when there is none. */
  target: { url: string; secret: string } | undefined;
  /** When the attempt is made, by its merchant's clock in its mode: the time in the delivery log. */
  attemptedAt: Date;
  /** The same instant in wall time: the transport timestamps of the request. */
  sentAt: Date;
  /** The trace of the request (or job) that wrote the event: the attempt's span continues it. */
  traceparent: string | null;
}

/** A claimed delivery and what its attempt came to. */
export interface AttemptResult {
  claimed: ClaimedDelivery;
  outcome: AttemptOutcome;
}

/** Where a claimed delivery goes now: the configuration's current URL and secret for its mode, or its session's. */
function targetOf(row: ClaimedRow): ClaimedDelivery['target'] {
  if (row.configuration_id !== null) {
    const url = row.livemode ? row.c_live_url : row.c_sandbox_url;
    return row.c_id !== null && url ? { url, secret: (row.livemode ? row.c_live_secret : row.c_sandbox_secret)! } : undefined;
  }
  if (row.payment_link_id !== null)
    return row.l_notification_url && row.l_notification_secret ? { url: row.l_notification_url, secret: row.l_notification_secret } : undefined;
  const ownSession = row.s_merchant_id === row.merchant_id;
  return ownSession && row.s_notification_url && row.s_notification_secret ? { url: row.s_notification_url, secret: row.s_notification_secret } : undefined;
}

/**
 * Claims, in one statement, those of `ids` that may be attempted now: automatic attempts need the
 * delivery due by its merchant's clock, its configuration enabled (test sends and session
 * deliveries excepted) and not held by a worker; a re-send needs it failed or dead-lettered. Ids it
 * could not claim are left out. With a sandbox scope that catches up (the sandbox clock's), an
 * automatic attempt is made at the time it fell due (catchUpTime), not at the clock's now.
 */
export async function claimDeliveries(
  db: Kysely<Database>,
  clock: Clock,
  settings: Pick<DeliverySettings, 'webhookTimeoutMs' | 'render'>,
  ids: string[],
  kind: AttemptKind = 'automatic',
  scope?: DueScope,
): Promise<ClaimedDelivery[]> {
  if (ids.length === 0) return [];
  // Holds and transport timestamps are wall time; the log's times are the merchant's in its mode.
  const base = baseClock(clock);
  const now = base.now();
  const rows = await claimDeliveryRows(db, ids, kind, now, at(now, lockSeconds(settings)));
  const bodies = await bodiesOf(db, settings.render, [...new Set(rows.map((row) => row.event_id))]);
  return rows.map((row) => {
    const {
      sandbox_offset,
      e_merchant_id,
      e_livemode,
      e_type,
      e_api_version,
      e_created_at,
      e_traceparent,
      // The target's columns, left out of the delivery (targetOf reads them from the row).
      c_id: _cId,
      c_sandbox_url: _cSandboxUrl,
      c_sandbox_secret: _cSandboxSecret,
      c_live_url: _cLiveUrl,
      c_live_secret: _cLiveSecret,
      s_merchant_id: _sMerchantId,
      s_notification_url: _sNotificationUrl,
      s_notification_secret: _sNotificationSecret,
      l_notification_url: _lNotificationUrl,
      l_notification_secret: _lNotificationSecret,
      ...delivery
    } = row;
    return {
      kind,
      delivery,
      event: { id: delivery.event_id, merchant_id: e_merchant_id, livemode: e_livemode, type: e_type, api_version: e_api_version, created_at: e_created_at },
      body: bodies.get(delivery.event_id)!,
      target: targetOf(row),
      attemptedAt:
        scope && kind === 'automatic' && delivery.next_attempt_at
          ? catchUpTime(clock, scope, delivery.next_attempt_at)
          : clockAhead(base, sandbox_offset).now(),
      sentAt: base.now(),
      traceparent: e_traceparent,
    };
  });
}

/**
 * Sends one claimed delivery (or records `no_url` when it has nowhere to go); never throws. With
 * tracing on, the attempt is a span in the trace of the request that wrote the event.
 */
export function sendClaimed(claimed: ClaimedDelivery, settings: DeliverySettings): Promise<AttemptOutcome> {
  if (!tracingEnabled()) return sendNow(claimed, settings);
  const { delivery, event } = claimed;
  const attributes = {
    'till.event.id': event.id,
    'till.event.type': event.type,
    'till.webhook.delivery_id': delivery.id,
    'till.webhook.attempt': claimed.kind,
  };
  return inSpan('webhook delivery', { kind: SpanKind.PRODUCER, attributes, parent: contextOfTraceparent(claimed.traceparent) }, async (span) => {
    const outcome = await sendNow(claimed, settings);
    span?.setAttribute('till.webhook.outcome', outcome.ok ? 'succeeded' : (outcome.error ?? 'failed'));
    if (outcome.httpStatus !== null) span?.setAttribute('http.response.status_code', outcome.httpStatus);
    return outcome;
  });
}

async function sendNow(claimed: ClaimedDelivery, settings: DeliverySettings): Promise<AttemptOutcome> {
  const { delivery, event, body, target, sentAt } = claimed;
  if (!target) return { ok: false, httpStatus: null, durationMs: 0, responseSnippet: null, error: 'no_url' };
  return sendWebhook({
    url: target.url,
    secret: target.secret,
    eventId: event.id,
    eventType: event.type,
    body,
    timestamp: Math.floor(sentAt.getTime() / 1000),
    timeoutMs: settings.webhookTimeoutMs,
    allowLoopback: settings.allowLoopbackWebhooks && !delivery.livemode,
  });
}

/** When an attempt's delivery stays held: until then, for its next automatic attempt (see AttemptRecord's holdUntil); null to release it. */
export type HoldAfter = (claimed: ClaimedDelivery, after: Pick<AttemptRecord, 'status' | 'nextAttemptAt'>) => Date | null;

const release: HoldAfter = () => null;

const recordOf = ({ claimed, outcome }: AttemptResult, holdAfter: HoldAfter): AttemptRecord => {
  const { status, nextAttemptAt, automatic } = stateAfterAttempt(claimed.delivery, claimed.kind, claimed.attemptedAt, outcome.ok);
  return {
    deliveryId: claimed.delivery.id,
    status,
    nextAttemptAt,
    automaticAttempts: automatic,
    url: claimed.target?.url ?? claimed.delivery.url,
    attemptedAt: claimed.attemptedAt,
    ...outcome,
    requestHeaders: outcome.requestHeaders ?? null,
    holdUntil: holdAfter(claimed, { status, nextAttemptAt }),
  };
};

/** An attempt as recorded: its delivery, its event, the state the attempt left the delivery in, and its hold (null: released). */
export type RecordedAttempt = Pick<WebhookDeliveryRow, 'id' | 'event_id' | 'status' | 'next_attempt_at' | 'automatic_attempts' | 'locked_until'>;

/**
 * Records attempts: the attempt log and each delivery's new state (the retry schedule), with the
 * claim released (or kept, as `holdAfter` says), in one statement. Should that statement fail,
 * each attempt is recorded on its own, so that one bad row cannot hold back the others; an attempt
 * that still cannot be recorded goes to `onError` and keeps its claim until it passes, and is then
 * attempted again. Answers the attempts recorded (those of deleted deliveries are left out).
 */
export async function recordAttempts(
  db: Kysely<Database>,
  results: AttemptResult[],
  onError: (err: unknown, deliveryId: string) => void,
  holdAfter: HoldAfter = release,
): Promise<RecordedAttempt[]> {
  const records = results.map((result) => recordOf(result, holdAfter));
  const recorded = new Map((await recordEach(records, (batch) => recordAttemptIds(db, batch), onError)).map((row) => [row.id, row.locked_until]));
  return results.flatMap((result, i) => {
    const { deliveryId, status, nextAttemptAt, automaticAttempts } = records[i]!;
    if (!recorded.has(deliveryId)) return [];
    const lockedUntil = recorded.get(deliveryId) ?? null;
    return [
      {
        id: deliveryId,
        event_id: result.claimed.delivery.event_id,
        status,
        next_attempt_at: nextAttemptAt,
        automatic_attempts: automaticAttempts,
        locked_until: lockedUntil,
      },
    ];
  });
}

/** Records attempts with `record` as recordAttempts says: all in one statement, else each on its own. */
async function recordEach<T>(
  records: AttemptRecord[],
  record: (records: AttemptRecord[]) => Promise<T[]>,
  onError: (err: unknown, deliveryId: string) => void,
): Promise<T[]> {
  if (records.length === 0) return [];
  try {
    return await record(records);
  } catch (err) {
    if (records.length === 1) {
      onError(err, records[0]!.deliveryId);
      return [];
    }
  }
  const recorded: T[] = [];
  for (const one of records) {
    try {
      recorded.push(...(await record([one])));
    } catch (err) {
      onError(err, one.deliveryId);
    }
  }
  return recorded;
}

/** Runs tasks with at most `width` at a time. */
async function inParallel<T, R>(items: T[], width: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await task(items[i]!);
      }
    }),
  );
  return results;
}

/** Sends claimed deliveries, at most `concurrency` at once: each with what its attempt came to. */
export async function sendAll(claimed: ClaimedDelivery[], settings: DeliverySettings, concurrency: number): Promise<AttemptResult[]> {
  const outcomes = await inParallel(claimed, concurrency, (c) => sendClaimed(c, settings));
  return claimed.map((c, i) => ({ claimed: c, outcome: outcomes[i]! }));
}

const failOnError = (err: unknown) => {
  throw err;
};

/** Records attempts as recordAttempts does, failing when one of them cannot be recorded. */
export const recordAll = (db: Kysely<Database>, results: AttemptResult[], holdAfter?: HoldAfter): Promise<RecordedAttempt[]> =>
  recordAttempts(db, results, failOnError, holdAfter);

/** One attempt of one delivery: the delivery after it, or undefined when it could not be claimed. */
export async function attemptDelivery(
  db: Kysely<Database>,
  clock: Clock,
  settings: DeliverySettings,
  deliveryId: string,
  kind: AttemptKind = 'automatic',
): Promise<WebhookDeliveryRow | undefined> {
  const results = await sendAll(await claimDeliveries(db, clock, settings, [deliveryId], kind), settings, 1);
  return (
    await recordEach(
      results.map((result) => recordOf(result, release)),
      (records) => recordAttemptRows(db, records),
      failOnError,
    )
  )[0];
}
