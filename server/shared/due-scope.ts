import { baseClock, type Clock, clockAhead } from './clock.js';

/**
 * Whose due work a run handles, and by which clock. The global scope is live mode and every
 * merchant whose test clock was never advanced, by the base clock; a sandbox scope is one
 * merchant's test mode, by that merchant's clock (the base clock plus its offset).
 */
export type DueScope = { kind: 'global' } | { kind: 'sandbox'; merchantId: number; offsetSeconds: number };

export const GLOBAL_SCOPE: DueScope = { kind: 'global' };

/** The clock a scope's work reads: the base clock, or the merchant's sandbox clock. */
export function scopedClock(clock: Clock, scope: DueScope): Clock {
  const base = baseClock(clock);
  return scope.kind === 'global' ? base : clockAhead(base, scope.offsetSeconds);
}
