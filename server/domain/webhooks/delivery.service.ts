import { type Insertable, type Kysely, sql, type Transaction } from 'kysely';
import type { components } from '../../../generated/checkout.js';
import { baseClock, type Clock, clockAhead } from '../../shared/clock.js';
import type { Database } from '../../db/schema.js';
import { AppError } from '../../shared/errors.js';
import { eventEnvelope, writeEvent } from '../events/event.service.js';
import type { EventRow } from '../../db/tables/events.js';
import { randomToken } from '../../shared/crypto.js';
import { type DueScope, GLOBAL_SCOPE, inScope, scopedClock } from '../sandbox/scope.js';
import { toPage } from '../../shared/pagination.js';
import { alwaysLive, goesToSessionUrl, subscribed } from './event-types.js';
import { type AttemptOutcome, sendWebhook } from './sender.js';
import { deliveryToCheckout } from './webhook.mapper.js';
import { getConfiguration, type WebhookOwner } from './webhook.service.js';
import type { WebhookDeliveriesTable, WebhookDeliveryRow } from '../../db/tables/webhooks.js';

type Schemas = components['schemas'];
type Db = Kysely<Database> | Transaction<Database>;

/** After the first attempt fails: retries after 1 min, 5 min, 30 min, 2 h, 8 h and 24 h, then dead-lettered. */
export const RETRY_DELAYS_SECONDS = [60, 5 * 60, 30 * 60, 2 * 3600, 8 * 3600, 24 * 3600] as const;

/** What delivery needs from the configuration. */
export interface DeliverySettings {
  /** `TILL_ALLOW_LOOPBACK_WEBHOOKS`: test-mode deliveries may reach loopback addresses. */
  allowLoopbackWebhooks: boolean;
  /** `TILL_WEBHOOK_TIMEOUT_MS` (30 s by default). */
  webhookTimeoutMs: number;
}

/**
 * How long a worker holds a delivery it is attempting: the timeout, plus 15 s to record the
 * attempt. One that dies lets it go after this, and the sweep (at start and every minute) sends it
 * again; a worker slower than that may overlap with the re-send, which receivers de-duplicate.
 */
export const LOCK_MARGIN_SECONDS = 15;
export const lockSeconds = (settings: DeliverySettings) => Math.ceil(settings.webhookTimeoutMs / 1000) + LOCK_MARGIN_SECONDS;

const newDeliveryId = () => `whd_${randomToken(24)}`;
const at = (date: Date, seconds: number) => new Date(date.getTime() + seconds * 1000);

/**
 * The fan-out. Claims undelivered events from the outbox (`FOR UPDATE SKIP LOCKED`, so several
 * workers never take the same one), creates one delivery per matching enabled configuration of
 * the merchant (live events and payouts to the live URL, test events to the sandbox URL) and one
 * to the session's `notificationUrl` for the session's events (creation rule 4), and marks the
 * events dispatched, all in one transaction. Returns the new deliveries' ids. With `testModeOf`,
 * only that merchant's test-mode events.
 */
export async function dispatchPendingEvents(db: Kysely<Database>, clock: Clock, batchSize = 500, testModeOf?: number): Promise<string[]> {
  const ids: string[] = [];
  for (;;) {
    const batch = await dispatchBatch(db, clock, batchSize, testModeOf);
    if (batch.claimed === 0) return ids;
    ids.push(...batch.deliveryIds);
  }
}

