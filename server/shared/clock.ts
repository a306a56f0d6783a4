/**
 * The one source of time. Every time rule (expiry, lapse, renewal, retry, key retention) reads
 * a Clock, never `Date.now()`, so tests and the sandbox can move time.
 */
export interface Clock {
  now(): Date;
}

/** Wall-clock time. */
export const systemClock: Clock = { now: () => new Date() };

/** A clock that tests can set and advance. */
export class ManualClock implements Clock {
  private current: number;
  constructor(start: Date | string = '2026-11-22T09:00:00Z') {
    this.current = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  set(to: Date | string): void {
    this.current = new Date(to).getTime();
  }
  advance(seconds: number): Date {
    this.current += seconds * 1000;
    return this.now();
  }
}

/**
 * A merchant's test-mode clock: the base clock plus the seconds that merchant has advanced it
 * (`POST /v1/test-helpers/clock/advance`). Live mode always reads the base clock.
 */
export class SandboxClock implements Clock {
  constructor(
    readonly base: Clock,
    readonly offsetSeconds: number,
  ) {}
  now(): Date {
    return new Date(this.base.now().getTime() + this.offsetSeconds * 1000);
  }
}

/** The clock `offsetSeconds` ahead of `base`: `base` itself when the offset is 0. */
export const clockAhead = (base: Clock, offsetSeconds: number | string): Clock =>
  Number(offsetSeconds) > 0 ? new SandboxClock(base, Number(offsetSeconds)) : base;

/** The base clock under a merchant's sandbox clock: wall time, for locks and transport timestamps. */
export const baseClock = (clock: Clock): Clock => (clock instanceof SandboxClock ? clock.base : clock);
