// The two HTTP transports' server-to-client halves (dotnet/aspnetcore,
// src/SignalR/docs/specs/TransportProtocols.md): a Server-Sent Events stream, and long polls.
// The client sends with HTTP POSTs on either (http-transports.ts).
import type { ServerResponse } from 'node:http';
import type { Wire } from './connection.js';

/** One SSE event per send: every line of the text as a `data:` line, then a blank line. */
export function sseEvent(text: string): string {
  return `${text
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}\r\n`)
    .join('')}\r\n`;
}

/** Server-Sent Events: the GET's response stays open and carries every message as an unnamed event. */
export class SseWire implements Wire {
  constructor(private readonly res: ServerResponse) {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' });
    // A comment line, so that the client (and any proxy) sees the stream open at once.
    res.write(':\r\n\r\n');
  }

  send(text: string): void {
    if (!this.res.writableEnded) this.res.write(sseEvent(text));
  }

  end(): void {
    this.res.end();
  }
}

/** Messages waiting for a long poll, at most this many bytes (a client that stops polling is cut off). */
const MAX_WAITING = 256 * 1024;
/** How long a connection the server ended waits for the poll that collects its close message. */
const LINGER_MS = 5_000;

/**
 * Long polling: messages wait in an outbox until a poll (a GET) collects them all (200 with the
 * records). A poll with nothing to collect waits up to `pollTimeoutMs`, then answers 200 empty; a
 * newer poll ends an older one with 204; once the server has ended the connection and its last
 * messages were collected, a poll answers 204.
 */
export class LongPollWire implements Wire {
  private outbox: string[] = [];
  private waiting = 0;
  private pending: { res: ServerResponse; timer: NodeJS.Timeout } | undefined;
  private ending = false;
  private finished = false;
  private linger: NodeJS.Timeout | undefined;

  constructor(
    private readonly pollTimeoutMs: number,
    /** The transport is over: the connection ends. */
    private readonly onFinished: () => void,
  ) {}

  send(text: string): void {
    if (this.finished || this.ending) return;
    this.outbox.push(text);
    this.waiting += Buffer.byteLength(text);
    if (this.waiting > MAX_WAITING) return this.finish();
    this.flush();
  }

  end(): void {
    if (this.ending) return;
    this.ending = true;
    this.flush();
    if (!this.finished) this.linger = setTimeout(() => this.finish(), LINGER_MS);
  }

  /** A poll: answered at once with what waits (or 204 when over), else held. */
  poll(res: ServerResponse): void {
    if (this.pending) this.answer(204);
    if (this.finished) return void res.writeHead(204).end();
    this.pending = { res, timer: setTimeout(() => this.answer(200), this.pollTimeoutMs) };
    res.once('close', () => {
      if (this.pending?.res === res) this.release();
    });
    this.flush();
  }

  /** The client ended the connection (DELETE): the held poll answers 204. */
  delete(): void {
    this.finish();
  }

  private flush(): void {
    if (!this.pending) return;
    if (this.outbox.length > 0) return this.answer(200, this.outbox.join(''));
    if (this.ending) this.finish();
  }

  private answer(status: 200 | 204, body = ''): void {
    const pending = this.release();
    if (!pending) return;
    if (body !== '') {
      this.outbox = [];
      this.waiting = 0;
    }
    pending.res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', 'Content-Length': Buffer.byteLength(body) });
    pending.res.end(body);
  }

  private release() {
    const pending = this.pending;
    if (pending) clearTimeout(pending.timer);
    this.pending = undefined;
    return pending;
  }

  private finish(): void {
    if (this.finished) return;
    this.answer(204);
    this.finished = true;
    this.outbox = [];
    clearTimeout(this.linger);
    this.onFinished();
  }
}