/** One batch of the fan-out, in one transaction: how many events it claimed and the deliveries it created. */
export async function dispatchBatch(db: Kysely<Database>, clock: Clock, limit: number, testModeOf?: number): Promise<{ claimed: number; deliveryIds: string[] }> {
  return db.transaction().execute(async (trx) => {
    const ofMerchant = testModeOf === undefined ? sql`` : sql`AND merchant_id = ${testModeOf} AND NOT livemode`;
    const { rows: events } = await sql<EventRow>`SELECT * FROM events WHERE dispatched_at IS NULL ${ofMerchant} ORDER BY seq LIMIT ${limit} FOR UPDATE SKIP LOCKED`.execute(trx);
    if (events.length === 0) return { claimed: 0, deliveryIds: [] };
    const now = baseClock(clock).now();
    const merchantIds = [...new Set(events.map((e) => e.merchant_id))];
    // A merchant that advanced its test clock sees its test-mode deliveries at its own time.
    const offsets = new Map<number, number>();
    for (const r of await trx.selectFrom('sandbox_clocks').select(['merchant_id', 'offset_seconds']).where('merchant_id', 'in', merchantIds).where('offset_seconds', '>', '0').execute()) {
      offsets.set(r.merchant_id, Number(r.offset_seconds));
    }
    const nowFor = (merchantId: number, livemode: boolean) => (livemode ? now : at(now, offsets.get(merchantId) ?? 0));
    const configurations = await trx.selectFrom('webhook_configurations').selectAll().where('merchant_id', 'in', merchantIds).where('enabled', '=', true).orderBy('id').execute();

    // The session of each event: its own, or the one its payment was made through.
    const paymentIds = [...new Set(events.filter((e) => !e.session_id && e.payment_id !== null).map((e) => e.payment_id!))];
    const paymentSession = new Map<number, string>();
    if (paymentIds.length > 0) {
      for (const p of await trx.selectFrom('payments').select(['id', 'session_id', 'merchant_id']).where('id', 'in', paymentIds).execute()) {
        if (p.session_id) paymentSession.set(p.id, p.session_id);
      }
    }
    const sessionOf = (e: EventRow) => e.session_id ?? (e.payment_id !== null ? paymentSession.get(e.payment_id) : undefined) ?? null;
    const sessionIds = [...new Set(events.filter((e) => goesToSessionUrl(e.type)).map(sessionOf).filter((s): s is string => s !== null))];
    const sessions = new Map<string, { merchant_id: number; livemode: boolean; notification_url: string | null }>();
    if (sessionIds.length > 0) {
      for (const s of await trx.selectFrom('checkout_sessions').select(['id', 'merchant_id', 'livemode', 'notification_url']).where('id', 'in', sessionIds).execute()) sessions.set(s.id, s);
    }

    const deliveries: Insertable<WebhookDeliveriesTable>[] = [];
    const base = (e: EventRow, livemode: boolean) => {
      const t = nowFor(e.merchant_id, livemode);
      return { merchant_id: e.merchant_id, livemode, event_id: e.id, event_type: e.type, status: 'pending' as const, next_attempt_at: t, created_at: t, updated_at: t };
    };
    for (const e of events) {
      if (e.type === 'webhook.test') continue; // sent only to the configuration that asked for it
      const live = e.livemode || alwaysLive(e.type);
      for (const c of configurations) {
        if (c.merchant_id !== e.merchant_id || !subscribed(c.subscribed_events, e.type)) continue;
        const url = live ? c.live_url : c.sandbox_url;
        if (url) deliveries.push({ id: newDeliveryId(), ...base(e, live), configuration_id: c.id, session_id: null, url });
      }
      const sessionId = goesToSessionUrl(e.type) ? sessionOf(e) : null;
      const session = sessionId ? sessions.get(sessionId) : undefined;
      if (sessionId && session?.notification_url && session.merchant_id === e.merchant_id && session.livemode === e.livemode) {
        deliveries.push({ id: newDeliveryId(), ...base(e, e.livemode), configuration_id: null, session_id: sessionId, url: session.notification_url });
      }
    }
    for (let i = 0; i < deliveries.length; i += 500) await trx.insertInto('webhook_deliveries').values(deliveries.slice(i, i + 500)).execute();
    await trx
      .updateTable('events')
      .set({ dispatched_at: now })
      .where(
        'id',
        'in',
        events.map((e) => e.id),
      )
      .execute();
    return { claimed: events.length, deliveryIds: deliveries.map((d) => d.id) };
  });
}

