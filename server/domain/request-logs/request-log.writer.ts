// Writes request logs off the request path: the edge hands each finished request to `record`,
// which redacts it and queues it; a timer (or a full batch) writes the queue with one INSERT.
// Nothing here can block or fail a request. The queue is bounded: while the database is
// slow or down, what does not fit is dropped and counted, and a warning says how many.
import type { Db } from '../../db/database.js';
import { randomToken } from '../../shared/crypto.js';
import type { Tenant } from '../../shared/tenant.js';
import { needsNoRedaction, redactJson, redactText } from './redact.js';
import { insertRequestLogs } from './request-log.repository.js';
import type { JsonValue, NewRequestLogRow } from './request-log.tables.js';

/** A finished request as the edge saw it, secrets still in it. */
export interface CapturedRequest {
  tenant: Tenant;
  method: string;
  path: string;
  operationId: string;
  status: number;
  durationMs: number;
  requestId: string;
  idempotencyKey: string | null;
  keyPrefix: string | null;
  clientAddress: string | null;
  /** The parsed JSON body, undefined when there was none. */
  requestBody: unknown;
  /** The answer's text when it was JSON, undefined otherwise (a file, a stream, nothing). */
  responseText: string | undefined;
  receivedAt: Date;
}

export interface RequestLogWriterOptions {
  /** How often the queue is written (ms). */
  flushMs?: number;
  /** Rows per INSERT; a full batch is written at once. */
  batchSize?: number;
  /** Rows the queue holds at most; more are dropped. */
  maxQueued?: number;
  /** Bytes of bodies the queue holds at most; more are dropped. */
  maxQueuedBytes?: number;
  /** A body larger than this (as JSON) is kept as a note of its size. */
  maxBodyBytes?: number;
}

/** Where the writer says what went wrong (a pino logger fits). */
export interface WriterLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** What the writer has done since it started. */
export interface RequestLogWriterStats {
  written: number;
  /** Dropped because the queue was full. */
  dropped: number;
  /** Lost because their INSERT failed. */
  failed: number;
  queued: number;
}

interface Queued {
  /** The row but its id, drawn when its batch is written. */
  row: Omit<NewRequestLogRow, 'id'>;
  bytes: number;
}

export class RequestLogWriter {
  private queue: Queued[] = [];
  private queuedBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private closed = false;
  private droppedSinceWarning = 0;
  private readonly stats = { written: 0, dropped: 0, failed: 0 };
  private readonly flushMs: number;
  private readonly batchSize: number;
  private readonly maxQueued: number;
  private readonly maxQueuedBytes: number;
  private readonly maxBodyBytes: number;

  constructor(
    private readonly db: Db,
    private readonly log: WriterLog,
    options: RequestLogWriterOptions = {},
  ) {
    this.flushMs = options.flushMs ?? 250;
    this.batchSize = options.batchSize ?? 200;
    this.maxQueued = options.maxQueued ?? 10_000;
    this.maxQueuedBytes = options.maxQueuedBytes ?? 32 * 1024 * 1024;
    this.maxBodyBytes = options.maxBodyBytes ?? 32 * 1024;
  }

  /** Queues a finished request, redacted. Never throws. */
  record(request: CapturedRequest): void {
    try {
      if (this.closed) return;
      if (this.queue.length >= this.maxQueued || this.queuedBytes >= this.maxQueuedBytes) return this.drop();
      const requestBody = this.body(request.requestBody === undefined ? null : request.requestBody);
      const responseBody = this.answerBody(request.responseText);
      const row: Omit<NewRequestLogRow, 'id'> = {
        merchant_id: request.tenant.merchantId,
        livemode: request.tenant.livemode,
        method: request.method,
        path: redactText(request.path).slice(0, 2048),
        operation_id: request.operationId,
        status: request.status,
        duration_ms: Math.round(request.durationMs * 1000) / 1000,
        request_id: request.requestId,
        idempotency_key: request.idempotencyKey === null ? null : redactText(request.idempotencyKey).slice(0, 255),
        key_prefix: request.keyPrefix,
        client_address: request.clientAddress,
        request_body: requestBody.text,
        response_body: responseBody.text,
        created_at: request.receivedAt,
      };
      this.queue.push({ row, bytes: requestBody.bytes + responseBody.bytes });
      this.queuedBytes += requestBody.bytes + responseBody.bytes;
      this.schedule();
    } catch (err) {
      this.log.warn({ err }, 'request log: could not queue a request');
    }
  }

  /** Writes everything queued now; resolves once it is written (or given up). */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.queue.length === 0) return;
    this.flushing = this.writeAll().finally(() => (this.flushing = undefined));
    await this.flushing;
  }

  /** Stops taking requests and writes what is queued (the server's shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.flush();
  }

  /** Counts since start. */
  counts(): RequestLogWriterStats {
    return { ...this.stats, queued: this.queue.length };
  }

  private schedule(): void {
    if (this.queue.length >= this.batchSize) {
      void this.flush();
      return;
    }
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.flushMs);
    this.timer.unref();
  }

  private async writeAll(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.batchSize);
      for (const item of batch) this.queuedBytes -= item.bytes;
      try {
        await insertRequestLogs(
          this.db,
          batch.map((item) => ({ id: `rl_${randomToken(24)}`, ...item.row })),
        );
        this.stats.written += batch.length;
      } catch (err) {
        this.stats.failed += batch.length;
        this.log.warn({ err, lost: batch.length, failedTotal: this.stats.failed }, 'request log: a batch could not be written; its logs are lost');
      }
    }
    if (this.droppedSinceWarning > 0) {
      this.log.warn({ dropped: this.droppedSinceWarning, droppedTotal: this.stats.dropped }, 'request log: the queue was full; requests were not logged');
      this.droppedSinceWarning = 0;
    }
  }

  private drop(): void {
    this.stats.dropped++;
    this.droppedSinceWarning++;
    this.schedule();
  }

  /** A body as stored: redacted JSON text, or a note of its size when it is too large. */
  private body(value: unknown): { text: string | null; bytes: number } {
    if (value === null) return { text: null, bytes: 0 };
    const text = JSON.stringify(redactJson(value) satisfies JsonValue);
    if (text.length > this.maxBodyBytes) return this.tooLarge(text.length);
    return { text, bytes: text.length };
  }

  /** An answer's text as stored: as it is when it needs no redaction, else parsed and redacted. */
  private answerBody(text: string | undefined): { text: string | null; bytes: number } {
    if (text === undefined) return { text: null, bytes: 0 };
    if (text.length > this.maxBodyBytes) return this.tooLarge(text.length);
    if (text !== '' && needsNoRedaction(text)) return { text, bytes: text.length };
    return this.body(parseJson(text));
  }

  private tooLarge(length: number): { text: string; bytes: number } {
    const text = JSON.stringify(`[not kept: ${length} bytes]`);
    return { text, bytes: text.length };
  }
}

function parseJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return redactText(text.slice(0, 1024));
  }
}
