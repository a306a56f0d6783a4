import type { Logger } from 'pino';
import type { AttemptResult, ClaimedDelivery } from '../domain/webhooks/delivery.js';

/** Requests in flight at once in this process (first attempts, retries and the sweep's together). */
const MAX_SENDING = 64;
/** Deliveries claimed per statement, at most. */
const CLAIM_BATCH = 100;
/** Attempts recorded per statement, at most. */
const RECORD_BATCH = 200;

/** The three stages' work, each on a batch (send on one claimed delivery). */
export interface AttemptStages {
  claim: (ids: string[]) => Promise<ClaimedDelivery[]>;
  send: (claimed: ClaimedDelivery) => Promise<AttemptResult['outcome']>;
  /** Records the attempts; answers the ids whose record was written. */
  record: (results: AttemptResult[]) => Promise<Set<string>>;
  logger: Logger;
  /** Called whenever a delivery leaves the pipeline. */
  onSettled: () => void;
}

const NOT_SENT: AttemptResult['outcome'] = { ok: false, httpStatus: null, durationMs: 0, responseSnippet: null, error: 'connection_error' };

/**
 * Automatic attempts, as a pipeline in three stages that each work in batches where they can:
 * claim the waiting deliveries (one statement for up to CLAIM_BATCH), send each one as soon as it
 * is claimed (at most MAX_SENDING at once), and record the attempts that have finished (one
 * statement for up to RECORD_BATCH). Claims and records run one at a time, so whatever arrives
 * meanwhile goes into the next batch: under load batches grow, at rest each delivery goes alone.
 */
export class AttemptPipeline {
  private readonly waitingIds: string[] = [];
  private readonly pending = new Map<string, { promise: Promise<boolean>; resolve: (attempted: boolean) => void }>();
  private readonly finished: AttemptResult[] = [];
  private sending = 0;
  private claiming = false;
  private recording = false;
  private closed = false;
  private idle: (() => void) | undefined;

  constructor(private readonly stages: AttemptStages) {}

  /**
   * Resolves with whether the delivery was attempted (false when it could not be claimed, when
   * its attempt could not be recorded, or when it was dropped at stop). A delivery already in the
   * pipeline answers the same promise.
   */
  add(id: string): Promise<boolean> {
    if (this.closed) return Promise.resolve(false);
    const known = this.pending.get(id);
    if (known) return known.promise;
    let resolve!: (attempted: boolean) => void;
    const promise = new Promise<boolean>((r) => (resolve = r));
    this.pending.set(id, { promise, resolve });
    this.waitingIds.push(id);
    this.claimNext();
    return promise;
  }

  /** Deliveries waiting for their claim. */
  get waiting(): number {
    return this.waitingIds.length;
  }

  /** Takes nothing more, drops what waits (it is not claimed), then waits at most `ms` for the attempts under way. */
  async drain(ms: number): Promise<void> {
    this.closed = true;
    for (const id of this.waitingIds.splice(0)) this.settle(id, false);
    if (this.pending.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([new Promise<void>((r) => (this.idle = r)), new Promise<void>((r) => (timer = setTimeout(r, ms)))]);
    clearTimeout(timer);
  }

  private settle(id: string, attempted: boolean): void {
    this.pending.get(id)?.resolve(attempted);
    this.pending.delete(id);
    if (this.pending.size === 0) this.idle?.();
    this.stages.onSettled();
  }

  private claimNext(): void {
    if (this.claiming || this.waitingIds.length === 0 || this.sending >= MAX_SENDING) return;
    this.claiming = true;
    const ids = this.waitingIds.splice(0, Math.min(CLAIM_BATCH, MAX_SENDING - this.sending));
    void this.stages
      .claim(ids)
      .catch((err: unknown) => {
        this.stages.logger.error({ err }, 'webhook deliveries could not be claimed');
        return [];
      })
      .then((claimed) => {
        const got = new Set(claimed.map((c) => c.delivery.id));
        for (const id of ids) if (!got.has(id)) this.settle(id, false);
        for (const c of claimed) this.sendOne(c);
        this.claiming = false;
        this.claimNext();
      });
  }

  private sendOne(claimed: ClaimedDelivery): void {
    this.sending += 1;
    void this.stages
      .send(claimed)
      .catch((err: unknown) => {
        this.stages.logger.error({ err, deliveryId: claimed.delivery.id }, 'webhook send failed to run');
        return NOT_SENT;
      })
      .then((outcome) => {
        this.sending -= 1;
        this.finished.push({ claimed, outcome });
        this.recordNext();
        this.claimNext();
      });
  }

  private recordNext(): void {
    if (this.recording || this.finished.length === 0) return;
    this.recording = true;
    const batch = this.finished.splice(0, RECORD_BATCH);
    void this.stages
      .record(batch)
      .catch((err: unknown) => {
        this.stages.logger.error({ err }, 'webhook attempts could not be recorded');
        return new Set<string>();
      })
      .then((recorded) => {
        for (const { claimed } of batch) this.settle(claimed.delivery.id, recorded.has(claimed.delivery.id));
        this.recording = false;
        this.recordNext();
      });
  }
}
