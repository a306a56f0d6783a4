// The fan-out: the events table is the outbox, and each event becomes one delivery per matching
// enabled configuration of its merchant (live events and payouts to the live URL, test events to
// the sandbox URL), and one to its session's `notificationUrl` for the session's events (creation
// rule 4), and one to its payment link's `notificationUrl` for the `invoice.paid` of an invoice
// made through a link.
import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { EventRow } from '../events/event.tables.js';
import type { WebhookConfigurationRow, WebhookDeliveriesTable } from './webhook.tables.js';
import { baseClock, type Clock } from '../../shared/clock.js';
import { randomToken } from '../../shared/crypto.js';
import { sandboxOffsets } from '../clocks/tenant-clock.js';
import { decodeSubject } from '../events/event.service.js';
import { claimUndispatchedEvents, markDispatched } from '../events/outbox.repository.js';
import { linkTargets } from '../links/link.repository.js';
import { sessionsOfPayments } from '../payments/payment.repository.js';
import { sessionTargets } from '../checkout/session.repository.js';
import { findEnabledConfigurations } from './configuration.repository.js';
import { keepBodies, type Render } from './delivery-bodies.js';
import { insertDeliveries } from './delivery.repository.js';
import { alwaysLive, goesToSessionUrl, subscribed } from './event-types.js';

export const newDeliveryId = () => `whd_${randomToken(24)}`;
const at = (date: Date, seconds: number) => new Date(date.getTime() + seconds * 1000);

/**
 * What a fan-out batch may be told: `testModeOf`, only that merchant's test-mode events; `render`,
 * render and keep the bodies of the events that got deliveries.
 */
export interface FanOutOptions {
  testModeOf?: number;
  render?: Render;
}

/** Fans out the whole outbox, batch after batch; returns the new deliveries' ids. */
export async function dispatchPendingEvents(db: Kysely<Database>, clock: Clock, batchSize = 500, options: FanOutOptions = {}): Promise<string[]> {
  const ids: string[] = [];
  for (;;) {
    const batch = await dispatchBatch(db, clock, batchSize, options);
    ids.push(...batch.deliveryIds);
    // A batch short of the size took every event there was (one written since waits for the next call).
    if (batch.claimed < batchSize) return ids;
  }
}

/**
 * One batch of the fan-out, in one transaction: claims undelivered events (several workers never
 * take the same one), creates their deliveries and marks them dispatched. Answers how many events
 * it claimed and the deliveries it created. With `render`, the bodies of the events that have
 * deliveries are rendered from the rows claimed here and kept for the deliveries' claims.
 */
export async function dispatchBatch(
  db: Kysely<Database>,
  clock: Clock,
  limit: number,
  { testModeOf, render }: FanOutOptions = {},
): Promise<{ claimed: number; deliveryIds: string[] }> {
  const batch = await db.transaction().execute(async (trx) => {
    const events = await claimUndispatchedEvents(trx, limit, testModeOf);
    if (events.length === 0) return { events, deliveries: [] };
    const now = baseClock(clock).now();
    const merchantIds = [...new Set(events.map((e) => e.merchant_id))];
    // A merchant that advanced its test clock sees its test-mode deliveries at its own time.
    const offsets = await sandboxOffsets(trx, merchantIds);
    const targets = {
      configurations: await findEnabledConfigurations(trx, merchantIds),
      sessions: await sessionsOf(trx, events),
      links: await linksOf(trx, events),
    };
    const deliveries = events.flatMap((e) => deliveriesOf(e, targets, (livemode) => (livemode ? now : at(now, offsets.get(e.merchant_id) ?? 0))));
    await insertDeliveries(trx, deliveries);
    await markDispatched(
      trx,
      events.map((e) => e.id),
      now,
    );
    return { events, deliveries };
  });
  if (render && batch.deliveries.length > 0) {
    const delivered = new Set(batch.deliveries.map((d) => d.event_id));
    keepBodies(
      render,
      batch.events.filter((e) => delivered.has(e.id)),
    );
  }
  return { claimed: batch.events.length, deliveryIds: batch.deliveries.map((d) => d.id) };
}

