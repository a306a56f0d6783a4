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