/** Where a delivery goes now and under which secret: the configuration's current URL for its mode, or the session's. */
async function currentTarget(db: Db, delivery: WebhookDeliveryRow): Promise<{ url: string; secret: string } | undefined> {
  if (delivery.configuration_id !== null) {
    const c = await db.selectFrom('webhook_configurations').select(['sandbox_url', 'sandbox_secret', 'live_url', 'live_secret']).where('id', '=', delivery.configuration_id).executeTakeFirst();
    if (!c) return undefined;
    const url = delivery.livemode ? c.live_url : c.sandbox_url;
    return url ? { url, secret: delivery.livemode ? c.live_secret : c.sandbox_secret } : undefined;
  }
  const s = await db.selectFrom('checkout_sessions').select(['notification_url', 'notification_secret']).where('id', '=', delivery.session_id!).where('merchant_id', '=', delivery.merchant_id).executeTakeFirst();
  return s?.notification_url && s.notification_secret ? { url: s.notification_url, secret: s.notification_secret } : undefined;
}

export type AttemptKind = 'automatic' | 'resend';

/**
 * One attempt of a delivery. It is first claimed (`locked_until`), so two workers never send it
 * at once and one killed mid-attempt lets it go when the lock passes: nothing is lost, and the
 * receiver de-duplicates on the event id. An automatic attempt needs the delivery due (and its
 * configuration enabled, test sends excepted); a re-send needs it failed or dead-lettered.
 * Returns the delivery as it is after the attempt, or undefined when it could not be claimed.
 */
/**
 * In an UPDATE of `webhook_deliveries`: the seconds the delivery's merchant advanced its test-mode
 * clock (0 for live deliveries and for merchants that never advanced it).
 */
export const sandboxOffsetOfDelivery = sql<string>`CASE WHEN webhook_deliveries.livemode THEN 0 ELSE COALESCE((SELECT sc.offset_seconds FROM sandbox_clocks sc WHERE sc.merchant_id = webhook_deliveries.merchant_id), 0) END`;

/**
 * In an UPDATE of `webhook_deliveries`: the delivery may be claimed for an attempt of this kind at
 * wall time `now`. Automatic: pending or failed, due by its merchant's clock in its mode, its
 * configuration enabled (test sends and session deliveries excepted). Re-send: failed or
 * dead-lettered. Either way not held by another worker (holds are wall time).
 */
export function claimable(kind: AttemptKind, now: Date) {
  const state =
    kind === 'automatic'
      ? sql<boolean>`status IN ('pending', 'failed') AND next_attempt_at <= ${now}::timestamptz + (${sandboxOffsetOfDelivery}) * interval '1 second' AND (configuration_id IS NULL OR event_type = 'webhook.test' OR EXISTS (SELECT 1 FROM webhook_configurations c WHERE c.id = configuration_id AND c.enabled))`
      : sql<boolean>`status IN ('failed', 'dead_lettered')`;
  return sql<boolean>`(${state}) AND (locked_until IS NULL OR locked_until <= ${now}::timestamptz)`;
}

