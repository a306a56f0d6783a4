// `GET /v1/events/stream`: a tenant's test-mode events as Server-Sent Events, each the envelope a
// webhook delivery carries. It reads the events table after a cursor (`seq`) whenever the feed
// says something was written, and every few seconds anyway, so a lost notice delays an event but
// never drops it.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { eventsWrittenAfter, type SequencedEvent } from '../../domain/events/event-read.service.js';
import type { Db } from '../../db/database.js';
import type { Tenant } from '../../shared/tenant.js';
import type { EventFeed } from './event-feed.js';
import { webhookBody } from './views/event.view.js';

const TICK_MS = 250;
/** Read again every 5 s even without a notice; a heartbeat comment every 15 s. */
const POLL_TICKS = 20;
const HEARTBEAT_TICKS = 60;
const PAGE = 100;
/**
 * Events commit in an order a little different from their `seq` (two transactions of one merchant
 * at once): each read looks this far back before the cursor and skips what it already sent.
 */
const LOOKBACK = 1000n;

export interface StreamOptions {
  db: Db;
  tenant: Tenant;
  feed: EventFeed;
  /** The `seq` after which events are sent. */
  startSeq: string;
  log: Logger;
}

/** One SSE message: the event's id (what `Last-Event-ID` resumes from), its type and its envelope. */
export const sseMessage = ({ event }: SequencedEvent): string => `id: ${event.id}\nevent: ${event.type}\ndata: ${webhookBody(event)}\n\n`;

/** Serves one stream until the client leaves or the server stops listening. */
export async function serveEventStream(req: IncomingMessage, res: ServerResponse, options: StreamOptions): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write('retry: 2000\n: connected\n\n');
  const reader = new StreamReader(options, (chunk) => res.write(chunk));
  let ended = false;
  const server = (req.socket as { server?: Server }).server;
  let ticks = 0;
  // Declared before `finish`: the client may leave before the subscription is made.
  let unsubscribe: (() => void) | undefined = undefined;
  const finish = () => {
    if (ended) return;
    ended = true;
    clearInterval(timer);
    unsubscribe?.();
    res.end();
  };
  const timer = setInterval(() => {
    // A server that stops listening waits for its open requests: a stream ends so that it can stop.
    if (server && !server.listening) return finish();
    ticks++;
    if (ticks % POLL_TICKS === 0) reader.wake();
    if (ticks % HEARTBEAT_TICKS === 0) res.write(': heartbeat\n\n');
  }, TICK_MS);
  req.on('close', finish);
  res.on('error', finish);
  const subscription = await options.feed.subscribe(options.tenant, () => reader.wake());
  if (ended) return subscription();
  unsubscribe = subscription;
  reader.wake();
}

/** Reads and writes what follows the cursor, one read at a time, again if woken meanwhile. */
class StreamReader {
  private cursor: bigint;
  private readonly floor: bigint;
  private readonly sent = new Map<string, bigint>();
  private reading = false;
  private again = false;

  constructor(
    private readonly options: StreamOptions,
    private readonly write: (chunk: string) => void,
  ) {
    this.cursor = this.floor = BigInt(options.startSeq);
  }

  wake(): void {
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    this.readAll()
      .catch((err: unknown) => this.options.log.warn({ err }, 'event stream: read failed; retrying at the next poll'))
      .finally(() => {
        this.reading = false;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  private async readAll(): Promise<void> {
    let from = this.cursor - LOOKBACK > this.floor ? this.cursor - LOOKBACK : this.floor;
    for (;;) {
      const page = await eventsWrittenAfter(this.options.db, this.options.tenant, from.toString(), PAGE);
      for (const item of page) this.send(item);
      if (page.length < PAGE) break;
      from = BigInt(page[page.length - 1]!.seq);
    }
    for (const [id, seq] of this.sent) if (seq <= this.cursor - LOOKBACK) this.sent.delete(id);
  }

  private send(item: SequencedEvent): void {
    if (this.sent.has(item.event.id)) return;
    const seq = BigInt(item.seq);
    this.sent.set(item.event.id, seq);
    if (seq > this.cursor) this.cursor = seq;
    this.write(sseMessage(item));
  }
}
