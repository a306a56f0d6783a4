// The request bodies of webhook attempts, kept once rendered: an event never changes once written,
// and the same body goes to each of its endpoints and at each retry (the sandbox clock's catch-up
// sends an event up to seven times per endpoint in one advance), so a claim reads an event's data
// only when no body of it is kept.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { TtlCache } from '../../shared/ttl-cache.js';
import { type EventRecord, toEventRecord } from '../events/event.service.js';
import type { EventRow } from '../events/event.tables.js';
import { findEventRows } from '../events/outbox.repository.js';

/** How an event becomes the body of its attempts (DeliverySettings' `render`). */
export type Render = (event: EventRecord) => string;

/** Bodies already rendered, by renderer and event id: 10 minutes, 5,000 bodies of 1-2 KB each. */
const renderedBodies = new WeakMap<Render, TtlCache<string, string>>();

function renderedBy(render: Render): TtlCache<string, string> {
  let rendered = renderedBodies.get(render);
  if (!rendered) renderedBodies.set(render, (rendered = new TtlCache(10 * 60_000, 5_000)));
  return rendered;
}

/**
 * Keeps the bodies of events read with their data (the fan-out's claim of the outbox), so that the
 * claims of their deliveries, a moment later, need not read them again.
 */
export function keepBodies(render: Render, events: EventRow[]): void {
  const rendered = renderedBy(render);
  for (const row of events) if (rendered.get(row.id) === undefined) rendered.set(row.id, render(toEventRecord(row)));
}

/** The body of each event, by id: those rendered before as they were, the others read (one statement) and rendered now. */
export async function bodiesOf(db: Kysely<Database>, render: Render, eventIds: string[]): Promise<Map<string, string>> {
  const rendered = renderedBy(render);
  const bodies = new Map<string, string>();
  const unread: string[] = [];
  for (const id of eventIds) {
    const body = rendered.get(id);
    if (body === undefined) unread.push(id);
    else bodies.set(id, body);
  }
  for (const row of await findEventRows(db, unread)) {
    const body = render(toEventRecord(row));
    rendered.set(row.id, body);
    bodies.set(row.id, body);
  }
  return bodies;
}
