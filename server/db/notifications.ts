// LISTEN for PostgreSQL notifications, on either database. NOTIFY is sent at commit (never for a
// rolled-back transaction) to every session that listens, in every process: that is how a change
// made in one Till process reaches what another one serves.
import type { PGlite } from '@electric-sql/pglite';
import { CompiledQuery, type Kysely } from 'kysely';
import pg from 'pg';

/** The channel the trigger of migration 2026_11_25_0015 notifies when an invoice's status changes. */
export const INVOICE_UPDATED_CHANNEL = 'till_invoice_updated';
/** The channel the trigger of migration 2026_11_25_0017 notifies when a live message is queued (payload: its id). */
export const MESSAGE_QUEUED_CHANNEL = 'till_message_queued';

/** The channel the trigger of migration 2026_11_25_0024 notifies when a test-mode event is written (payload: `{merchant_id, livemode}`). */
export const EVENT_WRITTEN_CHANNEL = 'till_event_written';

/** What a listener is told: each payload, and (PostgreSQL only) that it lost its connection and listens again, so notifications in between were missed. */
export interface ListenHandlers {
  notification(payload: string): void;
  /** The connection was lost and is back: notifications sent meanwhile are gone. */
  restored?(): void;
  /** A connection error (the listener retries by itself). */
  error?(err: Error): void;
}

/** Stops listening. */
export type Unlisten = () => Promise<void>;

const CHANNEL_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

function listenStatement(channel: string): string {
  if (!CHANNEL_NAME.test(channel)) throw new Error(`Not a channel name: ${channel}`);
  return `LISTEN ${channel}`;
}

/**
 * PGlite: one session for everything, so LISTEN goes through Kysely's connection (never between
 * the statements of someone else's transaction) and each handler filters the session's
 * notifications. Several apps on one PGlite (test siblings) each get every notification.
 */
export async function listenPglite(pglite: PGlite, db: Kysely<any>, channel: string, handlers: ListenHandlers): Promise<Unlisten> {
  const statement = listenStatement(channel);
  const off = pglite.onNotification((from, payload) => {
    if (from === channel) handlers.notification(payload);
  });
  await db.executeQuery(CompiledQuery.raw(statement));
  return async () => off();
}

const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 5_000;

/**
 * PostgreSQL: a dedicated connection (a pooled one would be handed to other work) that LISTENs,
 * and connects and LISTENs again, with backoff, whenever it is lost.
 */
export async function listenPostgres(connectionString: string, channel: string, handlers: ListenHandlers): Promise<Unlisten> {
  const statement = listenStatement(channel);
  let client: pg.Client | undefined;
  let stopped = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let delay = RETRY_FIRST_MS;

  /** A new connection, made the current one; losing it schedules the next. */
  const open = (): pg.Client => {
    const next = new pg.Client({ connectionString, application_name: 'till-listener' });
    next.on('notification', (message) => {
      if (message.channel === channel) handlers.notification(message.payload ?? '');
    });
    next.on('error', (err) => lost(next, err));
    next.on('end', () => lost(next));
    client = next;
    return next;
  };
  const start = async (which: pg.Client) => {
    await which.connect();
    await which.query(statement);
  };
  const lost = (which: pg.Client, err?: Error) => {
    if (which !== client || stopped) return;
    client = undefined;
    if (err) handlers.error?.(err);
    which.end().catch(() => {});
    retryTimer = setTimeout(retry, delay);
    delay = Math.min(delay * 2, RETRY_MAX_MS);
  };
  const retry = () => {
    if (stopped) return;
    const next = open();
    start(next).then(
      () => {
        delay = RETRY_FIRST_MS;
        if (!stopped) handlers.restored?.();
      },
      (err: Error) => lost(next, err),
    );
  };

  const first = open();
  try {
    await start(first);
  } catch (err) {
    stopped = true;
    await first.end().catch(() => {});
    throw err;
  }
  return async () => {
    stopped = true;
    clearTimeout(retryTimer);
    await client?.end().catch(() => {});
    client = undefined;
  };
}
