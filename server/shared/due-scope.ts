import { baseClock, type Clock, clockAhead } from './clock.js';

/**
 * Whose due work a run handles, and by which clock. The global scope is live mode and every
 * merchant whose test clock was never advanced, by the base clock; a sandbox scope is one
 * merchant's test mode, by that merchant's clock (the base clock plus its offset).
 *
 * `since` (the sandbox clock only): the clock's time at its previous stop. Work that
 * catches up (webhook attempts, session expiries) makes each item that fell due since then at the
 * time it fell due, not at the stop's, so that it needs no stop of its own.
 */
export type DueScope = { kind: 'global' } | { kind: 'sandbox'; merchantId: number; offsetSeconds: number; since?: Date };

export const GLOBAL_SCOPE: DueScope = { kind: 'global' };

/** The clock a scope's work reads: the base clock, or the merchant's sandbox clock. */
export function scopedClock(clock: Clock, scope: DueScope): Clock {
  const base = baseClock(clock);
  return scope.kind === 'global' ? base : clockAhead(base, scope.offsetSeconds);
}

/**
 * When an item that fell due at `dueAt` is made: at `dueAt` when the scope catches up (not before
 * the clock's previous stop, nor after its time now), else now by the scope's clock.
 */
export function catchUpTime(clock: Clock, scope: DueScope, dueAt: Date): Date {
  const now = scopedClock(clock, scope).now();
  if (scope.kind !== 'sandbox' || scope.since === undefined) return now;
  return new Date(Math.min(now.getTime(), Math.max(scope.since.getTime(), dueAt.getTime())));
}
