// Deliveries as they are attempted: made, found due, claimed and recorded in batches, one statement
// each, whether a batch holds one delivery or a hundred; a claim reads the delivery's event, session
// and link through what their modules export for a join (the outbox itself is the events module's).
// The reads of the delivery log are delivery-log.repository.ts's.
import { type Insertable, sql } from 'kysely';
import type { Db } from '../../db/database.js';
import { jsonParam } from '../../db/json-param.js';
import { inScope } from '../../db/scope.js';
import type { WebhookDeliveriesTable, WebhookDeliveryRow, WebhookDeliveryStatus } from './webhook.tables.js';
import type { DueScope } from '../../shared/due-scope.js';
import { sessionNotifications } from '../checkout/session.repository.js';
import { clockOffsetOf } from '../clocks/sandbox-clock.repository.js';
import { outboxEvents } from '../events/outbox.repository.js';
import { linkNotifications } from '../links/link.repository.js';

export async function insertDeliveries(db: Db, deliveries: Insertable<WebhookDeliveriesTable>[]): Promise<void> {
  for (let i = 0; i < deliveries.length; i += 500)
    await db
      .insertInto('webhook_deliveries')
      .values(deliveries.slice(i, i + 500))
      .execute();
}

/**
 * In a statement on `webhook_deliveries`: the seconds the delivery's merchant advanced its
 * test-mode clock (0 for live deliveries and for merchants that never advanced it).
 */
const sandboxOffsetOfDelivery = sql<string>`CASE WHEN webhook_deliveries.livemode THEN 0 ELSE COALESCE(${clockOffsetOf(sql.ref('webhook_deliveries.merchant_id'))}, 0) END`;

export type AttemptKind = 'automatic' | 'resend';

/** In a statement on `webhook_deliveries` (as `table`): its automatic attempts may go on (its configuration enabled; test sends and session deliveries always). */
const stillEnabled = (table: string) =>
  sql<boolean>`(${sql.ref(`${table}.configuration_id`)} IS NULL OR ${sql.ref(`${table}.event_type`)} = 'webhook.test' OR EXISTS (SELECT 1 FROM webhook_configurations c WHERE c.id = ${sql.ref(`${table}.configuration_id`)} AND c.enabled))`;

/**
 * In an UPDATE of `webhook_deliveries`: the delivery may be claimed for an attempt of this kind at
 * wall time `now`. Automatic: pending or failed, due by its merchant's clock in its mode, its
 * configuration enabled (test sends and session deliveries excepted). Re-send: failed or
 * dead-lettered. Either way not held by another worker (holds are wall time).
 */
function claimable(kind: AttemptKind, now: Date) {
  const state =
    kind === 'automatic'
      ? sql<boolean>`status IN ('pending', 'failed') AND next_attempt_at <= ${now}::timestamptz + (${sandboxOffsetOfDelivery}) * interval '1 second' AND ${stillEnabled('webhook_deliveries')}`
      : sql<boolean>`status IN ('failed', 'dead_lettered')`;
  return sql<boolean>`(${state}) AND (locked_until IS NULL OR locked_until <= ${now}::timestamptz)`;
}

/** A claimed delivery as one row: the delivery, its event, its configuration's URLs and secrets, its session's target, its merchant's clock offset. */
export type ClaimedRow = WebhookDeliveryRow & {
  sandbox_offset: string;
  e_merchant_id: number;
  e_livemode: boolean;
  e_type: string;
  e_api_version: string;
  e_created_at: Date;
  e_traceparent: string | null;
  c_id: number | null;
  c_sandbox_url: string | null;
  c_sandbox_secret: string | null;
  c_live_url: string | null;
  c_live_secret: string | null;
  s_merchant_id: number | null;
  s_notification_url: string | null;
  s_notification_secret: string | null;
  l_notification_url: string | null;
  l_notification_secret: string | null;
};

/**
 * Claims, in one statement, those of `ids` that may be attempted (`kind`) at wall time `now`,
 * holding them until `holdUntil`, with what their attempts need. The ids are one array parameter,
 * so a claim of any size is the same statement, prepared once (an `IN` list was a new statement
 * for every size).
 */
