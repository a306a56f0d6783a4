// A subscription's invoice list (GET /v1/subscriptions/{id}/invoices): checkout-billing-api.md says
// it "returns up to 100 items", so without `limit` a page holds up to 100 (not the 25 of other lists).
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/shared/clock.js';
import { useTestServer } from '../support/server.js';
import { billingKit, DAY } from '../support/billing.js';

const clock = new ManualClock('2026-03-01T10:00:00Z');
const t = useTestServer({ clock, rateLimitScale: 100 });
const kit = billingKit(t, clock);

describe("a subscription's invoice list", () => {
  it('answers up to 100 invoices without limit, newest first; limit still pages (1-100) and more than 100 is refused', async () => {
    const m = await kit.merchant();
    const plan = await kit.plan(m, { amount: 2, interval: 'day' });
    const { subscription } = await kit.subscribe(m, plan.id);
    expect((await kit.advance(m, 29 * DAY)).status).toBe(200);
    const list = (query = '') => t.call('GET', `/v1/subscriptions/${subscription.id}/invoices${query}`, { key: m.keys.test.secret });

    const all = await list();
    expect(all.status, all.text).toBe(200);
    expect(all.json.data.data).toHaveLength(30);
    expect(all.json.data.hasMore).toBe(false);
    const ids = all.json.data.data.map((i: any) => i.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));

    const page = await list('?limit=25');
    expect(page.json.data.data).toHaveLength(25);
    expect(page.json.data.hasMore).toBe(true);
    const rest = await list(`?limit=25&startingAfter=${ids[24]}`);
    expect(rest.json.data.data.map((i: any) => i.id)).toEqual(ids.slice(25));
    expect(rest.json.data.hasMore).toBe(false);
    expect((await list('?limit=101')).status).toBe(400);
  });
});