export async function attemptDelivery(db: Kysely<Database>, clock: Clock, settings: DeliverySettings, deliveryId: string, kind: AttemptKind = 'automatic'): Promise<WebhookDeliveryRow | undefined> {
  // Holds and the transport timestamps are wall time (the base clock); whether the delivery is due,
  // and the times in its log, are its merchant's time in its mode (the sandbox clock in test mode).
  const base = baseClock(clock);
  const now = base.now();
  const claimed = await db
    .updateTable('webhook_deliveries')
    .set({ locked_until: at(now, lockSeconds(settings)) })
    .where('id', '=', deliveryId)
    .where(claimable(kind, now))
    .returningAll()
    .returning(sandboxOffsetOfDelivery.as('sandbox_offset'))
    .executeTakeFirst();
  if (!claimed) return undefined;
  const { sandbox_offset: offsetSeconds, ...delivery } = claimed;
  const merchantTime = clockAhead(base, offsetSeconds);

  const event = await db.selectFrom('events').selectAll().where('id', '=', delivery.event_id).executeTakeFirstOrThrow();
  const target = await currentTarget(db, delivery);
  const attemptedAt = merchantTime.now();
  let outcome: AttemptOutcome;
  if (!target) {
    outcome = { ok: false, httpStatus: null, durationMs: 0, responseSnippet: null, error: 'no_url' };
  } else {
    outcome = await sendWebhook({
      url: target.url,
      secret: target.secret,
      eventId: event.id,
      eventType: event.type,
      body: JSON.stringify(eventEnvelope(event)),
      timestamp: Math.floor(base.now().getTime() / 1000),
      timeoutMs: settings.webhookTimeoutMs,
      allowLoopback: settings.allowLoopbackWebhooks && !delivery.livemode,
    });
  }
  return recordAttempt(db, merchantTime, delivery, kind, attemptedAt, target?.url ?? delivery.url, outcome);
}

