// Who is told that a tenant's test-mode event was written: one LISTEN on `till_event_written` per
// database (in this process), fanned out to the streams open on it. The trigger NOTIFYs at commit
// from whichever process wrote the event, so a stream here hears events written anywhere.
import type { Logger } from 'pino';
import type { TillDatabase } from '../../db/database.js';
import { EVENT_WRITTEN_CHANNEL } from '../../db/notifications.js';
import type { Tenant } from '../../shared/tenant.js';

interface Subscriber {
  tenant: Tenant;
  /** Something may have been written for the tenant (or notices were lost): read again. */
  wake(): void;
}

/** The streams of one database in this process. */
export class EventFeed {
  private readonly subscribers = new Set<Subscriber>();
  private started: Promise<unknown> | undefined;

  constructor(
    private readonly database: TillDatabase,
    private readonly logger: Logger,
  ) {}

  /** Calls `wake` whenever an event of `tenant` may have been written; returns a function that stops it. */
  async subscribe(tenant: Tenant, wake: () => void): Promise<() => void> {
    this.started ??= this.listen();
    await this.started;
    const subscriber = { tenant, wake };
    this.subscribers.add(subscriber);
    return () => this.subscribers.delete(subscriber);
  }

  /** Starts listening; when it cannot, streams still read every few seconds on their own (they poll too). */
  private listen(): Promise<unknown> {
    return this.database
      .listen(EVENT_WRITTEN_CHANNEL, {
        notification: (payload) => this.announce(payload),
        restored: () => this.wakeAll(),
        error: (err) => this.logger.warn({ err }, 'event streams: notice connection error (streams poll meanwhile)'),
      })
      .catch((err: unknown) => this.logger.warn({ err }, 'event streams: notices unavailable; streams poll every few seconds'));
  }

  private announce(payload: string): void {
    let owner: { merchant_id?: unknown; livemode?: unknown };
    try {
      owner = JSON.parse(payload) as typeof owner;
    } catch {
      return this.wakeAll();
    }
    for (const s of this.subscribers) if (s.tenant.merchantId === owner.merchant_id && s.tenant.livemode === owner.livemode) s.wake();
  }

  private wakeAll(): void {
    for (const s of this.subscribers) s.wake();
  }
}

const feeds = new WeakMap<TillDatabase, EventFeed>();

/** The feed of a database in this process (one LISTEN, however many apps and streams use it). */
export function eventFeedOf(database: TillDatabase, logger: Logger): EventFeed {
  let feed = feeds.get(database);
  if (!feed) feeds.set(database, (feed = new EventFeed(database, logger)));
  return feed;
}