type SessionTarget = { sessionId: string; merchant_id: number; livemode: boolean; notification_url: string | null };

/** For each event bound for a session's URL, that session (its own, or the one its payment was made through) and its notification URL. */
async function sessionsOf(db: Kysely<Database>, events: EventRow[]): Promise<Map<string, SessionTarget>> {
  const bound = events.filter((e) => goesToSessionUrl(e.type));
  const paymentSession = await sessionsOfPayments(db, [...new Set(bound.filter((e) => !e.session_id && e.payment_id !== null).map((e) => e.payment_id!))]);
  const sessionOf = new Map(bound.map((e) => [e.id, e.session_id ?? (e.payment_id !== null ? paymentSession.get(e.payment_id) : undefined) ?? null] as const));
  const found = await sessionTargets(db, [...new Set([...sessionOf.values()].filter((s): s is string => s !== null))]);
  const result = new Map<string, SessionTarget>();
  for (const [eventId, sessionId] of sessionOf) {
    const target = sessionId ? found.get(sessionId) : undefined;
    if (sessionId && target) result.set(eventId, { sessionId, ...target });
  }
  return result;
}

type LinkTarget = { linkId: number; merchant_id: number; livemode: boolean; notification_url: string };

/** The invoice an `invoice.paid` event is about. */
const paidInvoiceOf = (e: EventRow): number | undefined => {
  if (e.type !== 'invoice.paid') return undefined;
  const subject = decodeSubject(e.data);
  return subject.kind === 'invoice' ? subject.invoice.id : undefined;
};

/** For each `invoice.paid` of an invoice made through a link with a notification URL, that link. */
async function linksOf(db: Kysely<Database>, events: EventRow[]): Promise<Map<string, LinkTarget>> {
  const invoiceOf = new Map(events.map((e) => [e.id, paidInvoiceOf(e)] as const).filter((x): x is [string, number] => x[1] !== undefined));
  const found = await linkTargets(db, [...new Set(invoiceOf.values())]);
  const result = new Map<string, LinkTarget>();
  for (const [eventId, invoiceId] of invoiceOf) {
    const target = found.get(invoiceId);
    if (target) result.set(eventId, target);
  }
  return result;
}

/** One event's deliveries: to each configuration that wants it, to its session's notification URL, to its payment link's. */
function deliveriesOf(
  e: EventRow,
  targets: { configurations: WebhookConfigurationRow[]; sessions: Map<string, SessionTarget>; links: Map<string, LinkTarget> },
  nowFor: (livemode: boolean) => Date,
): Insertable<WebhookDeliveriesTable>[] {
  if (e.type === 'webhook.test') return []; // sent only to the configuration that asked for it
  const base = (livemode: boolean) => {
    const t = nowFor(livemode);
    return {
      id: newDeliveryId(),
      merchant_id: e.merchant_id,
      livemode,
      event_id: e.id,
      event_type: e.type,
      status: 'pending' as const,
      next_attempt_at: t,
      created_at: t,
      updated_at: t,
    };
  };
  const deliveries: Insertable<WebhookDeliveriesTable>[] = [];
  for (const c of targets.configurations) {
    if (c.merchant_id !== e.merchant_id || !subscribed(c.subscribed_events, e.type)) continue;
    // Payouts are always live; a test-mode payout's event still reaches a configuration without a live URL (a sandbox merchant's) at its sandbox URL.
    const live = e.livemode || (alwaysLive(e.type) && c.live_url !== null);
    const url = live ? c.live_url : c.sandbox_url;
    if (url) deliveries.push({ ...base(live), configuration_id: c.id, session_id: null, url });
  }
  const session = targets.sessions.get(e.id);
  if (session?.notification_url && session.merchant_id === e.merchant_id && session.livemode === e.livemode) {
    deliveries.push({ ...base(e.livemode), configuration_id: null, session_id: session.sessionId, url: session.notification_url });
  }
  const link = targets.links.get(e.id);
  if (link && link.merchant_id === e.merchant_id && link.livemode === e.livemode) {
    deliveries.push({ ...base(e.livemode), configuration_id: null, session_id: null, payment_link_id: link.linkId, url: link.notification_url });
  }
  return deliveries;
}