/** What an attempt makes of a delivery: its status, when the next automatic attempt is due, how many automatic attempts it has had. */
export function stateAfterAttempt(delivery: Pick<WebhookDeliveryRow, 'status' | 'next_attempt_at' | 'automatic_attempts'>, kind: AttemptKind, attemptedAt: Date, ok: boolean) {
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

async function recordAttempt(db: Kysely<Database>, clock: Clock, delivery: WebhookDeliveryRow, kind: AttemptKind, attemptedAt: Date, url: string, outcome: AttemptOutcome): Promise<WebhookDeliveryRow | undefined> {
  const { status, nextAttemptAt, automatic } = stateAfterAttempt(delivery, kind, attemptedAt, outcome.ok);
  return db.transaction().execute(async (trx) => {
    await trx
      .insertInto('webhook_delivery_attempts')
      .values({ delivery_id: delivery.id, attempted_at: attemptedAt, url, http_status: outcome.httpStatus, duration_ms: outcome.durationMs, response_snippet: outcome.responseSnippet, error: outcome.error })
      .execute();
    return trx
      .updateTable('webhook_deliveries')
      .set((eb) => ({
        status,
        next_attempt_at: nextAttemptAt,
        automatic_attempts: automatic,
        attempt_count: eb('attempt_count', '+', 1),
        url,
        locked_until: null,
        updated_at: clock.now(),
      }))
      .where('id', '=', delivery.id)
      .returningAll()
      .executeTakeFirst();
  });
}

/** Deliveries of a scope that wait for an automatic attempt (their configuration enabled, test sends excepted). */
const waitingDeliveries = (db: Kysely<Database>, scope: DueScope) =>
  db
    .selectFrom('webhook_deliveries as d')
    .where('d.status', 'in', ['pending', 'failed'])
    .where(inScope(scope, 'd'))
    .where((eb) =>
      eb.or([
        eb('d.configuration_id', 'is', null),
        eb('d.event_type', '=', 'webhook.test'),
        eb.exists(eb.selectFrom('webhook_configurations as c').select('c.id').whereRef('c.id', '=', 'd.configuration_id').where('c.enabled', '=', true)),
      ]),
    );

/** Ids of the scope's deliveries whose automatic attempt is due now (by the scope's clock) and not held by a worker. */
export async function dueDeliveries(db: Kysely<Database>, clock: Clock, scope: DueScope = GLOBAL_SCOPE, limit = 200): Promise<string[]> {
  const wall = baseClock(clock).now();
  const rows = await waitingDeliveries(db, scope)
    .select('d.id')
    .where('d.next_attempt_at', '<=', scopedClock(clock, scope).now())
    .where((eb) => eb.or([eb('d.locked_until', 'is', null), eb('d.locked_until', '<=', wall)]))
    .orderBy('d.next_attempt_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** When the scope's next delivery attempt falls due, after `after` (for the sandbox clock). */
export async function nextDeliveryAttempt(db: Kysely<Database>, scope: DueScope, after: Date): Promise<Date | null> {
  const row = await waitingDeliveries(db, scope).select((eb) => eb.fn.min('d.next_attempt_at').as('at')).where('d.next_attempt_at', '>', after).executeTakeFirst();
  return row?.at ? new Date(row.at) : null;
}

/** Runs tasks with at most `width` at a time. */
async function inParallel<T>(items: T[], width: number, task: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
}

/**
 * Fans out the outbox, then attempts every delivery of the scope that is due by its clock (first
 * attempts and retries), one at a time each. The sandbox clock runs it at each stop, and tests after
 * moving the clock; the delivery job uses the batched pipeline instead. Returns how many attempts
 * were made.
 */
export async function deliverDueWebhooks(db: Kysely<Database>, clock: Clock, settings: DeliverySettings, options: { concurrency?: number; scope?: DueScope } = {}): Promise<number> {
  // A sandbox scope fans out only its merchant's events: the others are the delivery job's, which
  // attempts what it fans out at once (what another caller fans out waits for the sweep).
  await dispatchPendingEvents(db, clock, 500, options.scope?.kind === 'sandbox' ? options.scope.merchantId : undefined);
  let attempted = 0;
  for (;;) {
    const due = await dueDeliveries(db, clock, options.scope);
    if (due.length === 0) return attempted;
    let progressed = 0;
    await inParallel(due, options.concurrency ?? 16, async (id) => {
      if (await attemptDelivery(db, clock, settings, id)) progressed += 1;
    });
    attempted += progressed;
    if (progressed === 0) return attempted;
  }
}

// ---- The API: test sends, the delivery log, re-sends

async function deliveryView(db: Db, row: WebhookDeliveryRow): Promise<Schemas['WebhookDelivery']> {
  const [attempts, event] = await Promise.all([
    db.selectFrom('webhook_delivery_attempts').selectAll().where('delivery_id', '=', row.id).orderBy('id', 'desc').limit(100).execute(),
    db.selectFrom('events').selectAll().where('id', '=', row.event_id).executeTakeFirstOrThrow(),
  ]);
  return deliveryToCheckout(row, attempts.reverse(), event);
}

/**
 * Sends a `webhook.test` event to one configuration, whatever its filter and `enabled` flag: the
 * sandbox URL under the sandbox secret, or the live ones with `live`. The event is written as
 * already dispatched (it goes to this configuration only); the call answers after the first
 * attempt, and a failed test delivery is retried like any other.
 */
export async function sendTestEvent(db: Kysely<Database>, clock: Clock, settings: DeliverySettings, owner: WebhookOwner, id: number, input: Schemas['WebhookTestEventRequest'] | undefined) {
  const configuration = await getConfiguration(db, owner, id);
  const live = input?.live ?? false;
  const url = live ? configuration.live_url : configuration.sandbox_url;
  if (!url) throw new AppError('invalid_state', { param: 'live', message: `This configuration has no ${live ? 'liveUrl' : 'sandboxUrl'}; set one first, or send the test to the ${live ? 'sandbox' : 'live'} URL.` });
  // A live test event is on live time; a sandbox one on the merchant's test-mode clock.
  const modeClock = live ? baseClock(clock) : clock;
  const now = modeClock.now();
  const deliveryId = newDeliveryId();
  const eventId = await db.transaction().execute(async (trx) => {
    const object = { object: 'test', id: `test_${randomToken(20)}`, message: 'This is a test event sent from the Till API.', eventType: input?.eventType ?? 'webhook.test', isLive: live, createdAt: now.toISOString() };
    const evt = await writeEvent(trx, modeClock, { merchantId: owner.merchantId, livemode: live, type: 'webhook.test', object });
    await trx.updateTable('events').set({ dispatched_at: now }).where('id', '=', evt).execute();
    await trx
      .insertInto('webhook_deliveries')
      .values({ id: deliveryId, merchant_id: owner.merchantId, livemode: live, configuration_id: configuration.id, session_id: null, event_id: evt, event_type: 'webhook.test', url, status: 'pending', next_attempt_at: now, created_at: now, updated_at: now })
      .execute();
    return evt;
  });
  const after = await attemptDelivery(db, clock, settings, deliveryId);
  return { eventId, deliveryId, url: after?.url ?? url, livemode: live, status: after?.status ?? 'pending' } satisfies Schemas['WebhookTestEventResult'];
}

/** The caller's mode: the delivery log shows the deliveries of the key's mode. */
export interface DeliveryCaller extends WebhookOwner {
  livemode: boolean;
}

/** The delivery log of a configuration, newest first, in the key's mode. */
export async function listDeliveries(
  db: Kysely<Database>,
  caller: DeliveryCaller,
  id: number,
  page: { limit: number; startingAfter?: string | undefined; status?: string | undefined; eventType?: string | undefined },
) {
  await getConfiguration(db, caller, id);
  let query = db.selectFrom('webhook_deliveries').selectAll().where('configuration_id', '=', id).where('merchant_id', '=', caller.merchantId).where('livemode', '=', caller.livemode).orderBy('seq', 'desc').limit(page.limit + 1);
  if (page.status !== undefined) query = query.where('status', '=', page.status as WebhookDeliveryRow['status']);
  if (page.eventType !== undefined) query = query.where('event_type', '=', page.eventType);
  if (page.startingAfter !== undefined) {
    const after = await db.selectFrom('webhook_deliveries').select('seq').where('id', '=', page.startingAfter).where('configuration_id', '=', id).where('merchant_id', '=', caller.merchantId).where('livemode', '=', caller.livemode).executeTakeFirst();
    if (!after) throw new AppError('resource_not_found', { param: 'startingAfter', message: `No such delivery of this configuration: ${page.startingAfter}.` });
    query = query.where('seq', '<', after.seq);
  }
  const rows = toPage(await query.execute(), page.limit);
  return { data: await Promise.all(rows.data.map((r) => deliveryView(db, r))), hasMore: rows.hasMore };
}

/**
 * Re-sends a failed or dead-lettered delivery now: the same event to the configuration's current
 * URL under its current secret. On a 2xx it is `succeeded`; otherwise its status is unchanged.
 */
export async function resendDelivery(db: Kysely<Database>, clock: Clock, settings: DeliverySettings, caller: DeliveryCaller, id: number, deliveryId: string) {
  await getConfiguration(db, caller, id);
  const delivery = await db.selectFrom('webhook_deliveries').selectAll().where('id', '=', deliveryId).where('configuration_id', '=', id).where('merchant_id', '=', caller.merchantId).where('livemode', '=', caller.livemode).executeTakeFirst();
  if (!delivery) throw new AppError('resource_not_found', { param: 'deliveryId', message: `No such delivery of this configuration: ${deliveryId}.` });
  const after = await attemptDelivery(db, clock, settings, deliveryId, 'resend');
  if (!after) {
    const current = await db.selectFrom('webhook_deliveries').select('status').where('id', '=', deliveryId).executeTakeFirst();
    const why = current?.status === 'succeeded' ? 'it already succeeded' : current?.status === 'pending' ? 'its first attempt has not been made yet' : 'an attempt is under way';
    throw new AppError('invalid_state', { param: 'deliveryId', message: `This delivery cannot be re-sent now: ${why}. Only a failed or dead-lettered delivery can be re-sent.` });
  }
  return deliveryView(db, after);
}
