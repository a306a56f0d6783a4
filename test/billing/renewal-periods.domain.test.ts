// Billing periods of a stored subscription, renewed by the renewal service on a database of its
// own: each period starts where the last ended (the calendar rules themselves: periods.unit.test.ts).
import { describe, expect, it } from 'vitest';
import { runDueSubscriptions } from '../../server/domain/billing/renewal.js';
import { ManualClock } from '../../server/shared/clock.js';
import { useBilling } from '../support/subscriptions.js';

const at = (iso: string) => new Date(iso);
const iso = (d: Date) => d.toISOString();

describe('renewals on a stored subscription (runDueSubscriptions)', () => {
  const clock = new ManualClock('2026-01-31T10:00:00Z');
  const billing = useBilling(clock);

  it("each period starts where the last one ended and ends on the anchor's day, or the month's last day: monthly renewals from 31 January", async () => {
    const s = await billing.subscribe(await billing.plan({ amount: '29.99' }));
    for (let i = 0; i < 3; i++) {
      clock.set((await billing.row(s.id)).current_period_end);
      await runDueSubscriptions(billing.db, clock);
    }
    const periods = (await billing.invoices(s.id)).map((i) => [i.period_start, i.period_end].map((d) => iso(d!).slice(0, 10)));
    expect(periods).toEqual([
      ['2026-01-31', '2026-02-28'],
      ['2026-02-28', '2026-03-31'],
      ['2026-03-31', '2026-04-30'],
      ['2026-04-30', '2026-05-31'],
    ]);
    expect(await billing.row(s.id)).toMatchObject({ status: 'active', current_period_start: at('2026-04-30T10:00:00.000Z') });
  });
});
