// Issue #5, the kill: "A process restart in the middle of a delivery backlog loses no event", when
// the process is killed (SIGKILL) as soon as the first delivery arrives. The deliveries it was
// sending stay held by it (the timeout plus 15 s); once the holds pass, Till started again sends
// them with the rest. PostgreSQL only: PGlite's single-process data directory is not meant to
// survive a kill. The stop (SIGTERM) is in restart.process.test.ts.
import { describe, expect, it } from 'vitest';
import { useDeliveringTills } from '../support/webhooks.js';

describe('a process restart in the middle of a delivery backlog', () => {
  const tills = useDeliveringTills();

  it('killed (SIGKILL) mid-backlog and started again: every event is delivered, the ones it was sending once their hold passes', async () => {
    const events = await tills.backlog(150);
    const first = await tills.start();
    await expect.poll(() => tills.delivered(events).size, { timeout: 60_000, interval: 20 }).toBeGreaterThan(0);
    await tills.stop(first, 'SIGKILL');
    expect(tills.delivered(events).size).toBeLessThan(events.size);

    await tills.holdsPassed();
    const second = await tills.start();
    await expect.poll(() => tills.delivered(events).size, { timeout: 60_000, interval: 100 }).toBe(events.size);
    expect(tills.delivered(events)).toEqual(events);
    await tills.stop(second, 'SIGTERM');
  }, 150_000); // two Till processes start, each loading the server through tsx (20 s and more on a loaded machine), and the holds pass (20 s)
});