export async function claimDeliveryRows(db: Db, ids: string[], kind: AttemptKind, now: Date, holdUntil: Date): Promise<ClaimedRow[]> {
  return (
    db
      .with('claimed', (qb) =>
        qb
          .updateTable('webhook_deliveries')
          .set({ locked_until: holdUntil })
          .where(sql<boolean>`id = ANY(${ids}::text[])`)
          .where(claimable(kind, now))
          .returningAll()
          .returning(sandboxOffsetOfDelivery.as('sandbox_offset')),
      )
      .selectFrom('claimed as d')
      .innerJoin(outboxEvents(db).as('e'), 'e.id', 'd.event_id')
      .leftJoin('webhook_configurations as c', 'c.id', 'd.configuration_id')
      // By id alone, so the primary key finds it (on a database without statistics, as PGlite's always is, a
      // merchant condition here made the planner scan every session of the merchant for each delivery);
      // the session's merchant is checked against the delivery's in targetOf.
      .leftJoin(sessionNotifications(db).as('s'), 's.id', 'd.session_id')
      .leftJoin(linkNotifications(db).as('pl'), (join) => join.onRef('pl.id', '=', 'd.payment_link_id').onRef('pl.merchant_id', '=', 'd.merchant_id'))
      .selectAll('d')
      .select([
        'e.merchant_id as e_merchant_id',
        'e.livemode as e_livemode',
        'e.type as e_type',
        'e.api_version as e_api_version',
        'e.created_at as e_created_at',
        'e.traceparent as e_traceparent',
        'c.id as c_id',
        'c.sandbox_url as c_sandbox_url',
        'c.sandbox_secret as c_sandbox_secret',
        'c.live_url as c_live_url',
        'c.live_secret as c_live_secret',
        's.merchant_id as s_merchant_id',
        's.notification_url as s_notification_url',
        's.notification_secret as s_notification_secret',
        'pl.notification_url as l_notification_url',
        'pl.notification_secret as l_notification_secret',
      ])
      .execute()
  );
}

/** One attempt's outcome, as recorded. */
export interface AttemptRecord {
  deliveryId: string;
  status: WebhookDeliveryStatus;
  nextAttemptAt: Date | null;
  automaticAttempts: number;
  url: string;
  attemptedAt: Date;
  httpStatus: number | null;
  durationMs: number;
  responseSnippet: string | null;
  error: string | null;
  /** The headers of the request made; null when none was made. */
  requestHeaders: Record<string, string> | null;
  /**
   * Keep the delivery held until then, for its next automatic attempt (the sandbox clock's catch-up,
   * when that attempt has fallen due already); null releases it. Kept only while its configuration
   * is enabled, as a claim would need.
   */
  holdUntil: Date | null;
}

/** The columns of a batch of attempt records, each with its PostgreSQL type. */
const RECORD_COLUMNS =
  'id text, status text, next_attempt_at timestamptz, automatic_attempts int4, url text, attempted_at timestamptz, http_status int4, duration_ms int4, response_snippet text, error text, request_headers jsonb, hold_until timestamptz';

/**
 * Records attempts in one statement: each delivery's new state (its claim released, or kept as
 * the record's holdUntil asks), then its attempt-log row. The update comes first and locks each
 * delivery it finds, so an attempt is logged only for a delivery that still exists (its
 * configuration may have been deleted meanwhile).
 * The batch is one JSON parameter read back into columns by `json_to_recordset` (json-param.ts):
 * the same SQL for every batch size, prepared once. A VALUES list of eleven parameters a row was
 * a new statement of up to 5,500 parameters to build, parse and plan for every size; a batch of
 * about 225 took 57 ms on PGlite and 34 ms on PostgreSQL that way, 45 and 28 ms this way.
 * `returning` is what it answers of each delivery recorded: all of it, or its id and hold.
 */
