// Renewals under concurrency (PostgreSQL): job runs in several transactions racing over one due
// renewal lock the subscription and find it no longer due, so it is billed once.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { runDueSubscriptions } from '../../server/domain/billing/renewal.js';
import { deliveredEvents } from '../support/event-contract.js';
import { useTestServer } from '../support/server.js';
import { billingKit } from '../support/billing.js';

const clock = new ManualClock('2026-01-31T10:00:00Z');
const t = useTestServer({ clock, rateLimitScale: 100 });
const kit = billingKit(t, clock);

describe('renewal under concurrency (PostgreSQL)', () => {
  it('two job runs racing over the same due renewal bill it once: one invoice, one payment, one event', async () => {
    const m = await kit.merchant();
    const { subscription } = await kit.subscribe(m, (await kit.plan(m)).id);
    const offsetSeconds = Math.ceil((Date.parse(subscription.currentPeriodEnd) - clock.now().getTime()) / 1000);
    const scope = { kind: 'sandbox' as const, merchantId: m.merchantId, offsetSeconds };
    const runs = await Promise.all([1, 2, 3].map(() => runDueSubscriptions(t.database.db, clock, scope)));
    expect(runs.reduce((a, b) => a + b, 0)).toBe(1);
    expect(await kit.invoices(m, subscription.id)).toHaveLength(2);
    expect(await deliveredEvents(t.database.db, m.merchantId, 'subscription.renewed')).toHaveLength(1);
    expect(await t.database.db.selectFrom('payments').select('id').where('merchant_id', '=', m.merchantId).execute()).toHaveLength(2);
  });
});
