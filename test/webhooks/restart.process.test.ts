// Issue #5: "A process restart in the middle of a delivery backlog loses no event." A backlog of
// events is written with no process delivering (so none is delivered yet, however slow the
// machine); then Till runs as a real child process (`server/main.ts`, pg-boss and all) delivering
// it to a slow HTTPS receiver on loopback, is stopped (SIGTERM) as soon as the first delivery
// arrives, and started again on the same database. Every event must reach the receiver; a repeat is
// allowed (receivers de-duplicate on id). The kill (SIGKILL) is in restart.pg.test.ts: PGlite's
// single-process data directory is not meant to survive one.
import { describe, expect, it } from 'vitest';
import { useDeliveringTills } from '../support/webhooks.js';

describe('a process restart in the middle of a delivery backlog', () => {
  const tills = useDeliveringTills();

  it('stopped (SIGTERM) mid-backlog and started again: every event is delivered', async () => {
    const events = await tills.backlog(150);
    const first = await tills.start();
    await expect.poll(() => tills.delivered(events).size, { timeout: 60_000, interval: 20 }).toBeGreaterThan(0);
    await tills.stop(first, 'SIGTERM');
    expect(tills.delivered(events).size, 'the backlog was not done when the process stopped').toBeLessThan(events.size);

    const second = await tills.start();
    await expect.poll(() => tills.delivered(events).size, { timeout: 60_000, interval: 100 }).toBe(events.size);
    expect(tills.delivered(events)).toEqual(events);
    await tills.stop(second, 'SIGTERM');
  }, 150_000); // two Till processes start, each loading the server through tsx (about 5 s of CPU; 20 s and more on a loaded machine)
});