const recordQuery = <R>(db: Db, records: AttemptRecord[], returning: 'd.*' | 'd.id, d.locked_until') =>
  sql<R>`
    WITH v AS (SELECT * FROM json_to_recordset(${jsonParam(records.map(recordColumns))}::json) AS r(${sql.raw(RECORD_COLUMNS)})),
    updated AS (
      UPDATE webhook_deliveries d
      SET status = v.status, next_attempt_at = v.next_attempt_at, automatic_attempts = v.automatic_attempts, attempt_count = d.attempt_count + 1, url = v.url, locked_until = CASE WHEN v.hold_until IS NOT NULL AND ${stillEnabled('d')} THEN v.hold_until END, updated_at = v.attempted_at
      FROM v WHERE d.id = v.id
      RETURNING ${sql.raw(returning)}
    ),
    logged AS (
      INSERT INTO webhook_delivery_attempts (delivery_id, attempted_at, url, http_status, duration_ms, response_snippet, error, request_headers)
      SELECT v.id, v.attempted_at, v.url, v.http_status, v.duration_ms, v.response_snippet, v.error, v.request_headers FROM v JOIN updated u ON u.id = v.id
    )
    SELECT * FROM updated`.execute(db);

/** One attempt record as a row of RECORD_COLUMNS. */
const recordColumns = (r: AttemptRecord) => ({
  id: r.deliveryId,
  status: r.status,
  next_attempt_at: r.nextAttemptAt,
  automatic_attempts: r.automaticAttempts,
  url: r.url,
  attempted_at: r.attemptedAt,
  http_status: r.httpStatus,
  duration_ms: r.durationMs,
  response_snippet: r.responseSnippet,
  error: r.error,
  request_headers: r.requestHeaders,
  hold_until: r.holdUntil,
});

/** Records attempts (recordQuery); answers each delivery recorded as it is now. */
export async function recordAttemptRows(db: Db, records: AttemptRecord[]): Promise<WebhookDeliveryRow[]> {
  return (await recordQuery<WebhookDeliveryRow>(db, records, 'd.*')).rows;
}

/**
 * Records attempts (recordQuery); answers the ids of the deliveries recorded, and the holds kept. A batch's caller
 * knows their new state already. Reading back every column of every delivery made the statement a
 * half slower on PGlite: 40-43 against 28-29 ms for a batch of 280 attempts (medians of 24).
 */
export async function recordAttemptIds(db: Db, records: AttemptRecord[]): Promise<Array<Pick<WebhookDeliveryRow, 'id' | 'locked_until'>>> {
  return (await recordQuery<Pick<WebhookDeliveryRow, 'id' | 'locked_until'>>(db, records, 'd.id, d.locked_until')).rows;
}

/** Deliveries of a scope that wait for an automatic attempt (their configuration enabled, test sends excepted). */
const waitingDeliveries = (db: Db, scope: DueScope) =>
  db.selectFrom('webhook_deliveries as d').where('d.status', 'in', ['pending', 'failed']).where(inScope(scope, 'd')).where(stillEnabled('d'));

/** Ids of the scope's deliveries due by `scopeNow` and not held by a worker at wall time `wallNow`, earliest first. */
export async function findDueDeliveryIds(db: Db, scope: DueScope, scopeNow: Date, wallNow: Date, limit: number): Promise<string[]> {
  const rows = await waitingDeliveries(db, scope)
    .select('d.id')
    .where('d.next_attempt_at', '<=', scopeNow)
    .where((eb) => eb.or([eb('d.locked_until', 'is', null), eb('d.locked_until', '<=', wallNow)]))
    .orderBy('d.next_attempt_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** When the scope's next delivery attempt falls due, after `after`. */
export async function nextDueDelivery(db: Db, scope: DueScope, after: Date): Promise<Date | null> {
  const row = await waitingDeliveries(db, scope)
    .select((eb) => eb.fn.min('d.next_attempt_at').as('at'))
    .where('d.next_attempt_at', '>', after)
    .executeTakeFirst();
  return row?.at ? new Date(row.at) : null;
}
