// The sandbox clock's stops while time passes under them (advanceSandboxClock with kinds of its
// own): the base clock keeps running while a stop's work runs, so by the time the clock asks each
// kind when its next item falls due, the merchant's time is past the stop's. An item that fell due
// in between was not run by that stop: it must still make a stop of its own, not wait for the
// advance's last instant.
import { describe, expect, it } from 'vitest';
import { advanceSandboxClock } from '../../server/domain/clocks/clock-advance.js';
import type { DueWork } from '../../server/domain/clocks/due-work-kind.js';
import { createMerchant } from '../../server/domain/merchants/merchant.service.js';
import { ManualClock, SandboxClock } from '../../server/shared/clock.js';
import type { DueScope } from '../../server/shared/due-scope.js';
import { randomToken } from '../../server/shared/crypto.js';
import { useTestDatabase } from '../support/domain.js';

const clock = new ManualClock('2026-05-04T09:00:00Z');
const database = useTestDatabase();

/** The merchant's time in a scope of the sandbox clock. */
const timeOf = (scope: DueScope) => (scope.kind === 'sandbox' ? new SandboxClock(clock, scope.offsetSeconds).now() : clock.now());

/**
 * A kind with one item due at `dueAt`: run, it handles the item once due (at the merchant's time
 * then, recorded in `ranAt`) and lets `busyMs` of wall time pass, as a stop's work takes time.
 */
function oneItem(name: string, dueAt: Date, busyMs: number, ranAt: Date[]): DueWork {
  return {
    name,
    run: async (_db, _base, scope) => {
      const now = timeOf(scope);
      if (ranAt.length > 0 || now < dueAt) return 0;
      ranAt.push(now);
      clock.set(new Date(clock.now().getTime() + busyMs));
      return 1;
    },
    next: async (_db, _scope, after) => (ranAt.length === 0 && dueAt > after ? dueAt : null),
  };
}

describe("the sandbox clock's stops while wall time passes", () => {
  it('an item due while the stop before it was still running gets a stop of its own, not the last instant', async () => {
    const { merchant } = await createMerchant(database.db, clock, { name: `Stops ${randomToken(6)}` });
    const start = clock.now().getTime();
    const first: Date[] = [];
    const second: Date[] = [];
    // The first item is due an hour in; its work takes 2 s of wall time. The second is due 1.5 s
    // after the first: past the first's stop by the time that stop's work is done.
    // The second's kind runs first at a stop, so the first's stop is over when the second falls due.
    const work = [oneItem('second', new Date(start + 3_601_500), 0, second), oneItem('first', new Date(start + 3_600_000), 2_000, first)];
    await advanceSandboxClock(database.db, clock, merchant.id, 86_400, work);
    expect(first).toHaveLength(1);
    expect(second).toHaveLength(1);
    // The first ran at its instant (stops fall on whole seconds of offset); the second at the
    // stop made for it, within 1 s of its time, not a day later at the advance's end.
    expect(first[0]!.getTime() - start).toBe(3_600_000);
    const late = second[0]!.getTime() - (start + 3_601_500);
    expect(late).toBeGreaterThanOrEqual(0);
    expect(late).toBeLessThan(3_000);
  });
});
