// The sandbox clock's webhook attempts in batches smaller than the work (deliverDueWebhooks with
// `batch`, run by advanceSandboxClock as the registry runs it): the next batch is claimed while one
// is sent and the one before is recorded, and what a batch schedules is claimed once it is recorded.
// Whatever the batches, every delivery gets each attempt exactly once, at the time it fell due.
// Every attempt fails at once and no request leaves this machine: the endpoints are on loopback,
// which these settings refuse before connecting.
import { describe, expect, it } from 'vitest';
import { deliverySettings } from '../../server/api/kit.js';
import { advanceSandboxClock } from '../../server/domain/clocks/clock-advance.js';
import type { DueWork } from '../../server/domain/clocks/due-work-kind.js';
import { writeEvent } from '../../server/domain/events/event.service.js';
import { createMerchant } from '../../server/domain/merchants/merchant.service.js';
import { createConfiguration } from '../../server/domain/webhooks/configuration.service.js';
import { RETRY_DELAYS_SECONDS } from '../../server/domain/webhooks/retry-schedule.js';
import { deliverDueWebhooks, nextDeliveryAttempt } from '../../server/domain/webhooks/due-deliveries.js';
import { ManualClock } from '../../server/shared/clock.js';
import { randomToken } from '../../server/shared/crypto.js';
import { useTestDatabase } from '../support/domain.js';

const clock = new ManualClock('2026-05-04T09:00:00Z');
const settings = deliverySettings({ config: { allowLoopbackWebhooks: false, webhookTimeoutMs: 1000 } });
const database = useTestDatabase();

/** The webhook attempts as the sandbox clock runs them, in batches of `batch`. */
const webhookWork = (batch: number): DueWork => ({
  name: 'webhook attempts',
  run: (db, base, scope) => deliverDueWebhooks(db, base, settings, { scope, batch }),
  next: nextDeliveryAttempt,
  selfContained: true,
  drains: true,
  catchesUp: true,
});

/** A new merchant with two failing endpoints and `events` test-mode events for them (not fanned out yet). */
async function merchantWithEvents(events: number) {
  const { merchant } = await createMerchant(database.db, clock, { name: `Catch-up ${randomToken(6)}` });
  for (const port of [9, 10])
    await createConfiguration(database.db, clock, { allowLoopback: true }, { merchantId: merchant.id }, { sandboxUrl: `https://127.0.0.1:${port}/never` });
  for (let i = 0; i < events; i++) {
    await writeEvent(database.db, clock, {
      tenant: { merchantId: merchant.id, livemode: false },
      type: 'payment.succeeded',
      subject: { kind: 'test', id: `test_${i}`, eventType: 'payment.succeeded', live: false, created_at: clock.now() },
    });
  }
  return merchant.id;
}

/** Each of the merchant's deliveries: its state and when each attempt was made, in seconds after `start`. */
async function attemptsOf(merchantId: number, start: Date) {
  const rows = await database.db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_delivery_attempts as a', 'a.delivery_id', 'd.id')
    .select(['d.id', 'd.status', 'd.attempt_count', 'd.locked_until', 'a.attempted_at', 'a.error'])
    .where('d.merchant_id', '=', merchantId)
    .orderBy('a.attempted_at')
    .execute();
  const byDelivery = new Map<string, { status: string; attemptCount: number; locked: boolean; at: number[]; errors: Set<string | null> }>();
  for (const r of rows) {
    const d = byDelivery.get(r.id) ?? { status: r.status, attemptCount: r.attempt_count, locked: r.locked_until !== null, at: [], errors: new Set() };
    d.at.push((r.attempted_at.getTime() - start.getTime()) / 1000);
    d.errors.add(r.error);
    byDelivery.set(r.id, d);
  }
  return [...byDelivery.values()];
}

describe("the sandbox clock's webhook attempts in batches", () => {
  it.each([1, 3, 500])(
    'in batches of %i, each of 14 deliveries gets its 7 attempts exactly once, at the times they fell due, within one 2-day advance',
    async (batch) => {
      const merchantId = await merchantWithEvents(7);
      const start = clock.now();
      const advanced = await advanceSandboxClock(database.db, clock, merchantId, 2 * 86_400, [webhookWork(batch)]);
      const schedule = [0, ...RETRY_DELAYS_SECONDS.map((_, i) => RETRY_DELAYS_SECONDS.slice(0, i + 1).reduce((a, b) => a + b, 0))];
      const deliveries = await attemptsOf(merchantId, start);
      expect(deliveries).toHaveLength(14);
      for (const d of deliveries) {
        expect(d).toMatchObject({ status: 'dead_lettered', attemptCount: 7, locked: false });
        expect(d.at).toEqual(schedule);
        expect(d.errors).toEqual(new Set(['address_not_allowed']));
      }
      expect(advanced.jobsRun).toBe(14 * 7);
    },
  );
});
